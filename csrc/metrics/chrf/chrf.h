/*
 * bleukit.metrics.chrf._kernel: chrF / chrF++ statistics (the glue is bleukit.metrics.chrf.extract,
 * the pure-Python twin and the definition of every rule bleukit.metrics.chrf.reference). What its
 * source files share:
 *
 *   words.c   a text's code points and words (read in place; whitespace and punctuation rules)
 *   count.c   one sentence's n-gram counts against each reference, the best reference's row
 *             (the f-score), the id tables
 *   work.c    the worker's buffers, the threads
 *   args.c    argument checks and the texts gathered under the GIL
 *   stats.c   the statistics and sentence entry points
 *   pairs.c   the pairwise entry point
 *   module.c  the method table and the module's state
 *
 * Two entry points:
 *   statistics  one row per hypothesis (per order: hypothesis n-grams, reference n-grams,
 *               matches), against the reference with the best sentence chrF, the first on a tie;
 *   pairwise    sentence chrF (or the rows) of every hypothesis against every single reference,
 *               each sentence's n-grams counted once.
 *
 * Text is read in place from the str objects (kinds 1, 2 and 4). Lowercasing is str.lower itself
 * (called under the GIL while a batch is gathered) except for ASCII text, where it is A-Z -> a-z
 * while reading. Whitespace is what str.split() splits on (Py_UNICODE_ISSPACE, the very test it
 * uses); the punctuation split off words comes from the caller (reference.PUNCTUATION).
 *
 * N-grams get exact dense ids, never hashes taken on trust: unigrams (a code point, or a word
 * compared character by character) through a hash table, and an n-gram as the pair (id of its
 * first n-1 items, id of its last item), so equal ids mean equal n-grams. Counting a sentence
 * follows BLEU's (csrc/metrics/bleu/count.c): the hypothesis' n-grams get ids, a reference's n-grams only look theirs
 * up (-1 when the hypothesis lacks them), and hypothesis n-grams found in no reference drop out of
 * the longer orders.
 *
 * The f-score that picks the best reference is sacreBLEU's formula with the same double
 * operations in the same order as bleukit.metrics.chrf.formula (built with -ffp-contract=off, so
 * no multiply-add is fused), taking beta ** 2 and 1 + beta ** 2 as Python computed them.
 *
 * Every argument is checked before any work. The counting runs without the GIL, on `threads`
 * threads; the calling thread, when it is the main thread, polls for signals every
 * POLL_INTERVAL_MS (common/poll.h), so Ctrl-C raises KeyboardInterrupt within some 10 ms and stops the other threads.
 */
#ifndef BLEUKIT_CHRF_H
#define BLEUKIT_CHRF_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include "common/buffers.h"
#include "common/hash.h"
#include "common/limits.h"
#include "common/poll.h"
#include "common/pyhelpers.h" /* buffer_release */

#include <stdint.h>
#include <string.h>

#define EPS 1e-16
/* Most orders (char + word): bleukit.metrics.chrf.options.MAX_ORDER is the same number. */
#define MAX_ORDER 1000
/* Code points gathered (per thread) per release of the GIL: some 40 ms of work. */
#define BATCH_CHARS ((int64_t)1 << 22)
#define FIB_MULT 0x9E3779B97F4A7C15ULL
/* A sentence's n-grams of order n are ids of (its (n-1)-gram id, its last item's id). When the
 * hypothesis has few enough of both for their product to fit this table, the pair indexes the
 * table directly (no hashing); otherwise a hash table holds the pairs. */
#define DIRECT_SLOTS ((size_t)1 << 18)

typedef struct worker_s worker;

typedef struct {
    PyObject *str_lower;   /* str.lower, unbound: a str subclass cannot override it */
    PyObject *main_thread; /* threading.main_thread: asked at each call (it changes after a fork) */
    worker *spare;         /* sentence()'s worker between calls (NULL: none yet, or in use) */
} module_state;

static inline module_state *get_state(PyObject *module) { return (module_state *)PyModule_GetState(module); }

/* options (args.c's parse_opts checks them) */
typedef struct {
    int char_order, word_order, order; /* order = char_order + word_order */
    int whitespace, eps_smoothing;
    double factor, one_plus; /* beta ** 2 and 1 + beta ** 2, as Python computed them */
    uint8_t punct[128];      /* ASCII characters split off the ends of words */
} chrf_opts;

