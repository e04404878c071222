/*
 * Counting: one sentence's tokens -> one statistics row (clipped n-gram matches and totals per
 * order, hypothesis length, closest reference length), for text tokens of the store that
 * tokenize.c fills or for integer token ids. Also the growable buffers both use.
 *
 * Runs without the GIL: no Python object or error state is touched; failures set k->err.
 * Work buffers grow to the longest sentence and are reused; nothing is kept per corpus.
 */
#include "kernel.h"

#include <stdlib.h>
#include <string.h>

/* Grow a buffer of `elem`-byte items to hold `need` of them (capacity doubles from 256). */
static int reserve(kernel *k, void **d, size_t *cap, size_t need, size_t elem) {
    if (need <= *cap) return 0;
    if (need > MAX_BUFFER_BYTES / elem) {
        k->err = KERR_TOO_LONG;
        return -1;
    }
    size_t c = *cap ? *cap : 256;
    while (c < need) c *= 2; /* c < 2 * need <= 2 * MAX_BUFFER_BYTES / elem: no overflow */
    void *p = realloc(*d, c * elem);
    if (!p) {
        k->err = KERR_NOMEM;
        return -1;
    }
    *d = p;
    *cap = c;
    return 0;
}

int cp_grow(kernel *k, cpbuf *b, size_t need) {
    void *d = b->d;
    const int r = reserve(k, &d, &b->cap, need, sizeof(cp_t));
    b->d = (cp_t *)d;
    return r;
}

int i64_grow(kernel *k, i64buf *b, size_t need) {
    void *d = b->d;
    const int r = reserve(k, &d, &b->cap, need, sizeof(int64_t));
    b->d = (int64_t *)d;
    return r;
}

void kernel_free(kernel *k) {
    free(k->a.d);
    free(k->b.d);
    free(k->chars.d);
    free(k->tok_off.d);
    free(k->tok_len.d);
    free(k->tok_hash.d);
    free(k->seg_start.d);
    free(k->ids.d);
    free(k->tok_ids.d);
    free(k->hypcnt.d);
    free(k->refmax.d);
    free(k->tmp.d);
    free(k->hkeys);
    free(k->hvals);
    memset(k, 0, sizeof(*k));
}

/* Fibonacci hashing: the multiply spreads integer keys over the top bits */
#define FIB_MULT 0x9E3779B97F4A7C15ULL

/* Open addressing table for at least `entries` keys, cleared. Only the slots in use are
 * cleared, so one very long sentence does not slow down the short ones after it. */
static int table_reset(kernel *k, size_t entries) {
    size_t cap = 16;
    while (cap < 2 * entries + 2) cap *= 2; /* entries <= MAX_HYP_TOKENS: no overflow */
    if (cap > k->hcap) {
        /* both arrays are exactly `cap` long (hcap is the capacity of each) */
        size_t kc = k->hcap, vc = k->hcap;
        void *keys = k->hkeys, *vals = k->hvals;
        const int r1 = reserve(k, &keys, &kc, cap, sizeof(uint64_t));
        k->hkeys = (uint64_t *)keys;
        if (r1 < 0) return -1;
        const int r2 = reserve(k, &vals, &vc, cap, sizeof(int64_t));
        k->hvals = (int64_t *)vals;
        if (r2 < 0) return -1;
        if (kc != vc) { /* cannot happen: same start, same doubling */
            k->err = KERR_NOMEM;
            return -1;
        }
        k->hcap = kc;
    }
    memset(k->hkeys, 0xff, cap * sizeof(uint64_t));
    k->hmask = cap - 1;
    int bits = 0;
    while (((size_t)1 << bits) < cap) bits++;
    k->hshift = 64 - bits;
    return 0;
}

static inline int same_token(const kernel *k, int64_t a, int64_t b) {
    const int64_t la = k->tok_len.d[a];
    if (la != k->tok_len.d[b]) return 0;
    const cp_t *x = k->chars.d + k->tok_off.d[a], *y = k->chars.d + k->tok_off.d[b];
    for (int64_t i = 0; i < la; i++)
        if (x[i] != y[i]) return 0;
    return 1;
}

