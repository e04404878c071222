/*
 * bleukit.metrics.chrf._kernel: chrF / chrF++ statistics (the glue is bleukit.metrics.chrf.extract,
 * the pure-Python twin and the definition of every rule bleukit.metrics.chrf.reference).
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
 * follows csrc/count.c: the hypothesis' n-grams get ids, a reference's n-grams only look theirs
 * up (-1 when the hypothesis lacks them), and hypothesis n-grams found in no reference drop out of
 * the longer orders.
 *
 * The f-score that picks the best reference is sacreBLEU's formula with the same double
 * operations in the same order as bleukit.metrics.chrf.formula (built with -ffp-contract=off, so
 * no multiply-add is fused), taking beta ** 2 and 1 + beta ** 2 as Python computed them.
 *
 * Every argument is checked before any work. The counting runs without the GIL, on `threads`
 * threads; the calling thread, when it is the main thread, polls for signals every POLL_WORK
 * units of work, so Ctrl-C raises KeyboardInterrupt within some 10 ms and stops the other threads.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include "common/buffers.h"
#include "common/entries.h"
#include "common/hash.h"
#include "common/limits.h"
#include "common/moduledef.h"
#include "common/poll.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#ifndef _WIN32
#include <pthread.h>
#include <time.h>
#define CHRF_THREADS 1
#else
#define CHRF_THREADS 0
#endif

#define EPS 1e-16
/* Most orders (char + word): bleukit.metrics.chrf.options.MAX_ORDER is the same number. */
#define MAX_ORDER 1000
#define MAX_THREADS 256
/* Code points gathered (per thread) per release of the GIL: some 40 ms of work. */
#define BATCH_CHARS ((int64_t)1 << 22)
#define FIB_MULT 0x9E3779B97F4A7C15ULL
/* A sentence's n-grams of order n are ids of (its (n-1)-gram id, its last item's id). When the
 * hypothesis has few enough of both for their product to fit this table, the pair indexes the
 * table directly (no hashing); otherwise a hash table holds the pairs. */
#define DIRECT_SLOTS ((size_t)1 << 18)

/* ------------------------------------------------------------------------------------------ */
/* module state                                                                                */

typedef struct worker_s worker;

typedef struct {
    PyObject *str_lower;             /* str.lower, unbound: a str subclass cannot override it */
    PyObject *main_thread;           /* threading.main_thread: asked at each call (it changes after a fork) */
    worker *spare;                   /* sentence()'s worker between calls (NULL: none yet, or in use) */
} module_state;

static module_state *get_state(PyObject *module) { return (module_state *)PyModule_GetState(module); }

/* ------------------------------------------------------------------------------------------ */
/* options and the f-score                                                                     */

typedef struct {
    int char_order, word_order, order; /* order = char_order + word_order */
    int whitespace, eps_smoothing;
    double factor, one_plus; /* beta ** 2 and 1 + beta ** 2, as Python computed them */
    uint8_t punct[128];      /* ASCII characters split off the ends of words */
} chrf_opts;

/* sacreBLEU's CHRF._compute_f_score on one row of 3 * order counts. */
static double f_score(const int64_t *st, const chrf_opts *o) {
    double score = 0.0, avg_prec = 0.0, avg_rec = 0.0;
    int effective = 0;
    for (int i = 0; i < o->order; i++) {
        const int64_t n_hyp = st[3 * i], n_ref = st[3 * i + 1], n_match = st[3 * i + 2];
        const double prec = n_hyp > 0 ? (double)n_match / (double)n_hyp : EPS;
        const double rec = n_ref > 0 ? (double)n_match / (double)n_ref : EPS;
        const double denom = o->factor * prec + rec;
        score += denom > 0 ? o->one_plus * prec * rec / denom : EPS;
        if (n_hyp > 0 && n_ref > 0) {
            avg_prec += prec;
            avg_rec += rec;
            effective++;
        }
    }
    if (o->eps_smoothing) return 100.0 * score / (double)o->order;
    if (effective == 0) {
        avg_prec = avg_rec = 0.0;
    } else {
        avg_prec /= (double)effective;
        avg_rec /= (double)effective;
    }
    if (avg_prec + avg_rec != 0.0) {
        double s = o->one_plus * avg_prec * avg_rec;
        s /= o->factor * avg_prec + avg_rec;
        return 100.0 * s;
    }
    return 0.0;
}

/* ------------------------------------------------------------------------------------------ */
/* work state of one thread                                                                    */

enum { ERR_NONE = 0, ERR_NOMEM, ERR_TOO_LONG, ERR_INTERRUPTED };

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
    /* signals: only the calling thread polls; the others watch `stop` */
    shared *sh;
    int polls;
    size_t work;
    int64_t last_ms; /* when this worker last polled */
    int err;
};

struct shared_s {
    volatile int stop;      /* set when one thread fails or Ctrl-C was seen */
    PyThreadState **saved;  /* the calling thread's state while the GIL is released */
};

static int grow(worker *w, void **p, size_t *cap, size_t need, size_t elem) {
    if (need <= *cap) return 0;
    if (need > MAX_BUFFER_BYTES / elem) {
        w->err = ERR_TOO_LONG;
        return -1;
    }
    size_t c = *cap ? *cap : 256;
    while (c < need) c *= 2;
    void *q = realloc(*p, c * elem);
    if (!q) {
        w->err = ERR_NOMEM;
        return -1;
    }
    *p = q;
    *cap = c;
    return 0;
}

/* Grow several arrays that share one capacity. */
#define GROW(w, ptr, capvar, need) grow((w), (void **)&(ptr), &(capvar), (need), sizeof(*(ptr)))

static void worker_free(worker *w) {
    free(w->chars);
    free(w->seg);
    free(w->w_off);
    free(w->w_len);
    free(w->w_hash);
    free(w->wseg);
    free(w->uni);
    free(w->ids);
    free(w->hypcnt);
    free(w->tmp);
    free(w->seen);
    free(w->hkeys);
    free(w->hvals);
    free(w->cand);
    free(w->cpmap);
    free(w->direct);
    free(w->touched);
    memset(w, 0, sizeof(*w));
}

/* Take the GIL, run the signal handlers, give it back; -1 when one raised. */
static int poll_signals(PyThreadState **saved) {
    PyEval_RestoreThread(*saved);
    const int r = PyErr_CheckSignals();
    *saved = PyEval_SaveThread();
    return r;
}

/* Account for work; -1 when this call must stop (Ctrl-C seen here, or another thread failed). The
 * clock is read every POLL_SLICE units and signals are polled every POLL_INTERVAL_MS (a unit costs
 * from ~1 ns in a pass over characters to ~100 ns in a large hash table, so time, not a count). */
static int work_done(worker *w, size_t units) {
    w->work += units;
    if (w->work < POLL_SLICE) return 0;
    w->work = 0;
    if (w->sh->stop) {
        if (!w->err) w->err = ERR_INTERRUPTED;
        return -1;
    }
    if (!w->polls) return 0;
    const int64_t now = poll_clock_ms();
    if (now - w->last_ms < POLL_INTERVAL_MS) return 0;
    w->last_ms = now;
    if (poll_signals(w->sh->saved) < 0) {
        w->err = ERR_INTERRUPTED;
        w->sh->stop = 1;
        return -1;
    }
    return 0;
}

/* ------------------------------------------------------------------------------------------ */
/* text -> code points and words                                                               */

typedef struct {
    const void *data;
    int64_t len;
    int kind;
    int ascii_lower; /* str.lower() of an ASCII str: A-Z -> a-z while reading */
} text_src;

/* Split a finished word [off, off + len) by the punctuation rule and record its part(s). */
static int push_word(worker *w, int64_t off, int64_t len, size_t *nw) {
    if (GROW(w, w->w_off, w->w_off_cap, *nw + 2) < 0 || GROW(w, w->w_len, w->w_len_cap, *nw + 2) < 0 ||
        GROW(w, w->w_hash, w->w_hash_cap, *nw + 2) < 0)
        return -1;
    const cp_t *c = w->chars;
    const uint8_t *punct = w->o->punct;
    if (len > 1 && c[off + len - 1] < 128 && punct[c[off + len - 1]]) {
        w->w_off[*nw] = off;
        w->w_len[(*nw)++] = len - 1;
        w->w_off[*nw] = off + len - 1;
        w->w_len[(*nw)++] = 1;
    } else if (len > 1 && c[off] < 128 && punct[c[off]]) {
        w->w_off[*nw] = off;
        w->w_len[(*nw)++] = 1;
        w->w_off[*nw] = off + 1;
        w->w_len[(*nw)++] = len - 1;
    } else {
        w->w_off[*nw] = off;
        w->w_len[(*nw)++] = len;
    }
    return 0;
}

