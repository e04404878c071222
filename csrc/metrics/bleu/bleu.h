/*
 * BLEU's kernel (bleukit.metrics.bleu._kernel): what its GIL-free parts share.
 *
 *   tokenize.c  one segment's code points -> tokens (bleukit.metrics.bleu.extract's preprocess:
 *               rstrip, the tokenizer's rules, split), appended to the sentence's token store
 *   count.c     a sentence's tokens (or integer ids) -> one statistics row (clipped n-gram
 *               matches and totals in sacreBLEU's column order); the workspace's buffers
 *
 * The Python entry points (module.h: text.c, batch.c, ids.c, pairwise.c, libm.c, float32.c,
 * module.c) use them; the headers every kernel shares are in csrc/common/.
 *
 * Nothing in tokenize.c or count.c touches a Python object or the Python error state: they run
 * with the GIL released and report failures through workspace.err, which the entry points turn
 * into an exception once they hold the GIL again. Their one way to Python is the poll (ws_work),
 * which takes the GIL before it runs the signal handlers.
 */
#ifndef BLEUKIT_BLEU_H
#define BLEUKIT_BLEU_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include <stddef.h>
#include <stdint.h>

#include "common/buffers.h"
#include "common/hash.h"
#include "common/limits.h"
#include "common/poll.h"

/* Bits of the character-class table built by bleukit.metrics.bleu.kernel.character_table (one byte per
 * code point). The Python side reads the same values from the module's CLS_* constants. */
#define CLS_P 1u      /* \p{P} as the regex package sees it */
#define CLS_S 2u      /* \p{S} */
#define CLS_N 4u      /* \p{N} */
#define CLS_ZH 8u     /* tokenizers.CHINESE_RANGES */
#define CLS_13A 16u   /* the class of MtevalRule.PUNCTUATION (isolated by 13a and zh) */
#define CLS_DIGIT 32u /* [0-9] of the MtevalRule patterns */
#define TABLE_SIZE 0x110000

/* Tokenizer codes, exported as the module's TOK_* constants (bleukit.metrics.bleu.kernel's
 * NATIVE_TOKENIZERS names them; tests/metrics/bleu/test_bleu_kernel.py checks that the two agree). */
enum { TOK_13A = 0, TOK_INTL = 1, TOK_ZH = 2, TOK_CHAR = 3, TOK_NONE = 4 };

/* Why a step without the GIL failed (args.c's raise_kernel_error raises the matching
 * exception). The first codes are grow_array's (common/buffers.h). */
enum {
    KERR_NONE = GROW_OK,
    KERR_NOMEM = GROW_NOMEM,
    KERR_TOO_LONG = GROW_TOO_LONG,
    KERR_INTERRUPTED,
    KERR_SUM_OVERFLOW
};

typedef struct {
    cp_t *d;
    size_t n, cap;
} cpbuf;

typedef struct {
    int64_t *d;
    size_t n, cap;
} i64buf;

/* One segment to tokenize: its code points, read in place from a str the caller keeps alive. */
typedef struct {
    const void *data;
    size_t len;
    int kind;        /* PyUnicode_1BYTE_KIND, 2 or 4 */
    int ascii_lower; /* map A-Z to a-z while reading (str.lower() of an ASCII str) */
} segment_src;

/* The statistics kernel's working memory for one call: settings, per-segment scratch, the
 * sentence's token store and the counting tables. Buffers grow to the longest sentence and are
 * reused for the next; workspace_free releases them at the end of the call. */
