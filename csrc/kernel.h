/*
 * bleukit native statistics kernel (bleukit._native_kernel): what its source files share.
 *
 *   tokenize.c  one segment's code points -> tokens (bleukit.engine.preprocess: rstrip, the
 *               tokenizer's rules, split), appended to the sentence's token store
 *   count.c     a sentence's tokens (or integer ids) -> one statistics row (clipped n-gram
 *               matches and totals in sacreBLEU's column order); growable arrays
 *   module.c    the Python entry points: the one argument check, gathering text under the GIL,
 *               the work itself without it, the module's state and constants
 *
 * The headers every bleukit kernel shares: hash.h (mix64), poll.h (Ctrl-C without the GIL) and
 * pyhelpers.h (argument checks, module.c only).
 *
 * Nothing in tokenize.c or count.c touches a Python object or the Python error state: they run
 * with the GIL released and report failures through workspace.err, which module.c turns into an
 * exception once it holds the GIL again. Their one way to Python is the poll (ws_work), which
 * takes the GIL before it runs the signal handlers.
 */
#ifndef BLEUKIT_KERNEL_H
#define BLEUKIT_KERNEL_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include <stddef.h>
#include <stdint.h>

#include "hash.h"
#include "poll.h"

/* Bits of the character-class table built by bleukit._native.character_table (one byte per
 * code point). The Python side reads the same values from the module's CLS_* constants. */
#define CLS_P 1u      /* \p{P} as the regex package sees it */
#define CLS_S 2u      /* \p{S} */
#define CLS_N 4u      /* \p{N} */
#define CLS_ZH 8u     /* tokenizers.CHINESE_RANGES */
#define CLS_13A 16u   /* the class of MtevalRule.PUNCTUATION (isolated by 13a and zh) */
#define CLS_DIGIT 32u /* [0-9] of the MtevalRule patterns */
#define TABLE_SIZE 0x110000

/* Tokenizer codes, exported as the module's TOK_* constants (bleukit._native.NATIVE_TOKENIZERS
 * names them; tests/test_native.py checks that the two agree). */
enum { TOK_13A = 0, TOK_INTL = 1, TOK_ZH = 2, TOK_CHAR = 3, TOK_NONE = 4 };

/* Why a step without the GIL failed (module.c raises the matching exception). */
enum { KERR_NONE = 0, KERR_NOMEM, KERR_TOO_LONG, KERR_INTERRUPTED, KERR_SUM_OVERFLOW };

typedef uint32_t cp_t;

/* Size limits. A sentence (hypothesis and references together) holds at most MAX_SENTENCE_CHARS
 * code points and its hypothesis at most MAX_HYP_TOKENS tokens (n-gram keys pack two ids into
 * 64 bits), so no size computed from them (a few times a length, plus a few) can overflow;
 * module.c rejects longer input with OverflowError before any work. Buffers never grow past
 * MAX_BUFFER_BYTES, so doubling a capacity cannot overflow either. */
#define MAX_SENTENCE_CHARS ((int64_t)1 << 40)
#define MAX_HYP_TOKENS ((int64_t)INT32_MAX)
#define MAX_BUFFER_BYTES ((size_t)1 << 50)

/* Token hash: FNV-1a over the code points (accumulated while splitting), then mixed; never
 * EMPTY_KEY, the hash table's marker of a free slot. */
#define EMPTY_KEY UINT64_MAX
#define HASH_SEED 0xcbf29ce484222325ULL
#define HASH_PRIME 0x100000001b3ULL

static inline uint64_t finish_hash(uint64_t h, size_t len) {
    h = mix64(h ^ ((uint64_t)len << 40));
    return h == EMPTY_KEY ? h - 1 : h;
}

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
    /* With worker threads (module.c): set by whichever thread must stop them all (Ctrl-C in the
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

/* count.c */
/* Grow an array of `elem`-byte items to hold at least `need` (the capacity doubles from 64,
 * never past MAX_BUFFER_BYTES). 0, or KERR_NOMEM / KERR_TOO_LONG with the array unchanged. Plain
 * realloc, no Python error state: the workspace's buffers grow without the GIL, and module.c's
 * batch arrays (which grow under it) use the same function and raise the error themselves. */
int grow_array(void **data, size_t *cap, size_t need, size_t elem);
int cp_grow(workspace *ws, cpbuf *b, size_t need);
int i64_grow(workspace *ws, i64buf *b, size_t need);
/* Room for `need` items; the common case (there is room) stays inline in the hot loops. */
static inline int cp_reserve(workspace *ws, cpbuf *b, size_t need) {
    return need <= b->cap ? 0 : cp_grow(ws, b, need);
}
static inline int i64_reserve(workspace *ws, i64buf *b, size_t need) {
    return need <= b->cap ? 0 : i64_grow(ws, b, need);
}
void workspace_free(workspace *ws);
/* Row of the sentence whose segments seg_start delimits (segment 0 the hypothesis, then the
 * references): text tokens of the store, or with `values` the integers values[seg_start[0]..]. */
int count_sentence(workspace *ws, int64_t *row, const int64_t *values);

/* tokenize.c: preprocess(line, tokenizer, lowercase) of one segment, tokens appended. */
int tokenize_segment(workspace *ws, const segment_src *src);

#endif