/* Append one segment's code points to chars (whitespace dropped unless kept) and, for chrF++,
 * its words to the word spans. */
static int read_segment(worker *w, const text_src *s, size_t *nc, size_t *nw) {
    const int keep_space = w->o->whitespace, words = w->o->word_order > 0, lower = s->ascii_lower;
    if (GROW(w, w->chars, w->chars_cap, *nc + (size_t)s->len + 1) < 0) return -1;
    cp_t *out = w->chars;
    size_t n = *nc;
    int64_t word_start = -1;
    /* one loop per str kind, so the width of a code point is not tested per character */
#define READ_TEXT(TYPE)                                                                            \
    do {                                                                                           \
        const TYPE *d = (const TYPE *)s->data;                                                     \
        for (int64_t i = 0; i < s->len; i++) {                                                     \
            cp_t c = d[i];                                                                         \
            if (lower && c - 'A' < 26u) c += 32;                                                   \
            if (Py_UNICODE_ISSPACE(c)) {                                                           \
                if (words && word_start >= 0 && push_word(w, word_start, (int64_t)n - word_start, nw) < 0) \
                    return -1;                                                                     \
                word_start = -1;                                                                   \
                if (keep_space) out[n++] = c;                                                      \
                continue;                                                                          \
            }                                                                                      \
            if (word_start < 0) word_start = (int64_t)n;                                           \
            out[n++] = c;                                                                          \
        }                                                                                          \
    } while (0)
    if (s->kind == PyUnicode_1BYTE_KIND)
        READ_TEXT(Py_UCS1);
    else if (s->kind == PyUnicode_2BYTE_KIND)
        READ_TEXT(Py_UCS2);
    else
        READ_TEXT(Py_UCS4);
#undef READ_TEXT
    if (words && word_start >= 0 && push_word(w, word_start, (int64_t)n - word_start, nw) < 0) return -1;
    *nc = n;
    return work_done(w, (size_t)s->len + 1);
}

/* ------------------------------------------------------------------------------------------ */
/* ids                                                                                         */

/* Clear the hash table for at least `entries` keys (only the slots in use are cleared). */
static int table_reset(worker *w, size_t entries) {
    size_t cap = 16;
    while (cap < 2 * entries + 2) cap *= 2;
    if (GROW(w, w->hkeys, w->hkeys_cap, cap) < 0 || GROW(w, w->hvals, w->hvals_cap, cap) < 0) return -1;
    memset(w->hkeys, 0xff, cap * sizeof(uint64_t));
    w->hmask = cap - 1;
    int bits = 0;
    while (((size_t)1 << bits) < cap) bits++;
    w->hshift = 64 - bits;
    return 0;
}

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

/* ------------------------------------------------------------------------------------------ */
/* one sentence                                                                                */

/* Orders 1..N of the items whose unigram ids are w->uni (segment s: seg[s] .. seg[s + 1], the
 * hypothesis first with ids 0..V-1, the references' ids looked up, -1 when absent). Writes, for
 * each reference r, (hyp n-grams, ref n-grams, matches) of order n at
 * cand[r * width + 3 * (col0 + n - 1)].
 *
 * ids[] holds per position the id of the n-gram starting there (order n), -1 when it cannot
 * match. A hypothesis n-gram gets an id only when both of its (n-1)-grams occur in some
 * reference (in_ref of the order before), since only then can it occur in one; a reference
 * n-gram only when both of its (n-1)-grams occur in the hypothesis. Each pass over a segment
 * computes its ids and counts them at once. */
static int count_orders(worker *w, const int64_t *seg, size_t nseg, int64_t V, int N, int col0) {
    const size_t nref = nseg - 1;
    const int width = 3 * w->o->order;
    const int64_t T = seg[nseg], L0 = seg[1] - seg[0];
    if (GROW(w, w->ids, w->ids_cap, (size_t)T + 1) < 0 || GROW(w, w->hypcnt, w->hypcnt_cap, (size_t)L0 + 2) < 0 ||
        GROW(w, w->tmp, w->tmp_cap, (size_t)L0 + 2) < 0 || GROW(w, w->seen, w->seen_cap, 2 * ((size_t)L0 + 2)) < 0 ||
        GROW(w, w->touched, w->touched_cap, (size_t)L0 + 2) < 0)
        return -1;
    if (!w->direct && !(w->direct = (int32_t *)calloc(DIRECT_SLOTS + 1, sizeof(int32_t)))) {
        w->err = ERR_NOMEM;
        return -1;
    }
    int64_t *ids = w->ids, *uni = w->uni, *hypcnt = w->hypcnt, *tmp = w->tmp, *touched = w->touched;
    /* in_ref[id + 1]: the hypothesis n-gram occurs in some reference (slot 0: the -1s, never) */
    uint8_t *in_ref = w->seen, *in_ref_before = w->seen + L0 + 2;
    int32_t *direct = w->direct;
    memcpy(ids, uni, (size_t)T * sizeof(int64_t));
    int matching = L0 > 0;
    int64_t K = V;
    for (int n = 1; n <= N; n++) {
        const int64_t hyp_positions = L0 - n + 1 > 0 ? L0 - n + 1 : 0;
        int64_t *col = w->cand + 3 * (col0 + n - 1);
        for (size_t r = 0; r < nref; r++) {
            const int64_t ref_positions = seg[r + 2] - seg[r + 1] - n + 1;
            int64_t *c = col + r * (size_t)width;
            /* sacreBLEU counts no hypothesis n-grams of an order the reference has none of */
            c[0] = ref_positions > 0 ? hyp_positions : 0;
            c[1] = ref_positions > 0 ? ref_positions : 0;
            c[2] = 0;
        }
        if (!matching || hyp_positions == 0) {
            matching = 0;
            continue;
        }
        const int64_t K_before = K;
        const int use_direct = n > 1 && (uint64_t)K_before * (uint64_t)V <= DIRECT_SLOTS;
        if (n > 1 && !use_direct && table_reset(w, (size_t)hyp_positions) < 0) return -1;
        memset(hypcnt, 0, (size_t)(hyp_positions + 1) * sizeof(int64_t));
        /* the hypothesis: ids (inserted) and their counts */
        int64_t nt = 0;
        if (n == 1) {
            for (int64_t i = 0; i < hyp_positions; i++) hypcnt[ids[i] + 1]++;
        } else {
            K = 0;
            const int64_t *last = uni + n - 1;
            for (int64_t i = 0; i < hyp_positions; i++) {
                int64_t id = -1;
                if (in_ref_before[ids[i] + 1] & in_ref_before[ids[i + 1] + 1]) {
                    if (use_direct) {
                        const int64_t slot = ids[i] * V + last[i];
                        if (!direct[slot]) {
                            direct[slot] = (int32_t)++K;
                            touched[nt++] = slot;
                        }
                        id = direct[slot] - 1;
                    } else {
                        id = key_id(w, ((uint64_t)ids[i] << 32) | (uint64_t)last[i], 1, &K);
                    }
                }
                ids[i] = id;
                hypcnt[id + 1]++;
            }
        }
        memset(tmp, 0, (size_t)(K + 1) * sizeof(int64_t));
        memset(in_ref, 0, (size_t)(K + 1));
        /* each reference: ids (looked up) and counts, then the matches summed over the ids */
        int64_t any = 0;
        for (size_t r = 0; r < nref; r++) {
            const int64_t start = seg[r + 1], positions = seg[r + 2] - start - n + 1;
            int64_t *p = ids + start;
            if (n == 1) {
                for (int64_t i = 0; i < positions; i++) tmp[p[i] + 1]++;
            } else if (use_direct) {
                const int64_t *last = uni + start + n - 1;
                /* p[i + 1] >= 0 means the (n-1)-gram after i is the hypothesis', so last[i] is
                 * too. Slot DIRECT_SLOTS stays 0 (the table has one spare): "none", no branch. */
                for (int64_t i = 0; i < positions; i++) {
                    const int64_t slot = (p[i] | p[i + 1]) >= 0 ? p[i] * V + last[i] : (int64_t)DIRECT_SLOTS;
                    p[i] = (int64_t)direct[slot] - 1;
                    tmp[p[i] + 1]++;
                }
            } else {
                const int64_t *last = uni + start + n - 1;
                for (int64_t i = 0; i < positions; i++) {
                    p[i] = (p[i] >= 0 && p[i + 1] >= 0)
                               ? key_id(w, ((uint64_t)p[i] << 32) | (uint64_t)last[i], 0, &K)
                               : -1;
                    tmp[p[i] + 1]++;
                }
            }
            int64_t matches = 0;
            for (int64_t x = 1; x <= K; x++) {
                const int64_t c = tmp[x], h = hypcnt[x];
                matches += c < h ? c : h;
                in_ref[x] |= c != 0;
                tmp[x] = 0;
            }
            tmp[0] = 0;
            col[r * (size_t)width + 2] = matches;
            any += matches;
        }
        for (int64_t t = 0; t < nt; t++) direct[touched[t]] = 0;
        if (!any) matching = 0; /* nothing matched: no longer n-gram can */
        uint8_t *swap = in_ref;
        in_ref = in_ref_before;
        in_ref_before = swap;
        if (work_done(w, (size_t)T) < 0) return -1;
    }
    return 0;
}