/* Id of token t: hypothesis tokens get dense ids 0..V-1 (insert); reference tokens only look up,
 * -1 when the hypothesis does not have them (they can never match). */
static int64_t token_id(kernel *k, int64_t t, int insert, int64_t *next_id) {
    const uint64_t h = (uint64_t)k->tok_hash.d[t];
    size_t slot = (size_t)h & k->hmask;
    for (;;) {
        uint64_t key = k->hkeys[slot];
        if (key == EMPTY_KEY) break;
        if (key == h && same_token(k, t, k->hvals[slot])) return k->tok_ids.d[k->hvals[slot]];
        slot = (slot + 1) & k->hmask;
    }
    if (!insert) return -1;
    k->hkeys[slot] = h;
    k->hvals[slot] = t;
    return (*next_id)++;
}

/* Id of the n-gram (prefix (n-1)-gram id, last token id), dense per order; -1 as above. */
static inline int64_t pair_id(kernel *k, int64_t prev, int64_t tok, int insert, int64_t *next_id) {
    if (prev < 0 || tok < 0) return -1;
    uint64_t key = ((uint64_t)prev << 32) | (uint64_t)tok;
    /* Fibonacci hashing: the multiply spreads (prefix, token) pairs over the top bits */
    size_t slot = (size_t)((key * FIB_MULT) >> k->hshift);
    for (;;) {
        uint64_t kk = k->hkeys[slot];
        if (kk == EMPTY_KEY) break;
        if (kk == key) return k->hvals[slot];
        slot = (slot + 1) & k->hmask;
    }
    if (!insert) return -1;
    k->hkeys[slot] = key;
    k->hvals[slot] = *next_id;
    return (*next_id)++;
}

/* Id of an integer token (the token-id path), dense for the hypothesis, -1 as for text. */
static int64_t value_id(kernel *k, int64_t v, int insert, int64_t *next_id) {
    const uint64_t key = (uint64_t)v;
    if (key == EMPTY_KEY) { /* the value -1 is the table's empty marker: kept aside */
        if (k->minus1_id >= 0 || !insert) return k->minus1_id;
        return k->minus1_id = (*next_id)++;
    }
    size_t slot = (size_t)((key * FIB_MULT) >> k->hshift);
    for (;;) {
        const uint64_t kk = k->hkeys[slot];
        if (kk == EMPTY_KEY) break;
        if (kk == key) return k->hvals[slot];
        slot = (slot + 1) & k->hmask;
    }
    if (!insert) return -1;
    k->hkeys[slot] = key;
    k->hvals[slot] = *next_id;
    return (*next_id)++;
}