/* One text to read: the code points of a str that the caller keeps alive. */
typedef struct {
    const void *data;
    int64_t len;
    int kind;
    int ascii_lower; /* str.lower() of an ASCII str: A-Z -> a-z while reading */
} text_src;

/* ------------------------------------------------------------------------------------------ */
/* work state of one thread (work.c)                                                           */

/* Why the work without the GIL failed; the first codes are grow_array's (common/buffers.h). */
enum { ERR_NONE = GROW_OK, ERR_NOMEM = GROW_NOMEM, ERR_TOO_LONG = GROW_TOO_LONG, ERR_INTERRUPTED };

typedef struct shared_s shared;

struct worker_s {
    const chrf_opts *o;
    /* the sentence's text: code points kept for character n-grams, segment bounds */
    cp_t *chars;
    size_t chars_cap;
    int64_t *seg; /* nseg + 1 */
    size_t seg_cap;
    /* words: spans in chars, their hashes, segment bounds in words */
    int64_t *w_off, *w_len;
    uint64_t *w_hash;
    size_t w_off_cap, w_len_cap, w_hash_cap;
    int64_t *wseg;
    size_t wseg_cap;
    /* counting */
    int64_t *uni, *ids;
    size_t uni_cap, ids_cap;
    int64_t *hypcnt, *tmp;
    uint8_t *seen;
    size_t hypcnt_cap, tmp_cap, seen_cap;
    uint64_t *hkeys;
    int64_t *hvals;
    size_t hkeys_cap, hvals_cap, hmask;
    int hshift;
    int32_t *cpmap;  /* code point -> character id + 1 of the current hypothesis (0: none) */
    int32_t *direct; /* DIRECT_SLOTS (prefix id, last id) -> n-gram id + 1, for small alphabets */
    int64_t *touched;
    size_t touched_cap;
    int64_t *cand; /* per reference: a candidate row */
    size_t cand_cap;
    /* signals: only the calling thread's poller is enabled (common/poll.h); every thread
     * watches `stop` */
    shared *sh;
    poller *poll;
    size_t work; /* units since the last check */
    int err;
};

struct shared_s {
    volatile int stop; /* set when one thread fails or Ctrl-C was seen */
};

/* Grow an array of the worker's (common/buffers.h's grow_array); -1 with w->err on failure. */
static inline int chrf_grow(worker *w, void **p, size_t *cap, size_t need, size_t elem) {
    if (need <= *cap) return 0;
    const int err = grow_array(p, cap, need, elem);
    if (err) w->err = err;
    return err ? -1 : 0;
}
#define GROW(w, ptr, capvar, need) chrf_grow((w), (void **)&(ptr), &(capvar), (need), sizeof(*(ptr)))

void worker_free(worker *w);

/* work_done's check, every POLL_SLICE units: rare, so kept out of line (as poll.h's poll). */
static POLL_OUT_OF_LINE int work_check(worker *w) {
    w->work = 0;
    if (w->sh->stop) {
        if (!w->err) w->err = ERR_INTERRUPTED;
        return -1;
    }
    if (!w->poll->enabled) return 0;
    if (poller_due(w->poll) < 0) {
        w->err = ERR_INTERRUPTED;
        w->sh->stop = 1;
        return -1;
    }
    return 0;
}

/* Account for work; -1 when this call must stop (Ctrl-C seen here, or another thread failed). The
 * clock is read every POLL_SLICE units and signals are polled every POLL_INTERVAL_MS (a unit costs
 * from ~1 ns in a pass over characters to ~100 ns in a large hash table, so time, not a count). */
static inline int work_done(worker *w, size_t units) {
    w->work += units;
    return w->work < POLL_SLICE ? 0 : work_check(w);
}

typedef void (*range_fn)(void *job, worker *w, int64_t lo, int64_t hi);
/* Run fn over [0, n) split at `bounds` (threads + 1 entries) on `threads` threads, the last part
 * on this thread; the others are waited for while this thread keeps polling for signals. */