/* The candidate rows of one sentence (src[0] the hypothesis, then nref references) in w->cand. */
static int sentence_rows(worker *w, const text_src *src, size_t nseg) {
    const chrf_opts *o = w->o;
    const size_t nref = nseg - 1, width = 3 * (size_t)o->order;
    if (GROW(w, w->cand, w->cand_cap, nref * width) < 0 || GROW(w, w->seg, w->seg_cap, nseg + 1) < 0 ||
        GROW(w, w->wseg, w->wseg_cap, nseg + 1) < 0)
        return -1;
    size_t nc = 0, nw = 0;
    for (size_t s = 0; s < nseg; s++) {
        w->seg[s] = (int64_t)nc;
        w->wseg[s] = (int64_t)nw;
        if (read_segment(w, &src[s], &nc, &nw) < 0) return -1;
    }
    w->seg[nseg] = (int64_t)nc;
    w->wseg[nseg] = (int64_t)nw;
    if (GROW(w, w->uni, w->uni_cap, (nc > nw ? nc : nw) + 1) < 0) return -1;

    /* characters: a code point is its own key */
    const int64_t L0 = w->seg[1];
    if (L0 > INT32_MAX) {
        w->err = ERR_TOO_LONG;
        return -1;
    }
    if (!w->cpmap && !(w->cpmap = (int32_t *)calloc(0x110000, sizeof(int32_t)))) {
        w->err = ERR_NOMEM;
        return -1;
    }
    int32_t *cpmap = w->cpmap;
    const cp_t *chars = w->chars;
    int64_t V = 0;
    for (int64_t t = 0; t < L0; t++) {
        if (!cpmap[chars[t]]) cpmap[chars[t]] = (int32_t)++V;
        w->uni[t] = cpmap[chars[t]] - 1;
    }
    for (size_t t = (size_t)L0; t < nc; t++) w->uni[t] = (int64_t)cpmap[chars[t]] - 1;
    for (int64_t t = 0; t < L0; t++) cpmap[chars[t]] = 0; /* cleared for the next sentence */
    if (count_orders(w, w->seg, nseg, V, o->char_order, 0) < 0) return -1;

    if (o->word_order > 0) {
        const int64_t W0 = w->wseg[1];
        for (size_t t = 0; t < nw; t++) { /* FNV-1a over the code points, then mixed */
            uint64_t h = HASH_SEED;
            const cp_t *c = w->chars + w->w_off[t];
            for (int64_t i = 0; i < w->w_len[t]; i++) h = (h ^ c[i]) * HASH_PRIME;
            w->w_hash[t] = finish_hash(h, (size_t)w->w_len[t]);
        }
        V = 0;
        if (table_reset(w, (size_t)W0) < 0) return -1;
        for (size_t t = 0; t < nw; t++) w->uni[t] = word_id(w, (int64_t)t, (int64_t)t < W0, &V);
        if (count_orders(w, w->wseg, nseg, V, o->word_order, o->char_order) < 0) return -1;
    }
    return 0;
}

/* The row of one sentence: its candidate with the best f-score, the first on a tie. */
static int sentence_row(worker *w, const text_src *src, size_t nseg, int64_t *row) {
    if (sentence_rows(w, src, nseg) < 0) return -1;
    const size_t width = 3 * (size_t)w->o->order;
    size_t best = 0;
    if (nseg > 2) {
        double best_f = -1.0;
        for (size_t r = 0; r + 1 < nseg; r++) {
            const double f = f_score(w->cand + r * width, w->o);
            if (f > best_f) {
                best_f = f;
                best = r;
            }
        }
    }
    memcpy(row, w->cand + best * width, width * sizeof(int64_t));
    return 0;
}

/* ------------------------------------------------------------------------------------------ */
/* threads                                                                                     */

typedef void (*range_fn)(void *job, worker *w, int64_t lo, int64_t hi);

typedef struct {
    range_fn fn;
    void *job;
    worker *w;
    int64_t lo, hi;
    volatile int done;
} part;

#if CHRF_THREADS
static void *run_part(void *arg) {
    part *p = (part *)arg;
    p->fn(p->job, p->w, p->lo, p->hi);
    p->done = 1;
    return NULL;
}
#endif

/* Run fn over [0, n) split at `bounds` (threads + 1 entries) on `threads` threads, the last part
 * on this thread; the others are waited for while this thread keeps polling for signals. */
static void run_parts(range_fn fn, void *job, worker *ws, const int64_t *bounds, int threads) {
#if CHRF_THREADS
    part parts[MAX_THREADS];
    pthread_t tid[MAX_THREADS];
    int created[MAX_THREADS];
    for (int t = 0; t < threads; t++) {
        parts[t].fn = fn;
        parts[t].job = job;
        parts[t].w = &ws[t];
        parts[t].lo = bounds[t];
        parts[t].hi = bounds[t + 1];
        parts[t].done = 0;
        created[t] = 0;
    }
    for (int t = 0; t + 1 < threads; t++) {
        created[t] = pthread_create(&tid[t], NULL, run_part, &parts[t]) == 0;
        if (!created[t]) { /* could not start one: its part runs here */
            fn(job, &ws[threads - 1], parts[t].lo, parts[t].hi);
            parts[t].done = 1;
        }
    }
    worker *self = &ws[threads - 1];
    fn(job, self, parts[threads - 1].lo, parts[threads - 1].hi);
    for (int t = 0; t + 1 < threads; t++) {
        while (created[t] && !parts[t].done) {
            const struct timespec nap = {0, 2000000}; /* 2 ms */
            nanosleep(&nap, NULL);
            if (self->polls && !self->sh->stop && poll_signals(self->sh->saved) < 0) {
                self->err = ERR_INTERRUPTED;
                self->sh->stop = 1;
            }
        }
        if (created[t]) pthread_join(tid[t], NULL);
    }
#else
    for (int t = 0; t < threads; t++) fn(job, &ws[threads - 1], bounds[t], bounds[t + 1]);
#endif
}

/* Split [0, n) into `threads` parts of about equal weight (cum[i]: weight of items before i). */
static void split_weights(const int64_t *cum, int64_t n, int threads, int64_t *bounds) {
    bounds[0] = 0;
    int64_t i = 0;
    for (int t = 1; t < threads; t++) {
        const int64_t goal = cum[n] / threads * t + cum[n] % threads * t / threads;
        while (i < n && cum[i] < goal) i++;
        bounds[t] = i;
    }
    bounds[threads] = n;
}

/* ------------------------------------------------------------------------------------------ */
/* argument checks and gathering (under the GIL)                                               */

typedef struct {
    PyObject **held; /* one new reference per text: the str read without the GIL */
    text_src *src;
    size_t n, cap;
} texts;

static void texts_clear(texts *t) {
    for (size_t i = 0; i < t->n; i++) Py_DECREF(t->held[i]);
    t->n = 0;
}

static void texts_free(texts *t) {
    texts_clear(t);
    PyMem_Free(t->held);
    PyMem_Free(t->src);
    memset(t, 0, sizeof(*t));
}

static int texts_reserve(texts *t, size_t need) {
    if (need <= t->cap) return 0;
    size_t c = t->cap ? t->cap * 2 : 64;
    while (c < need) c *= 2;
    if (c > (size_t)PY_SSIZE_T_MAX / sizeof(text_src)) {
        PyErr_NoMemory();
        return -1;
    }
    PyObject **h = (PyObject **)PyMem_Realloc(t->held, c * sizeof(PyObject *));
    if (!h) {
        PyErr_NoMemory();
        return -1;
    }
    t->held = h;
    text_src *s = (text_src *)PyMem_Realloc(t->src, c * sizeof(text_src));
    if (!s) {
        PyErr_NoMemory();
        return -1;
    }
    t->src = s;
    t->cap = c;
    return 0;
}

