/*
 * bleukit TER kernel (bleukit.metrics.ter._kernel): what its source files share.
 *
 *   work.c   the per-thread scratch (ter_work): its buffers, the accounting of work between polls
 *   words.c  a segment's code points -> TER's words (tercom's normalisation, punctuation removal,
 *            the whitespace split), appended to the sentence's word store; words -> integer ids
 *   edits.c  edit distance with the beam and greedy block shifts on integer ids (the decisions
 *            of bleukit.metrics.ter.reference, which is sacreBLEU 2.6's), one statistics row
 *   ter.c    the Python entry point: the argument checks, gathering text under the GIL, the work
 *            on `threads` threads without it, signal checks, the module definition
 *
 * Nothing in words.c or edits.c touches a Python object or the Python error state: they run with
 * the GIL released and report failures through ter_work.err, which ter.c turns into an exception
 * once it holds the GIL again.
 */
#ifndef BLEUKIT_TER_H
#define BLEUKIT_TER_H

#include <stddef.h>
#include <stdint.h>

/* Why a step without the GIL failed (ter.c raises the matching exception). */
enum { TER_OK = 0, TER_NOMEM, TER_INTERRUPTED };

/* Option bits of a call (the four TerOptions switches). */
enum { TER_LOWERCASE = 1, TER_NORMALIZE = 2, TER_NO_PUNCT = 4, TER_ASIAN = 8 };

/* Limits that keep every size and distance in range: a segment holds at most TER_MAX_CHARS code
 * points (ter.c rejects longer ones with OverflowError before any work), so a sentence pair has
 * fewer than 2^29 words and a distance (at most the words of both) fits an int32 well below
 * TER_UNREACHABLE, the value of cells outside the beam. */
#define TER_MAX_CHARS ((int64_t)1 << 28)
#define TER_UNREACHABLE ((int32_t)0x3fffffff)

/* Work units (matrix cells, code points) between two calls of ter_work.poll: a few ms. */
#define TER_POLL_WORK ((uint64_t)1 << 22)

/* One segment to read: code points of a str that ter.c keeps alive while the GIL is released. */
typedef struct {
    const void *data;
    int64_t len;
    int kind;        /* PyUnicode_1BYTE_KIND, 2 or 4 */
    int ascii_lower; /* map A-Z to a-z while reading (str.lower() of an ASCII str) */
} ter_segment;

typedef struct {
    void *d;
    size_t n, cap; /* items */
} ter_buf;

/* Per-thread scratch; every buffer grows as needed and is freed by ter_work_free. */
typedef struct {
    int flags; /* TER_* option bits (lowercasing itself happens while reading) */
    int err;   /* TER_* of the first failure */
    /* Long work calls poll (on the main thread: take the GIL, check signals, release it) every
     * TER_POLL_WORK units; nonzero *stop (set by any thread) ends the work of all threads. */
    int (*poll)(void *state);
    void *poll_state;
    volatile int *stop;
    uint64_t work;

    /* words.c: normalisation passes, the sentence's word store and the id table */
    ter_buf pass_a, pass_b;  /* uint32_t code points */
    ter_buf chars;           /* uint32_t: code points of the sentence's words */
    ter_buf word_start;      /* int64_t: first code point of each word, one extra at the end */
    ter_buf word_hash;       /* uint64_t */
    ter_buf seg_first;       /* int64_t: first word of each segment, one extra at the end */
    ter_buf ids;             /* int32_t: id of each word */
    ter_buf table;           /* int64_t: hash slots holding word indices, -1 when free */

    /* edits.c */
    ter_buf lo, hi, off;           /* int64_t: the band's rows */
    ter_buf fwd, bwd;              /* int32_t: distances from the start / to the end, band cells */
    ter_buf moves;                 /* uint8_t: how each band cell was reached */
    ter_buf align, hyp_err_sum, ref_err_sum; /* int32_t */
    ter_buf hyp, cand;             /* int32_t: current hypothesis, a candidate */
    ter_buf row_a, row_b;          /* int32_t: rolling candidate rows */
    ter_buf post_start, post_pos;  /* int64_t, int32_t: the reference's positions of each word id */
} ter_work;

/* work.c: make room for `need` items of `size` bytes; -1 (err = TER_NOMEM) when that fails. */
int ter_reserve(ter_work *w, ter_buf *b, size_t need, size_t size);
void ter_work_free(ter_work *w);

/* work.c: account for `units` of work, polling when due; -1 when the work must stop. */
int ter_tick(ter_work *w, uint64_t units);

/* words.c: append the words of one segment (a hypothesis, or with `reference` a reference, which
 * sacreBLEU tokenizes twice) to the store and open its entry in seg_first. */
int ter_segment_words(ter_work *w, const ter_segment *src, int reference);
/* words.c: ids (equal words, equal ids) of every word in the store; -1 on failure. */
int ter_intern(ter_work *w);

/* edits.c: TER's number of edits turning hyp[0..n) into ref[0..m); -1 on failure. */
int64_t ter_edits(ter_work *w, const int32_t *hyp, int64_t n, const int32_t *ref, int64_t m);

#endif