void run_parts(range_fn fn, void *job, worker *ws, const int64_t *bounds, int threads);
/* Split [0, n) into `threads` parts of about equal weight (cum[i]: weight of items before i). */
void split_weights(const int64_t *cum, int64_t n, int threads, int64_t *bounds);

/* ------------------------------------------------------------------------------------------ */
/* ids (count.c, pairs.c)                                                                      */

/* Clear the hash table for at least `entries` keys (only the slots in use are cleared). */
int table_reset(worker *w, size_t entries);

/* Id of an integer key (a code point, or a (prefix id, last id) pair): dense for inserts, -1
 * for a lookup that finds nothing. Keys are never EMPTY_KEY (both ids stay below 2^31). */
static inline int64_t key_id(worker *w, uint64_t key, int insert, int64_t *next) {
    size_t slot = (size_t)((key * FIB_MULT) >> w->hshift);
    for (;;) {
        const uint64_t k = w->hkeys[slot];
        if (k == EMPTY_KEY) break;
        if (k == key) return w->hvals[slot];
        slot = (slot + 1) & w->hmask;
    }
    if (!insert) return -1;
    w->hkeys[slot] = key;
    w->hvals[slot] = *next;
    return (*next)++;
}

static inline int same_word(const worker *w, int64_t a, int64_t b) {
    const int64_t len = w->w_len[a];
    if (len != w->w_len[b]) return 0;
    return memcmp(w->chars + w->w_off[a], w->chars + w->w_off[b], (size_t)len * sizeof(cp_t)) == 0;
}

/* Id of word t (uni[] of earlier words already set); the table maps a hash to a word index. */
static inline int64_t word_id(worker *w, int64_t t, int insert, int64_t *next) {
    const uint64_t h = w->w_hash[t];
    size_t slot = (size_t)h & w->hmask;
    for (;;) {
        const uint64_t k = w->hkeys[slot];
        if (k == EMPTY_KEY) break;
        if (k == h && same_word(w, t, w->hvals[slot])) return w->uni[w->hvals[slot]];
        slot = (slot + 1) & w->hmask;
    }
    if (!insert) return -1;
    w->hkeys[slot] = h;
    w->hvals[slot] = t;
    return (*next)++;
}

/* words.c: append one segment's code points to chars (whitespace dropped unless kept) and, for
 * chrF++, its words to the word spans. */
int read_segment(worker *w, const text_src *s, size_t *nc, size_t *nw);

/* count.c */
/* sacreBLEU's CHRF._compute_f_score on one row of 3 * order counts. */
double f_score(const int64_t *st, const chrf_opts *o);
/* The row of one sentence (src[0] the hypothesis, then the references): its candidate with the
 * best f-score, the first on a tie. */
int sentence_row(worker *w, const text_src *src, size_t nseg, int64_t *row);

/* ------------------------------------------------------------------------------------------ */
/* under the GIL (args.c)                                                                      */

typedef struct {
    PyObject **held; /* one new reference per text: the str read without the GIL */
    text_src *src;
    size_t n, cap;
} texts;

void texts_clear(texts *t);
void texts_free(texts *t);
/* Hold one str (lowercased first when asked); its length, or -1 with an exception. */
int64_t texts_add(texts *t, PyObject *s, int lowercase, PyObject *str_lower);
/* Options from the arguments, each one checked. */
int parse_opts(chrf_opts *o, int char_order, int word_order, int whitespace, int eps_smoothing, double factor,
               double one_plus, PyObject *punct);
int check_threads(int threads);
/* A writable, C-contiguous, aligned buffer of `count` items of format `fmt` ('q' int64, 'd' float64). */
int out_buffer(PyObject *obj, Py_buffer *view, char fmt, Py_ssize_t count, const char *what);
void raise_error(int err);
/* n = product of a and b, or -1 with OverflowError. */
Py_ssize_t checked_mul(Py_ssize_t a, Py_ssize_t b);

/* The entry points (module.c's method table) */
PyObject *py_statistics(PyObject *module, PyObject *args); /* stats.c */
PyObject *py_sentence(PyObject *module, PyObject *args);   /* stats.c */
PyObject *py_pairwise(PyObject *module, PyObject *args);   /* pairs.c */

#endif