/* Hold one str (lowercased first when asked); its length, or -1 with an exception. */
static int64_t texts_add(texts *t, PyObject *s, int lowercase, PyObject *str_lower) {
    if (texts_reserve(t, t->n + 1) < 0) return -1;
#if PY_VERSION_HEX < 0x030C0000
    if (PyUnicode_READY(s) < 0) return -1;
#endif
    int ascii_lower = 0;
    if (lowercase && PyUnicode_IS_ASCII(s)) {
        ascii_lower = 1;
        Py_INCREF(s);
    } else if (lowercase) {
        s = PyObject_CallOneArg(str_lower, s);
        if (!s) return -1;
        if (!PyUnicode_CheckExact(s)) {
            PyErr_SetString(PyExc_TypeError, "str.lower() did not return a str");
            Py_DECREF(s);
            return -1;
        }
#if PY_VERSION_HEX < 0x030C0000
        if (PyUnicode_READY(s) < 0) {
            Py_DECREF(s);
            return -1;
        }
#endif
    } else {
        Py_INCREF(s);
    }
    text_src *src = &t->src[t->n];
    src->data = PyUnicode_DATA(s);
    src->len = (int64_t)PyUnicode_GET_LENGTH(s);
    src->kind = PyUnicode_KIND(s);
    src->ascii_lower = ascii_lower;
    t->held[t->n++] = s;
    return src->len;
}

/* Options from the arguments, each one checked. */
static int parse_opts(chrf_opts *o, int char_order, int word_order, int whitespace, int eps_smoothing,
                      double factor, double one_plus, PyObject *punct) {
    memset(o, 0, sizeof(*o));
    if (char_order < 1 || char_order > MAX_ORDER || word_order < 0 || word_order > MAX_ORDER ||
        char_order + word_order > MAX_ORDER) {
        PyErr_Format(PyExc_ValueError,
                     "char_order must be in [1, %d] and word_order in [0, %d] (at most %d together), got %d and %d",
                     MAX_ORDER, MAX_ORDER, MAX_ORDER, char_order, word_order);
        return -1;
    }
    if (!isfinite(factor) || !isfinite(one_plus) || factor < 0 || one_plus < 1) {
        PyErr_SetString(PyExc_ValueError, "factor (beta ** 2) and one_plus (1 + beta ** 2) must be finite, >= 0 and >= 1");
        return -1;
    }
    if (!PyUnicode_Check(punct)) {
        PyErr_Format(PyExc_TypeError, "punctuation must be a str, got %.80s", Py_TYPE(punct)->tp_name);
        return -1;
    }
#if PY_VERSION_HEX < 0x030C0000
    if (PyUnicode_READY(punct) < 0) return -1;
#endif
    const Py_ssize_t np = PyUnicode_GET_LENGTH(punct);
    for (Py_ssize_t i = 0; i < np; i++) {
        const Py_UCS4 c = PyUnicode_READ_CHAR(punct, i);
        if (c >= 128 || Py_UNICODE_ISSPACE(c)) {
            PyErr_SetString(PyExc_ValueError, "punctuation must hold ASCII characters other than whitespace");
            return -1;
        }
        o->punct[c] = 1;
    }
    o->char_order = char_order;
    o->word_order = word_order;
    o->order = char_order + word_order;
    o->whitespace = whitespace != 0;
    o->eps_smoothing = eps_smoothing != 0;
    o->factor = factor;
    o->one_plus = one_plus;
    return 0;
}

static int check_threads(int threads) {
    if (threads < 1 || threads > MAX_THREADS) {
        PyErr_Format(PyExc_ValueError, "threads must be between 1 and %d, got %d", MAX_THREADS, threads);
        return -1;
    }
    return 0;
}

/* A writable, C-contiguous, aligned buffer of `count` items of format `fmt` ('q' int64, 'd' float64). */
static int out_buffer(PyObject *obj, Py_buffer *view, char fmt, Py_ssize_t count, const char *what) {
    if (PyObject_GetBuffer(obj, view, PyBUF_C_CONTIGUOUS | PyBUF_FORMAT | PyBUF_WRITABLE) < 0) return -1;
    const char *f = view->format ? view->format : "B";
    if (*f == '@' || *f == '=' || *f == '<') f++;
    const uint16_t probe = 1;
    const int little = *(const uint8_t *)&probe == 1;
    const int ok_fmt = fmt == 'd' ? (f[0] == 'd' && f[1] == '\0') : ((f[0] == 'q' || f[0] == 'l') && f[1] == '\0');
    if (view->itemsize != 8 || !ok_fmt || (view->format && view->format[0] == '<' && !little) ||
        ((uintptr_t)view->buf & 7u) != 0) {
        PyErr_Format(PyExc_TypeError, "%s must be a writable, C-contiguous, aligned %s array", what,
                     fmt == 'd' ? "float64" : "int64");
        PyBuffer_Release(view);
        view->obj = NULL;
        return -1;
    }
    if (count < 0 || view->len / 8 != count || view->len % 8 != 0) {
        PyErr_Format(PyExc_ValueError, "%s must hold %zd values, it holds %zd", what, count, view->len / 8);
        PyBuffer_Release(view);
        view->obj = NULL;
        return -1;
    }
    return 0;
}

static void release(Py_buffer *view) {
    if (view->obj) PyBuffer_Release(view);
    view->obj = NULL;
}

static void raise_error(int err) {
    if (PyErr_Occurred()) return; /* the signal handler's exception */
    if (err == ERR_TOO_LONG)
        PyErr_SetString(PyExc_OverflowError, "a sentence is too long for the native chrF kernel");
    else if (err == ERR_INTERRUPTED)
        PyErr_SetNone(PyExc_KeyboardInterrupt);
    else
        PyErr_NoMemory();
}

/* n = product of a and b, or -1 with OverflowError. */
static Py_ssize_t checked_mul(Py_ssize_t a, Py_ssize_t b) {
    if (a < 0 || b < 0 || (a > 0 && b > PY_SSIZE_T_MAX / a)) {
        PyErr_SetString(PyExc_OverflowError, "output size overflows");
        return -1;
    }
    return a * b;
}

/* ------------------------------------------------------------------------------------------ */
/* statistics                                                                                  */

typedef struct {
    const text_src *src;
    const int64_t *first; /* per sentence of the batch: its first text; one extra entry */
    int64_t *rows;        /* the batch's first row */
    size_t width;
} stats_job;

static void stats_range(void *arg, worker *w, int64_t lo, int64_t hi) {
    const stats_job *j = (const stats_job *)arg;
    for (int64_t s = lo; s < hi && !w->err; s++) {
        if (w->sh->stop) {
            w->err = ERR_INTERRUPTED;
            break;
        }
        const int64_t a = j->first[s], b = j->first[s + 1];
        if (sentence_row(w, j->src + a, (size_t)(b - a), j->rows + (size_t)s * j->width) < 0) {
            w->sh->stop = 1;
            break;
        }
    }
}