typedef struct {
    const uint8_t *cls; /* character-class table */
    int tokenizer;
    int order;
    int err; /* KERR_* of the last failure */
    /* per-segment scratch */
    cpbuf a, b, c;
    /* per-sentence token store: code points of all tokens, token spans */
    cpbuf chars;
    i64buf tok_off, tok_len; /* token spans in chars */
    i64buf tok_hash;         /* token hashes, computed while splitting */
    i64buf seg_start;        /* first token of each segment; one extra entry at the end */
    /* counting */
    i64buf tok_ids;       /* per token position: its id in the hypothesis's vocabulary, or -1 */
    i64buf live, ids;     /* count.c's lists of live positions and the ids of their n-grams */
    i64buf bounds;        /* where each segment's list starts and ends */
    i64buf hypcnt, refmax, tmp;
    /* hash table */
    uint64_t *hkeys;
    int64_t *hvals;
    size_t hcap;       /* allocated slots */
    size_t hmask;      /* slots in use - 1 (a power of two minus one) */
    int hshift;        /* 64 - log2(slots in use) */
    int64_t minus1_id; /* id of the integer token -1 in the current sentence (token-id path) */
    /* tokenize.c's ASCII characters that stay inside a token, for the table and classes named */
    uint8_t word[128];
    uint8_t word_cls[128]; /* the table's ASCII entries it was worked out from */
    unsigned word_isolate;
    int word_ready;
    poller *poll;      /* the calling thread's (poll.h); a worker thread's is disabled */
    /* With worker threads (text.c): set by whichever thread must stop them all (Ctrl-C in the
     * calling thread, a failure in any); every thread reads it every POLL_SLICE units. NULL
     * when the call runs on one thread. */
    volatile int *stop;
    size_t stop_units;
} workspace;

/* Account for `units` of work (poll.h); -1 with KERR_INTERRUPTED when a signal handler raised
 * or another thread of the call asked to stop. */
static inline int ws_work(workspace *ws, size_t units) {
    if (poller_work(ws->poll, units) < 0) {
        ws->err = KERR_INTERRUPTED;
        if (ws->stop) *ws->stop = 1;
        return -1;
    }
    if (ws->stop) {
        ws->stop_units += units;
        if (ws->stop_units >= POLL_SLICE) {
            ws->stop_units = 0;
            if (*ws->stop) {
                ws->err = KERR_INTERRUPTED;
                return -1;
            }
        }
    }
    return 0;
}

/* ws_work for a loop that advances unevenly (a scan that jumps from one trigger to the next):
 * called at the loop's head with the position reached, it accounts for the positions passed
 * since *mark once they are POLL_SLICE or more. */
static inline int ws_progress(workspace *ws, size_t *mark, size_t pos) {
    if (pos - *mark < POLL_SLICE) return 0;
    const size_t units = pos - *mark;
    *mark = pos;
    return ws_work(ws, units);
}

/* The workspace's buffers grow with grow_array (common/buffers.h); a failure is recorded in
 * ws->err. -1 on failure. */
static inline int ws_grow(workspace *ws, void **d, size_t *cap, size_t need, size_t elem) {
    const int err = grow_array(d, cap, need, elem);
    if (err) ws->err = err;
    return err ? -1 : 0;
}
/* Room for `need` items; the common case (there is room) stays inline in the hot loops. */
static inline int cp_reserve(workspace *ws, cpbuf *b, size_t need) {
    if (need <= b->cap) return 0;
    void *d = b->d;
    const int r = ws_grow(ws, &d, &b->cap, need, sizeof(cp_t));
    b->d = (cp_t *)d;
    return r;
}
static inline int i64_reserve(workspace *ws, i64buf *b, size_t need) {
    if (need <= b->cap) return 0;
    void *d = b->d;
    const int r = ws_grow(ws, &d, &b->cap, need, sizeof(int64_t));
    b->d = (int64_t *)d;
    return r;
}

/* count.c */
void workspace_free(workspace *ws);
/* Row of the sentence whose segments seg_start delimits (segment 0 the hypothesis, then the
 * references): text tokens of the store, or with `values` the integers values[seg_start[0]..]. */
int count_sentence(workspace *ws, int64_t *row, const int64_t *values);

/* tokenize.c: preprocess(line, tokenizer, lowercase) of one segment, tokens appended. */
int tokenize_segment(workspace *ws, const segment_src *src);

#endif