/* See kernel.h. */
int count_sentence(kernel *k, int64_t *row, const int64_t *values) {
    const int N = k->order;
    const int64_t *seg = k->seg_start.d;
    const size_t nseg = k->seg_start.n - 1; /* seg_start has a closing entry */
    const int64_t T = seg[nseg];
    const int64_t L0 = seg[1] - seg[0];
    if (L0 > MAX_HYP_TOKENS || T > MAX_SENTENCE_CHARS) { /* module.c's checks make this unreachable */
        k->err = KERR_TOO_LONG;
        return -1;
    }
    if (i64_reserve(k, &k->tok_ids, (size_t)T + 1) < 0 || i64_reserve(k, &k->ids, (size_t)T + 1) < 0 ||
        i64_reserve(k, &k->hypcnt, (size_t)L0 + 2) < 0 || i64_reserve(k, &k->refmax, (size_t)L0 + 2) < 0 ||
        i64_reserve(k, &k->tmp, (size_t)L0 + 2) < 0)
        return -1;
    int64_t *tok_ids = k->tok_ids.d, *ids = k->ids.d;
    int64_t *hypcnt = k->hypcnt.d, *refmax = k->refmax.d, *tmp = k->tmp.d;

    /* closest reference length, ties to the shorter one */
    int64_t best = -1;
    for (size_t r = 1; r < nseg; r++) {
        int64_t len = seg[r + 1] - seg[r];
        int64_t d = len > L0 ? len - L0 : L0 - len;
        int64_t db = best > L0 ? best - L0 : L0 - best;
        if (best < 0 || d < db || (d == db && len < best)) best = len;
    }
    row[0] = L0;
    row[1] = best;
    for (int n = 0; n < N; n++) row[2 + n] = row[2 + N + n] = 0;
    if (L0 == 0) return 0;

    int64_t V = 0;
    if (table_reset(k, (size_t)L0) < 0) return -1;
    if (values) {
        k->minus1_id = -1;
        for (int64_t t = 0; t < T; t++) tok_ids[t] = ids[t] = value_id(k, values[t], t < L0, &V);
    } else {
        for (int64_t t = 0; t < T; t++) tok_ids[t] = ids[t] = token_id(k, t, t < L0, &V);
    }

    /* ids[] holds, per position, the id of the n-gram starting there, or -1 when it cannot
     * match. An n-gram can only match if both of its (n-1)-grams occur in some reference, so
     * hypothesis positions whose shorter n-gram found no reference copy drop out early. */
    for (int n = 1; n <= N; n++) {
        const int64_t hyp_positions = L0 - n + 1;
        if (hyp_positions <= 0) break;
        int64_t K = V;
        if (n > 1) {
            K = 0;
            if (table_reset(k, (size_t)hyp_positions) < 0) return -1;
            for (size_t s = 0; s < nseg; s++) {
                const int64_t start = seg[s], positions = seg[s + 1] - seg[s] - n + 1;
                int64_t *p = ids + start;
                const int64_t *last = tok_ids + start + n - 1;
                for (int64_t i = 0; i < positions; i++)
                    p[i] = (p[i] >= 0 && p[i + 1] >= 0) ? pair_id(k, p[i], last[i], s == 0, &K) : -1;
            }
        }
        /* counts are indexed by id + 1: slot 0 collects the -1s, so the loops need no branch */
        memset(hypcnt, 0, (size_t)(K + 1) * sizeof(int64_t));
        memset(refmax, 0, (size_t)(K + 1) * sizeof(int64_t));
        for (int64_t i = 0; i < hyp_positions; i++) hypcnt[ids[i] + 1]++;
        if (nseg == 2) {
            /* one reference: its counts are the maxima */
            const int64_t start = seg[1], positions = seg[2] - seg[1] - n + 1;
            for (int64_t i = 0; i < positions; i++) refmax[ids[start + i] + 1]++;
        } else {
            memset(tmp, 0, (size_t)(K + 1) * sizeof(int64_t));
            for (size_t s = 1; s < nseg; s++) {
                const int64_t start = seg[s], positions = seg[s + 1] - seg[s] - n + 1;
                for (int64_t i = 0; i < positions; i++) tmp[ids[start + i] + 1]++;
                for (int64_t i = 0; i < positions; i++) {
                    const int64_t x = ids[start + i] + 1;
                    refmax[x] = tmp[x] > refmax[x] ? tmp[x] : refmax[x];
                    tmp[x] = 0;
                }
            }
        }
        int64_t correct = 0;
        for (int64_t i = 0; i < hyp_positions; i++) {
            const int64_t x = ids[i] + 1;
            if (x == 0) continue;
            const int64_t c = hypcnt[x], r = refmax[x];
            correct += c < r ? c : r;
            hypcnt[x] = 0; /* counted once per distinct n-gram */
            if (!r) ids[i] = -1; /* in no reference: no longer n-gram from here matches */
        }
        row[2 + n - 1] = correct;
        row[2 + N + n - 1] = hyp_positions;
        if (correct == 0) {
            /* no n-gram matched, so no longer one can: only the totals are left */
            for (int m = n + 1; m <= N && L0 - m + 1 > 0; m++) row[2 + N + m - 1] = L0 - m + 1;
            break;
        }
        if (kernel_work(k, (size_t)T) < 0) return -1;
    }
    return 0;
}