static PyObject *py_statistics(PyObject *module, PyObject *args) {
    PyObject *hyps_in, *refs_in, *punct, *out_in, *lc, *ws_in, *eps_in;
    int char_order, word_order, threads;
    double factor, one_plus;
    if (!PyArg_ParseTuple(args, "OOiiO!O!O!ddOOi", &hyps_in, &refs_in, &char_order, &word_order, &PyBool_Type, &lc,
                          &PyBool_Type, &ws_in, &PyBool_Type, &eps_in, &factor, &one_plus, &punct, &out_in, &threads))
        return NULL;
    module_state *st = get_state(module);
    const int lowercase = lc == Py_True;
    PyObject *hyps = NULL, *refs = NULL, *result = NULL;
    Py_buffer out = {0};
    texts tx = {0};
    int64_t *first = NULL, *cum = NULL;
    worker *ws = NULL;
    int n_workers = 0;
    chrf_opts o;
    if (parse_opts(&o, char_order, word_order, ws_in == Py_True, eps_in == Py_True, factor, one_plus, punct) < 0 ||
        check_threads(threads) < 0)
        return NULL;
    if (PyUnicode_Check(hyps_in) || PyBytes_Check(hyps_in) || PyUnicode_Check(refs_in) || PyBytes_Check(refs_in)) {
        PyErr_SetString(PyExc_TypeError, "hypotheses and references must be sequences (of str, of lists of str)");
        return NULL;
    }
    /* private copies of the outer sequences, and below of each reference list: nothing another
     * thread does to the caller's lists can move an item under us */
    hyps = PySequence_List(hyps_in);
    if (!hyps) goto done;
    refs = PySequence_List(refs_in);
    if (!refs) goto done;
    const Py_ssize_t n = PyList_GET_SIZE(hyps);
    if (PyList_GET_SIZE(refs) != n) {
        PyErr_Format(PyExc_ValueError, "got %zd hypotheses but %zd reference lists", n, PyList_GET_SIZE(refs));
        goto done;
    }
    const size_t width = 3 * (size_t)o.order;
    {
        const Py_ssize_t count = checked_mul(n, (Py_ssize_t)width);
        if (count < 0 || out_buffer(out_in, &out, 'q', count, "out") < 0) goto done;
    }
    /* every item checked before any work; each reference list replaced by a tuple copy */
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *h = PyList_GET_ITEM(hyps, i), *r = PyList_GET_ITEM(refs, i);
        if (!PyUnicode_Check(h)) {
            PyErr_Format(PyExc_TypeError, "hypotheses[%zd] must be a str, got %.80s", i, Py_TYPE(h)->tp_name);
            goto done;
        }
        if (!PyList_Check(r) && !PyTuple_Check(r)) {
            PyErr_Format(PyExc_TypeError, "references[%zd] must be a list of str, got %.80s", i, Py_TYPE(r)->tp_name);
            goto done;
        }
        PyObject *copy = PySequence_Tuple(r);
        if (!copy) goto done;
        PyList_SET_ITEM(refs, i, copy); /* the list held r; our copy list owned that reference */
        Py_DECREF(r);
        const Py_ssize_t nr = PyTuple_GET_SIZE(copy);
        int64_t chars = PyUnicode_GET_LENGTH(h);
        for (Py_ssize_t k = 0; k < nr; k++) {
            PyObject *x = PyTuple_GET_ITEM(copy, k);
            if (!PyUnicode_Check(x)) {
                PyErr_Format(PyExc_TypeError, "references[%zd][%zd] must be a str, got %.80s", i, k, Py_TYPE(x)->tp_name);
                goto done;
            }
            chars += PyUnicode_GET_LENGTH(x); /* each below 2^62: no overflow before the check */
            if (chars > MAX_SENTENCE_CHARS) break;
        }
        if (nr < 1) {
            PyErr_Format(PyExc_ValueError, "references[%zd] is empty", i);
            goto done;
        }
        if (PyUnicode_GET_LENGTH(h) > INT32_MAX || chars > MAX_SENTENCE_CHARS) {
            PyErr_Format(PyExc_OverflowError, "sentence %zd is too long for the native chrF kernel", i);
            goto done;
        }
    }
    if (threads > n) threads = n > 0 ? (int)n : 1;
    first = (int64_t *)PyMem_Malloc(((size_t)n + 1) * sizeof(int64_t));
    cum = (int64_t *)PyMem_Malloc(((size_t)n + 1) * sizeof(int64_t));
    ws = (worker *)PyMem_Calloc((size_t)threads, sizeof(worker));
    if (!first || !cum || !ws) {
        PyErr_NoMemory();
        goto done;
    }
    n_workers = threads;
    shared sh = {0, NULL};
    PyThreadState *saved = NULL;
    sh.saved = &saved;
    for (int t = 0; t < n_workers; t++) {
        ws[t].o = &o;
        ws[t].sh = &sh;
    }
    ws[n_workers - 1].polls = poll_here(st->main_thread);
    if (ws[n_workers - 1].polls < 0) goto done;
    ws[n_workers - 1].last_ms = poll_clock_ms();
    int64_t *rows = (int64_t *)out.buf;
    const int64_t batch_chars = BATCH_CHARS * threads;
    for (Py_ssize_t i = 0; i < n;) {
        const Py_ssize_t start = i;
        int64_t chars = 0;
        texts_clear(&tx);
        while (i < n && (i == start || chars < batch_chars)) {
            PyObject *r = PyList_GET_ITEM(refs, i);
            first[i - start] = (int64_t)tx.n;
            cum[i - start] = chars;
            int64_t len = texts_add(&tx, PyList_GET_ITEM(hyps, i), lowercase, st->str_lower);
            if (len < 0) goto done;
            chars += len + 1;
            for (Py_ssize_t k = 0; k < PyTuple_GET_SIZE(r); k++) {
                len = texts_add(&tx, PyTuple_GET_ITEM(r, k), lowercase, st->str_lower);
                if (len < 0) goto done;
                chars += len + 1;
            }
            i++;
        }
        const int64_t count = i - start;
        first[count] = (int64_t)tx.n;
        cum[count] = chars;
        int64_t bounds[MAX_THREADS + 1];
        const int parts = count < threads ? (int)count : threads;
        split_weights(cum, count, parts, bounds);
        stats_job job = {tx.src, first, rows + (size_t)start * width, width};
        saved = PyEval_SaveThread();
        run_parts(stats_range, &job, ws + (n_workers - parts), bounds, parts);
        PyEval_RestoreThread(saved);
        for (int t = 0; t < n_workers; t++)
            if (ws[t].err && ws[t].err != ERR_INTERRUPTED) {
                raise_error(ws[t].err);
                goto done;
            }
        for (int t = 0; t < n_workers; t++)
            if (ws[t].err) {
                raise_error(ws[t].err);
                goto done;
            }
        if (PyErr_CheckSignals() < 0) goto done;
    }
    result = Py_None;
    Py_INCREF(result);
done:
    for (int t = 0; t < n_workers; t++) worker_free(&ws[t]);
    PyMem_Free(ws);
    texts_free(&tx);
    PyMem_Free(first);
    PyMem_Free(cum);
    Py_XDECREF(hyps);
    Py_XDECREF(refs);
    release(&out);
    return result;
}

/* ------------------------------------------------------------------------------------------ */
/* pairwise                                                                                    */

typedef struct {
    int64_t *d;
    size_t n, cap;
} vec;

static inline int vec_push(worker *w, vec *v, int64_t x) {
    if (v->n == v->cap && GROW(w, v->d, v->cap, v->n + 1) < 0) return -1;
    v->d[v->n++] = x;
    return 0;
}

/* Everything the pair loop reads: per-sentence n-gram totals, each hypothesis' distinct n-grams
 * (CSR by hypothesis) and, per n-gram, the references holding it (CSR by n-gram id). */
typedef struct {
    const chrf_opts *o;
    int64_t n_hyp, n_ref, ref_base; /* reference j is sentence ref_base + j */
    int64_t *tot;                   /* sentence s, order k: tot[s * order + k] */
    int64_t *hyp_ptr, *h_gid, *h_ord, *h_cnt;
    int64_t *post_ptr, *post_ref, *post_cnt;
    double *scores; /* N x M, or NULL */
    int64_t *rows;  /* N x M x 3 order, or NULL */
} pair_job;

static void pair_job_free(pair_job *j) {
    free(j->tot);
    free(j->hyp_ptr);
    free(j->h_gid);
    free(j->h_ord);
    free(j->h_cnt);
    free(j->post_ptr);
    free(j->post_ref);
    free(j->post_cnt);
}

static void pair_range(void *arg, worker *w, int64_t lo, int64_t hi) {
    const pair_job *j = (const pair_job *)arg;
    const int K = j->o->order;
    const int64_t M = j->n_ref;
    if (GROW(w, w->hypcnt, w->hypcnt_cap, (size_t)M * (size_t)K + 1) < 0 ||
        GROW(w, w->cand, w->cand_cap, 3 * (size_t)K) < 0) {
        w->sh->stop = 1;
        return;
    }
    int64_t *matches = w->hypcnt, *row = w->cand;
    for (int64_t i = lo; i < hi; i++) {
        if (w->sh->stop) {
            if (!w->err) w->err = ERR_INTERRUPTED;
            return;
        }
        memset(matches, 0, (size_t)M * (size_t)K * sizeof(int64_t));
        const int64_t e0 = j->hyp_ptr[i], e1 = j->hyp_ptr[i + 1];
        int64_t walked = 0;
        for (int64_t e = e0; e < e1; e++) {
            const int64_t g = j->h_gid[e], h = j->h_cnt[e];
            int64_t *col = matches + j->h_ord[e];
            const int64_t p1 = j->post_ptr[g + 1];
            for (int64_t p = j->post_ptr[g]; p < p1; p++) {
                const int64_t r = j->post_cnt[p];
                col[j->post_ref[p] * K] += r < h ? r : h;
            }
            walked += p1 - j->post_ptr[g];
        }
        const int64_t *ht = j->tot + i * K;
        for (int64_t r = 0; r < M; r++) {
            const int64_t *rt = j->tot + (j->ref_base + r) * K, *mm = matches + r * K;
            for (int k = 0; k < K; k++) {
                row[3 * k] = rt[k] > 0 ? ht[k] : 0;
                row[3 * k + 1] = rt[k];
                row[3 * k + 2] = mm[k];
            }
            if (j->scores) j->scores[i * M + r] = f_score(row, j->o);
            if (j->rows) memcpy(j->rows + (i * M + r) * 3 * K, row, 3 * (size_t)K * sizeof(int64_t));
        }
        if (work_done(w, (size_t)(e1 - e0 + walked) + (size_t)M * (size_t)K) < 0) return;
    }
}

/* One kind of item (characters or words) of all sentences: n-gram ids of orders 1..N, each
 * sentence's distinct ones appended to the entry lists (sentence, global id, order, count). */
static int pair_kind(worker *w, const int64_t *seg, int64_t S, int64_t total, int words, int N, int col0,
                     int64_t *gid_base, int64_t *tot, vec *e_sent, vec *e_gid, vec *e_ord, vec *e_cnt) {
    const int K = w->o->order;
    int64_t V = 0;
    if (GROW(w, w->uni, w->uni_cap, (size_t)total + 1) < 0 || GROW(w, w->ids, w->ids_cap, (size_t)total + 1) < 0 ||
        GROW(w, w->hypcnt, w->hypcnt_cap, (size_t)total + 1) < 0 || GROW(w, w->tmp, w->tmp_cap, (size_t)total + 1) < 0)
        return -1;
    if (table_reset(w, (size_t)total) < 0) return -1;
    for (int64_t t = 0; t < total; t++)
        w->uni[t] = words ? word_id(w, t, 1, &V) : key_id(w, (uint64_t)w->chars[t], 1, &V);
    int64_t *ids = w->ids, *uni = w->uni, *cnt = w->hypcnt, *touched = w->tmp;
    memcpy(ids, uni, (size_t)total * sizeof(int64_t));
    for (int n = 1; n <= N; n++) {
        int64_t G = V;
        if (n > 1) {
            G = 0;
            if (table_reset(w, (size_t)total) < 0) return -1;
            for (int64_t s = 0; s < S; s++) {
                const int64_t start = seg[s], positions = seg[s + 1] - start - n + 1;
                for (int64_t i = 0; i < positions; i++)
                    ids[start + i] = key_id(w, ((uint64_t)ids[start + i] << 32) | (uint64_t)uni[start + i + n - 1], 1, &G);
            }
        }
        memset(cnt, 0, (size_t)G * sizeof(int64_t));
        for (int64_t s = 0; s < S; s++) {
            const int64_t start = seg[s], positions = seg[s + 1] - start - n + 1;
            tot[s * K + col0 + n - 1] = positions > 0 ? positions : 0;
            int64_t nt = 0;
            for (int64_t i = 0; i < positions; i++) {
                const int64_t g = ids[start + i];
                if (!cnt[g]++) touched[nt++] = g;
            }
            for (int64_t k = 0; k < nt; k++) {
                const int64_t g = touched[k];
                if (vec_push(w, e_sent, s) < 0 || vec_push(w, e_gid, *gid_base + g) < 0 ||
                    vec_push(w, e_ord, col0 + n - 1) < 0 || vec_push(w, e_cnt, cnt[g]) < 0)
                    return -1;
                cnt[g] = 0;
            }
        }
        *gid_base += G;
        if (work_done(w, (size_t)total) < 0) return -1;
    }
    return 0;
}

/* Counting sort of entries by key (keys in [0, n_keys)): ptr (n_keys + 1) and the order. */
static int csr(worker *w, const int64_t *key, size_t n, int64_t n_keys, int64_t **ptr_out, int64_t **order_out) {
    int64_t *ptr = (int64_t *)calloc((size_t)n_keys + 1, sizeof(int64_t));
    int64_t *order = (int64_t *)malloc((n ? n : 1) * sizeof(int64_t));
    int64_t *fill = (int64_t *)malloc(((size_t)n_keys + 1) * sizeof(int64_t));
    if (!ptr || !order || !fill) {
        free(ptr);
        free(order);
        free(fill);
        w->err = ERR_NOMEM;
        return -1;
    }
    for (size_t e = 0; e < n; e++) ptr[key[e] + 1]++;
    for (int64_t k = 0; k < n_keys; k++) ptr[k + 1] += ptr[k];
    memcpy(fill, ptr, ((size_t)n_keys + 1) * sizeof(int64_t));
    for (size_t e = 0; e < n; e++) order[fill[key[e]]++] = (int64_t)e;
    free(fill);
    *ptr_out = ptr;
    *order_out = order;
    return 0;
}

/* Build the pair job's tables from the texts (hypotheses 0..N-1, then references unless same). */
static int pair_tables(worker *w, const text_src *src, int64_t S, pair_job *j) {
    const chrf_opts *o = w->o;
    const int K = o->order;
    vec e_sent = {0}, e_gid = {0}, e_ord = {0}, e_cnt = {0};
    int64_t *order = NULL, *key = NULL;
    int rc = -1;
    if (GROW(w, w->seg, w->seg_cap, (size_t)S + 1) < 0 || GROW(w, w->wseg, w->wseg_cap, (size_t)S + 1) < 0) goto out;
    size_t nc = 0, nw = 0;
    for (int64_t s = 0; s < S; s++) {
        w->seg[s] = (int64_t)nc;
        w->wseg[s] = (int64_t)nw;
        if (read_segment(w, &src[s], &nc, &nw) < 0) goto out;
    }
    w->seg[S] = (int64_t)nc;
    w->wseg[S] = (int64_t)nw;
    if (nc > INT32_MAX || nw > INT32_MAX) { /* ids are packed two to a 64-bit key */
        w->err = ERR_TOO_LONG;
        goto out;
    }
    if (nw) {
        if (GROW(w, w->w_hash, w->w_hash_cap, nw) < 0) goto out;
        for (size_t t = 0; t < nw; t++) {
            uint64_t h = HASH_SEED;
            const cp_t *c = w->chars + w->w_off[t];
            for (int64_t i = 0; i < w->w_len[t]; i++) h = (h ^ c[i]) * HASH_PRIME;
            w->w_hash[t] = finish_hash(h, (size_t)w->w_len[t]);
        }
    }
    j->tot = (int64_t *)malloc(((size_t)S * (size_t)K + 1) * sizeof(int64_t));
    if (!j->tot) {
        w->err = ERR_NOMEM;
        goto out;
    }
    int64_t G = 0;
    if (pair_kind(w, w->seg, S, (int64_t)nc, 0, o->char_order, 0, &G, j->tot, &e_sent, &e_gid, &e_ord, &e_cnt) < 0)
        goto out;
    if (o->word_order > 0 && pair_kind(w, w->wseg, S, (int64_t)nw, 1, o->word_order, o->char_order, &G, j->tot,
                                       &e_sent, &e_gid, &e_ord, &e_cnt) < 0)
        goto out;
    const size_t E = e_sent.n;
    /* hypotheses: entries of sentences 0..N-1 by sentence (entries come sentence-ordered within
     * each order, so a stable counting sort groups them) */
    size_t EH = 0;
    for (size_t e = 0; e < E; e++) EH += e_sent.d[e] < j->n_hyp;
    key = (int64_t *)malloc((E ? E : 1) * sizeof(int64_t));
    j->h_gid = (int64_t *)malloc((EH ? EH : 1) * sizeof(int64_t));
    j->h_ord = (int64_t *)malloc((EH ? EH : 1) * sizeof(int64_t));
    j->h_cnt = (int64_t *)malloc((EH ? EH : 1) * sizeof(int64_t));
    if (!key || !j->h_gid || !j->h_ord || !j->h_cnt) {
        w->err = ERR_NOMEM;
        goto out;
    }
    {
        size_t k = 0;
        for (size_t e = 0; e < E; e++)
            if (e_sent.d[e] < j->n_hyp) key[k++] = e_sent.d[e];
        if (csr(w, key, EH, j->n_hyp, &j->hyp_ptr, &order) < 0) goto out;
        /* order indexes the hypothesis entries in their original sequence: map back */
        size_t m = 0;
        int64_t *which = key; /* reuse: which[k] = entry index of the k-th hypothesis entry */
        for (size_t e = 0; e < E; e++)
            if (e_sent.d[e] < j->n_hyp) which[m++] = (int64_t)e;
        for (size_t q = 0; q < EH; q++) {
            const int64_t e = which[order[q]];
            j->h_gid[q] = e_gid.d[e];
            j->h_ord[q] = e_ord.d[e];
            j->h_cnt[q] = e_cnt.d[e];
        }
        free(order);
        order = NULL;
    }
    /* references: entries of sentences ref_base .. ref_base + M - 1 by n-gram id */
    {
        size_t ER = 0;
        for (size_t e = 0; e < E; e++) {
            const int64_t s = e_sent.d[e];
            if (s >= j->ref_base && s < j->ref_base + j->n_ref) key[ER++] = (int64_t)e;
        }
        int64_t *gkey = (int64_t *)malloc((ER ? ER : 1) * sizeof(int64_t));
        j->post_ref = (int64_t *)malloc((ER ? ER : 1) * sizeof(int64_t));
        j->post_cnt = (int64_t *)malloc((ER ? ER : 1) * sizeof(int64_t));
        if (!gkey || !j->post_ref || !j->post_cnt) {
            free(gkey);
            w->err = ERR_NOMEM;
            goto out;
        }
        for (size_t q = 0; q < ER; q++) gkey[q] = e_gid.d[key[q]];
        const int r = csr(w, gkey, ER, G, &j->post_ptr, &order);
        free(gkey);
        if (r < 0) goto out;
        for (size_t q = 0; q < ER; q++) {
            const int64_t e = key[order[q]];
            j->post_ref[q] = e_sent.d[e] - j->ref_base;
            j->post_cnt[q] = e_cnt.d[e];
        }
    }
    rc = 0;
out:
    free(order);
    free(key);
    free(e_sent.d);
    free(e_gid.d);
    free(e_ord.d);
    free(e_cnt.d);
    return rc;
}

static PyObject *py_pairwise(PyObject *module, PyObject *args) {
    PyObject *hyps_in, *refs_in, *punct, *scores_in, *rows_in, *lc, *ws_in, *eps_in;
    int char_order, word_order, threads;
    double factor, one_plus;
    if (!PyArg_ParseTuple(args, "OOiiO!O!O!ddOOOi", &hyps_in, &refs_in, &char_order, &word_order, &PyBool_Type, &lc,
                          &PyBool_Type, &ws_in, &PyBool_Type, &eps_in, &factor, &one_plus, &punct, &scores_in,
                          &rows_in, &threads))
        return NULL;
    module_state *st = get_state(module);
    chrf_opts o;
    if (parse_opts(&o, char_order, word_order, ws_in == Py_True, eps_in == Py_True, factor, one_plus, punct) < 0 ||
        check_threads(threads) < 0)
        return NULL;
    if (PyUnicode_Check(hyps_in) || PyBytes_Check(hyps_in) || PyUnicode_Check(refs_in) || PyBytes_Check(refs_in)) {
        PyErr_SetString(PyExc_TypeError, "hypotheses and references must be sequences of str");
        return NULL;
    }
    const int same = hyps_in == refs_in;
    PyObject *hyps = NULL, *refs = NULL, *result = NULL;
    Py_buffer scores = {0}, rows = {0};
    texts tx = {0};
    worker *ws = NULL;
    int64_t *cum = NULL;
    int n_workers = 0;
    pair_job job;
    memset(&job, 0, sizeof(job));
    hyps = PySequence_List(hyps_in);
    if (!hyps) goto done;
    refs = same ? (Py_INCREF(hyps), hyps) : PySequence_List(refs_in);
    if (!refs) goto done;
    const Py_ssize_t N = PyList_GET_SIZE(hyps), M = PyList_GET_SIZE(refs);
    const Py_ssize_t pairs = checked_mul(N, M);
    if (pairs < 0) goto done;
    if (scores_in == Py_None && rows_in == Py_None) {
        PyErr_SetString(PyExc_ValueError, "pairwise needs scores_out, rows_out or both");
        goto done;
    }
    if (scores_in != Py_None && out_buffer(scores_in, &scores, 'd', pairs, "scores_out") < 0) goto done;
    if (rows_in != Py_None) {
        const Py_ssize_t count = checked_mul(pairs, 3 * (Py_ssize_t)o.order);
        if (count < 0 || out_buffer(rows_in, &rows, 'q', count, "rows_out") < 0) goto done;
    }
    int64_t total = 0;
    for (int side = 0; side < 2 - same; side++) {
        PyObject *list = side ? refs : hyps;
        for (Py_ssize_t i = 0; i < PyList_GET_SIZE(list); i++) {
            PyObject *x = PyList_GET_ITEM(list, i);
            if (!PyUnicode_Check(x)) {
                PyErr_Format(PyExc_TypeError, "%s[%zd] must be a str, got %.80s", side ? "references" : "hypotheses", i,
                             Py_TYPE(x)->tp_name);
                goto done;
            }
            total += PyUnicode_GET_LENGTH(x) + 1;
            if (total > INT32_MAX) {
                PyErr_SetString(PyExc_OverflowError, "pairwise chrF: the sentences hold too many characters together");
                goto done;
            }
        }
    }
    for (int side = 0; side < 2 - same; side++) {
        PyObject *list = side ? refs : hyps;
        for (Py_ssize_t i = 0; i < PyList_GET_SIZE(list); i++)
            if (texts_add(&tx, PyList_GET_ITEM(list, i), lc == Py_True, st->str_lower) < 0) goto done;
    }
    if (threads > N) threads = N > 0 ? (int)N : 1;
    ws = (worker *)PyMem_Calloc((size_t)threads, sizeof(worker));
    cum = (int64_t *)PyMem_Malloc(((size_t)N + 1) * sizeof(int64_t));
    if (!ws || !cum) {
        PyErr_NoMemory();
        goto done;
    }
    n_workers = threads;
    shared sh = {0, NULL};
    PyThreadState *saved = NULL;
    sh.saved = &saved;
    for (int t = 0; t < n_workers; t++) {
        ws[t].o = &o;
        ws[t].sh = &sh;
    }
    worker *self = &ws[n_workers - 1];
    self->polls = poll_here(st->main_thread);
    if (self->polls < 0) goto done;
    self->last_ms = poll_clock_ms();
    job.o = &o;
    job.n_hyp = N;
    job.n_ref = M;
    job.ref_base = same ? 0 : N;
    job.scores = scores.obj ? (double *)scores.buf : NULL;
    job.rows = rows.obj ? (int64_t *)rows.buf : NULL;
    int rc;
    saved = PyEval_SaveThread();
    rc = pair_tables(self, tx.src, (int64_t)tx.n, &job);
    if (rc == 0 && N > 0) {
        cum[0] = 0;
        for (Py_ssize_t i = 0; i < N; i++)
            cum[i + 1] = cum[i] + (job.hyp_ptr[i + 1] - job.hyp_ptr[i]) + M * o.order / 4 + 1;
        int64_t bounds[MAX_THREADS + 1];
        split_weights(cum, N, threads, bounds);
        run_parts(pair_range, &job, ws, bounds, threads);
    }
    PyEval_RestoreThread(saved);
    for (int pass = 0; pass < 2; pass++)
        for (int t = 0; t < n_workers; t++)
            if (ws[t].err && (pass || ws[t].err != ERR_INTERRUPTED)) {
                raise_error(ws[t].err);
                goto done;
            }
    if (PyErr_CheckSignals() < 0) goto done;
    result = Py_None;
    Py_INCREF(result);
done:
    pair_job_free(&job);
    for (int t = 0; t < n_workers; t++) worker_free(&ws[t]);
    PyMem_Free(ws);
    PyMem_Free(cum);
    texts_free(&tx);
    Py_XDECREF(hyps);
    Py_XDECREF(refs);
    release(&scores);
    release(&rows);
    return result;
}

/* ------------------------------------------------------------------------------------------ */
/* one sentence                                                                                */

/* Code points up to which one sentence is counted without releasing the GIL (tens of µs). */
#define SHORT_SENTENCE_CHARS ((int64_t)1 << 14)

/* sentence(hyp, refs, char_order, word_order, lowercase, whitespace, eps_smoothing, factor,
 * one_plus, punctuation, normalize): the statistics row of one hypothesis against its references
 * (an entry as entries.h reads it), as a tuple of 3 * order ints and then the number of
 * references: sentence chrF without a table. A short sentence is counted holding the GIL, in a
 * worker the module keeps for the next call (its character map is allocated once: that is most
 * of a one-sentence statistics() call); a long one releases the GIL and polls for signals. */
static PyObject *py_sentence(PyObject *module, PyObject *args) {
    PyObject *hyp, *entry, *punct, *lc, *ws_in, *eps_in, *normalize;
    int char_order, word_order;
    double factor, one_plus;
    if (!PyArg_ParseTuple(args, "OOiiO!O!O!ddOO", &hyp, &entry, &char_order, &word_order, &PyBool_Type, &lc,
                          &PyBool_Type, &ws_in, &PyBool_Type, &eps_in, &factor, &one_plus, &punct, &normalize))
        return NULL;
    module_state *st = get_state(module);
    chrf_opts o;
    if (parse_opts(&o, char_order, word_order, ws_in == Py_True, eps_in == Py_True, factor, one_plus, punct) < 0)
        return NULL;
    if (!PyUnicode_Check(hyp)) {
        PyObject *name = PyObject_GetAttrString((PyObject *)Py_TYPE(hyp), "__name__");
        if (name) PyErr_Format(PyExc_TypeError, "hypothesis must be a str, got %U", name);
        Py_XDECREF(name);
        return NULL;
    }
    PyObject *refs = readable_entry(entry, -1, normalize), *result = NULL;
    if (!refs) return NULL;
    const int lowercase = lc == Py_True;
    texts tx = {0};
    worker *w = NULL;
    int64_t *row = NULL;
    int keep = 0;
    int64_t chars = texts_add(&tx, hyp, lowercase, st->str_lower);
    if (chars < 0) goto done;
    if (PyUnicode_Check(refs)) {
        const int64_t len = texts_add(&tx, refs, lowercase, st->str_lower);
        if (len < 0) goto done;
        chars += len;
    } else {
        for (Py_ssize_t k = 0; k < PySequence_Fast_GET_SIZE(refs); k++) {
            PyObject *x = PySequence_Fast_GET_ITEM(refs, k);
            if (x == Py_None) continue;
            const int64_t len = texts_add(&tx, x, lowercase, st->str_lower); /* count_entry: a str */
            if (len < 0) goto done;
            chars += len;
        }
    }
    if (PyUnicode_GET_LENGTH(hyp) > INT32_MAX || chars > MAX_SENTENCE_CHARS) {
        PyErr_SetString(PyExc_OverflowError, "a sentence is too long for the native chrF kernel");
        goto done;
    }
    const size_t width = 3 * (size_t)o.order;
    row = (int64_t *)PyMem_Malloc(width * sizeof(int64_t));
    if (!row) {
        PyErr_NoMemory();
        goto done;
    }
    const int short_one = chars <= SHORT_SENTENCE_CHARS;
#ifndef Py_GIL_DISABLED
    if (short_one && st->spare) { /* the GIL is held throughout: nobody else can take it */
        w = st->spare;
        st->spare = NULL;
    }
#endif
    if (!w && !(w = (worker *)PyMem_Calloc(1, sizeof(worker)))) {
        PyErr_NoMemory();
        goto done;
    }
    shared sh = {0, NULL};
    PyThreadState *saved = NULL;
    sh.saved = &saved;
    w->o = &o;
    w->sh = &sh;
    w->err = ERR_NONE;
    w->work = 0;
    int rc;
    if (short_one) {
        w->polls = 0; /* the GIL is not released: nothing to poll */
        rc = sentence_row(w, tx.src, tx.n, row);
    } else {
        w->polls = poll_here(st->main_thread);
        if (w->polls < 0) goto done;
        w->last_ms = poll_clock_ms();
        saved = PyEval_SaveThread();
        rc = sentence_row(w, tx.src, tx.n, row);
        PyEval_RestoreThread(saved);
    }
    if (rc < 0) {
        raise_error(w->err);
        goto done;
    }
    keep = short_one;
    result = PyTuple_New((Py_ssize_t)width + 1);
    if (!result) goto done;
    for (size_t c = 0; c <= width; c++) {
        PyObject *v = PyLong_FromLongLong(c < width ? row[c] : (long long)tx.n - 1);
        if (!v) {
            Py_CLEAR(result);
            goto done;
        }
        PyTuple_SET_ITEM(result, (Py_ssize_t)c, v);
    }
done:
    if (w) {
#ifndef Py_GIL_DISABLED
        if (keep && !st->spare) { /* a finished sentence leaves the maps cleared */
            st->spare = w;
            w = NULL;
        }
#endif
        if (w) {
            worker_free(w);
            PyMem_Free(w);
        }
    }
    PyMem_Free(row);
    texts_free(&tx);
    Py_DECREF(refs);
    return result;
}

/* ------------------------------------------------------------------------------------------ */
/* module                                                                                      */

static PyMethodDef methods[] = {
    {"statistics", py_statistics, METH_VARARGS,
     "statistics(hyps, refs, char_order, word_order, lowercase, whitespace, eps_smoothing, factor, one_plus,\n"
     "           punctuation, out, threads)\n\n"
     "Fill out (int64, n x 3 (char_order + word_order)) with the chrF statistics of hyps[i] (a str)\n"
     "against the best of refs[i] (a non-empty list of str). factor and one_plus are beta ** 2 and\n"
     "1 + beta ** 2; punctuation the ASCII characters split off words. Releases the GIL."},
    {"pairwise", py_pairwise, METH_VARARGS,
     "pairwise(hyps, refs, char_order, word_order, lowercase, whitespace, eps_smoothing, factor, one_plus,\n"
     "         punctuation, scores_out, rows_out, threads)\n\n"
     "Sentence chrF (scores_out, float64 N x M) and/or statistics rows (rows_out, int64 N x M x 3 order)\n"
     "of every hypothesis against every single reference (pass the same list twice for MBR).\n"
     "Either output may be None. Releases the GIL."},
    {"sentence", py_sentence, METH_VARARGS,
     "sentence(hyp, refs, char_order, word_order, lowercase, whitespace, eps_smoothing, factor, one_plus,\n"
     "         punctuation, normalize)\n\n"
     "The statistics row of one hypothesis against its references (a str, or a list or tuple of str\n"
     "and None; another type goes through normalize(refs, -1), which returns a list of str): a tuple\n"
     "of 3 (char_order + word_order) ints, then the number of references."},
    {NULL, NULL, 0, NULL}};

static int module_exec(PyObject *m) {
    module_state *st = get_state(m);
    st->main_thread = poll_main_thread();
    if (!st->main_thread) return -1;
    st->str_lower = PyObject_GetAttrString((PyObject *)&PyUnicode_Type, "lower");
    if (!st->str_lower) return -1;
    return PyModule_AddIntConstant(m, "MAX_ORDER", MAX_ORDER) < 0 ||
                   PyModule_AddIntConstant(m, "MAX_THREADS", MAX_THREADS) < 0
               ? -1
               : 0;
}

static int module_traverse(PyObject *m, visitproc visit, void *arg) {
    module_state *st = get_state(m);
    if (st) {
        Py_VISIT(st->str_lower);
        Py_VISIT(st->main_thread);
    }
    return 0;
}

static int module_clear(PyObject *m) {
    module_state *st = get_state(m);
    if (st) {
        Py_CLEAR(st->str_lower);
        Py_CLEAR(st->main_thread);
        if (st->spare) {
            worker_free(st->spare);
            PyMem_Free(st->spare);
            st->spare = NULL;
        }
    }
    return 0;
}

static void module_free(void *m) { module_clear((PyObject *)m); }

static PyModuleDef_Slot slots[] = {
    {Py_mod_exec, (void *)module_exec},
#ifdef Py_mod_multiple_interpreters
    {Py_mod_multiple_interpreters, Py_MOD_PER_INTERPRETER_GIL_SUPPORTED},
#endif
#ifdef Py_mod_gil
    {Py_mod_gil, Py_MOD_GIL_NOT_USED},
#endif
    {0, NULL}};

static struct PyModuleDef moduledef = {
    PyModuleDef_HEAD_INIT,
    "bleukit.metrics.chrf._kernel",
    "bleukit's compiled chrF / chrF++ kernel (see bleukit.metrics.chrf.extract).",
    sizeof(module_state),
    methods,
    slots,
    module_traverse,
    module_clear,
    module_free,
};

PyMODINIT_FUNC PyInit__kernel(void) { return PyModuleDef_Init(&moduledef); }
