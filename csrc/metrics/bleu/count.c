/*
 * Counting: one sentence's tokens -> one statistics row (clipped n-gram matches and totals per
 * order, hypothesis length, closest reference length), for text tokens of the store that
 * tokenize.c fills or for integer token ids; workspace_free.
 *
 * Runs without the GIL: no Python object or error state is touched; failures set ws->err.
 * Work buffers grow to the longest sentence and are reused; nothing is kept per corpus.
 */
#include "bleu.h"

#include <stdlib.h>
#include <string.h>

void workspace_free(workspace *ws) {
    free(ws->a.d);
    free(ws->b.d);
    free(ws->c.d);
    free(ws->chars.d);
    free(ws->tok_off.d);
    free(ws->tok_len.d);
    free(ws->tok_hash.d);
    free(ws->seg_start.d);
    free(ws->ids.d);
    free(ws->tok_ids.d);
    free(ws->hypcnt.d);
    free(ws->refmax.d);
    free(ws->tmp.d);
    free(ws->live.d);
    free(ws->bounds.d);
    free(ws->hkeys);
    free(ws->hvals);
    memset(ws, 0, sizeof(*ws));
}

/* Fibonacci hashing: the multiply spreads integer keys over the top bits */
#define FIB_MULT 0x9E3779B97F4A7C15ULL

/* Open addressing table for at least `entries` keys, cleared. Only the slots in use are
 * cleared, so one very long sentence does not slow down the short ones after it. */
static int table_reset(workspace *ws, size_t entries) {
    size_t cap = 16;
    while (cap < 2 * entries + 2) cap *= 2; /* entries <= MAX_HYP_TOKENS: no overflow */
    if (cap > ws->hcap) {
        /* both arrays are exactly `cap` long (hcap is the capacity of each) */
        size_t kc = ws->hcap, vc = ws->hcap;
        void *keys = ws->hkeys, *vals = ws->hvals;
        const int r1 = ws_grow(ws, &keys, &kc, cap, sizeof(uint64_t));
        ws->hkeys = (uint64_t *)keys;
        if (r1 < 0) return -1;
        const int r2 = ws_grow(ws, &vals, &vc, cap, sizeof(int64_t));
        ws->hvals = (int64_t *)vals;
        if (r2 < 0) return -1;
        if (kc != vc) { /* cannot happen: same start, same doubling */
            ws->err = KERR_NOMEM;
            return -1;
        }
        ws->hcap = kc;
    }
    for (size_t lo = 0, hi; lo < cap; lo = hi) {
        hi = poll_slice_end(lo, cap);
        memset(ws->hkeys + lo, 0xff, (hi - lo) * sizeof(uint64_t));
        if (ws_work(ws, hi - lo) < 0) return -1;
    }
    ws->hmask = cap - 1;
    int bits = 0;
    while (((size_t)1 << bits) < cap) bits++;
    ws->hshift = 64 - bits;
    return 0;
}

static inline int same_token(const workspace *ws, int64_t a, int64_t b) {
    const int64_t la = ws->tok_len.d[a];
    if (la != ws->tok_len.d[b]) return 0;
    const cp_t *x = ws->chars.d + ws->tok_off.d[a], *y = ws->chars.d + ws->tok_off.d[b];
    return memcmp(x, y, (size_t)la * sizeof(cp_t)) == 0;
}

/* Id of token t: hypothesis tokens get dense ids 0, 1, ... (insert); reference tokens only look
 * up, -1 when the hypothesis does not have them (they can never match). */
static int64_t token_id(workspace *ws, int64_t t, int insert, int64_t *next_id) {
    const uint64_t h = (uint64_t)ws->tok_hash.d[t];
    size_t slot = (size_t)h & ws->hmask;
    for (;;) {
        uint64_t key = ws->hkeys[slot];
        if (key == EMPTY_KEY) break;
        if (key == h && same_token(ws, t, ws->hvals[slot])) return ws->tok_ids.d[ws->hvals[slot]];
        slot = (slot + 1) & ws->hmask;
    }
    if (!insert) return -1;
    ws->hkeys[slot] = h;
    ws->hvals[slot] = t;
    return (*next_id)++;
}

/* Dense id of an integer key (never EMPTY_KEY): the next id when inserted, -1 when absent and
 * not inserted. Fibonacci hashing: the multiply spreads keys over the top bits. */
static inline int64_t key_id(workspace *ws, uint64_t key, int insert, int64_t *next_id) {
    size_t slot = (size_t)((key * FIB_MULT) >> ws->hshift);
    for (;;) {
        const uint64_t kk = ws->hkeys[slot];
        if (kk == EMPTY_KEY) break;
        if (kk == key) return ws->hvals[slot];
        slot = (slot + 1) & ws->hmask;
    }
    if (!insert) return -1;
    ws->hkeys[slot] = key;
    ws->hvals[slot] = *next_id;
    return (*next_id)++;
}

/* Id of an integer token (the token-id path), dense for the hypothesis, -1 as for text. */
static int64_t value_id(workspace *ws, int64_t v, int insert, int64_t *next_id) {
    if ((uint64_t)v == EMPTY_KEY) { /* the value -1 is the table's empty marker: kept aside */
        if (ws->minus1_id >= 0 || !insert) return ws->minus1_id;
        return ws->minus1_id = (*next_id)++;
    }
    return key_id(ws, (uint64_t)v, insert, next_id);
}

/* Long loops below run in slices of at most POLL_SLICE items and report their work between
 * slices (poll.h), so Ctrl-C stops even one enormous sentence within some 10 ms; for short
 * sentences a slice is the whole loop. slice_end(lo, n): the end of the slice that starts at lo. */
static inline int64_t slice_end(int64_t lo, int64_t n) { return (int64_t)poll_slice_end((size_t)lo, (size_t)n); }

/* n zeros at p (millions of distinct n-grams clear tens of MB). */
static int zero_counts(workspace *ws, int64_t *p, int64_t n) {
    for (int64_t lo = 0, hi; lo < n; lo = hi) {
        hi = slice_end(lo, n);
        memset(p + lo, 0, (size_t)(hi - lo) * sizeof(int64_t));
        if (ws_work(ws, (size_t)(hi - lo)) < 0) return -1;
    }
    return 0;
}

/* See kernel.h.
 *
 * Every order works on lists of live positions, one list per segment, in ascending order, each
 * position with the id of the n-gram starting there: a hypothesis position is live while its
 * n-gram occurs in some reference, a reference position while its n-gram occurs in the
 * hypothesis. Only live positions can start a longer n-gram that matches (both of its shorter
 * n-grams must match), so each order reads only the previous order's survivors, and the counting
 * loops see no -1 ids: no branch on them, no counter that every dead position increments. */
int count_sentence(workspace *ws, int64_t *row, const int64_t *values) {
    const int order = ws->order; /* the largest n */
    const int64_t *seg = ws->seg_start.d;
    const size_t nseg = ws->seg_start.n - 1; /* seg_start has a closing entry */
    const int64_t n_tok = seg[nseg];         /* tokens of all segments: token positions 0..n_tok-1 */
    const int64_t hyp_len = seg[1] - seg[0]; /* hypothesis tokens: positions 0..hyp_len-1 */
    if (hyp_len > MAX_HYP_TOKENS || n_tok > MAX_SENTENCE_CHARS) { /* batch.c's and ids.c's checks make this unreachable */
        ws->err = KERR_TOO_LONG;
        return -1;
    }
    if (i64_reserve(ws, &ws->tok_ids, (size_t)n_tok + 1) < 0 || i64_reserve(ws, &ws->ids, (size_t)n_tok + 1) < 0 ||
        i64_reserve(ws, &ws->live, (size_t)n_tok + 1) < 0 || i64_reserve(ws, &ws->bounds, 2 * nseg) < 0 ||
        i64_reserve(ws, &ws->hypcnt, (size_t)hyp_len + 2) < 0 || i64_reserve(ws, &ws->refmax, (size_t)hyp_len + 2) < 0 ||
        i64_reserve(ws, &ws->tmp, (size_t)hyp_len + 2) < 0)
        return -1;
    int64_t *tok_ids = ws->tok_ids.d;
    int64_t *live = ws->live.d, *ids = ws->ids.d; /* the lists: positions and their n-gram ids */
    int64_t *first = ws->bounds.d, *end = ws->bounds.d + nseg; /* segment s: entries first[s]..end[s]-1 */
    int64_t *hypcnt = ws->hypcnt.d, *refmax = ws->refmax.d, *tmp = ws->tmp.d;
    int64_t lo, hi; /* the slice of a long loop */

    /* closest reference length, ties to the shorter one */
    int64_t best = -1;
    for (size_t r = 1; r < nseg; r++) {
        int64_t len = seg[r + 1] - seg[r];
        int64_t d = len > hyp_len ? len - hyp_len : hyp_len - len;
        int64_t db = best > hyp_len ? best - hyp_len : hyp_len - best;
        if (best < 0 || d < db || (d == db && len < best)) best = len;
    }
    row[0] = hyp_len;
    row[1] = best;
    for (int n = 0; n < order; n++) row[2 + n] = row[2 + order + n] = 0;
    if (hyp_len == 0) return 0;

    /* token ids: the hypothesis's distinct tokens are 0..n_types-1 */
    int64_t n_types = 0;
    if (table_reset(ws, (size_t)hyp_len) < 0) return -1;
    ws->minus1_id = -1;
    for (lo = 0; lo < n_tok; lo = hi) {
        hi = slice_end(lo, n_tok);
        if (values)
            for (int64_t t = lo; t < hi; t++) tok_ids[t] = value_id(ws, values[t], t < hyp_len, &n_types);
        else
            for (int64_t t = lo; t < hi; t++) tok_ids[t] = token_id(ws, t, t < hyp_len, &n_types);
        if (ws_work(ws, (size_t)(hi - lo)) < 0) return -1;
    }
    /* the unigram lists: every position whose token the hypothesis has (all of its own) */
    {
        int64_t w = 0;
        for (size_t s = 0; s < nseg; s++) {
            first[s] = w;
            for (lo = seg[s]; lo < seg[s + 1]; lo = hi) {
                hi = slice_end(lo, seg[s + 1]);
                for (int64_t t = lo; t < hi; t++) {
                    live[w] = t;
                    ids[w] = tok_ids[t];
                    w += tok_ids[t] >= 0;
                }
                if (ws_work(ws, (size_t)(hi - lo)) < 0) return -1;
            }
            end[s] = w;
        }
    }

    for (int n = 1; n <= order; n++) {
        const int64_t hyp_positions = hyp_len - n + 1;
        if (hyp_positions <= 0) break;
        int64_t n_ids = n_types; /* the hypothesis's distinct n-grams: ids 0..n_ids-1 */
        if (n > 1) {
            /* position p stays live when p + 1 was live too (the n-gram at p is the (n-1)-gram at
             * p and the token at p + n - 1, which the live (n-1)-gram at p + 1 ends with, so its
             * id is not -1) and the new n-gram is in the hypothesis. The key packs both ids
             * (below MAX_HYP_TOKENS) in 64 bits, so it is never EMPTY_KEY. A list shrinks in
             * place: an entry is written at or before the one being read. */
            n_ids = 0;
            if (table_reset(ws, (size_t)(end[0] - first[0])) < 0) return -1;
            int64_t w = 0;
            for (size_t s = 0; s < nseg; s++) {
                const int64_t a = first[s], b = end[s];
                first[s] = w;
                /* first the positions whose successor is live (a list's last entry has none), with
                 * no branch on it; then their n-grams are looked up */
                const int64_t c0 = w;
                for (lo = a; lo < b - 1; lo = hi) {
                    hi = slice_end(lo, b - 1);
                    for (int64_t k = lo; k < hi; k++) {
                        const int64_t p = live[k];
                        live[w] = p;
                        ids[w] = ids[k];
                        w += live[k + 1] == p + 1;
                    }
                    if (ws_work(ws, (size_t)(hi - lo)) < 0) return -1;
                }
                const int64_t c1 = w;
                w = c0;
                for (lo = c0; lo < c1; lo = hi) {
                    hi = slice_end(lo, c1);
                    for (int64_t k = lo; k < hi; k++) {
                        const int64_t p = live[k];
                        const int64_t id =
                            key_id(ws, ((uint64_t)ids[k] << 32) | (uint64_t)tok_ids[p + n - 1], s == 0, &n_ids);
                        live[w] = p;
                        ids[w] = id;
                        w += id >= 0;
                    }
                    if (ws_work(ws, (size_t)(hi - lo)) < 0) return -1;
                }
                end[s] = w;
            }
        }
        const int64_t h0 = first[0], h1 = end[0];
        if (zero_counts(ws, hypcnt, n_ids) < 0 || zero_counts(ws, refmax, n_ids) < 0) return -1;
        for (lo = h0; lo < h1; lo = hi) {
            hi = slice_end(lo, h1);
            for (int64_t k = lo; k < hi; k++) hypcnt[ids[k]]++;
            if (ws_work(ws, (size_t)(hi - lo)) < 0) return -1;
        }
        if (nseg == 2) {
            /* one reference: its counts are the maxima */
            for (lo = first[1]; lo < end[1]; lo = hi) {
                hi = slice_end(lo, end[1]);
                for (int64_t k = lo; k < hi; k++) refmax[ids[k]]++;
                if (ws_work(ws, (size_t)(hi - lo)) < 0) return -1;
            }
        } else {
            if (zero_counts(ws, tmp, n_ids) < 0) return -1;
            for (size_t s = 1; s < nseg; s++) {
                for (lo = first[s]; lo < end[s]; lo = hi) {
                    hi = slice_end(lo, end[s]);
                    for (int64_t k = lo; k < hi; k++) tmp[ids[k]]++;
                    if (ws_work(ws, (size_t)(hi - lo)) < 0) return -1;
                }
                for (lo = first[s]; lo < end[s]; lo = hi) {
                    hi = slice_end(lo, end[s]);
                    for (int64_t k = lo; k < hi; k++) {
                        const int64_t x = ids[k];
                        refmax[x] = tmp[x] > refmax[x] ? tmp[x] : refmax[x];
                        tmp[x] = 0;
                    }
                    if (ws_work(ws, (size_t)(hi - lo)) < 0) return -1;
                }
            }
        }
        /* clip; a hypothesis n-gram in no reference leaves the list (no longer n-gram from there
         * matches) */
        int64_t correct = 0, w = h0;
        for (lo = h0; lo < h1; lo = hi) {
            hi = slice_end(lo, h1);
            for (int64_t k = lo; k < hi; k++) {
                const int64_t x = ids[k];
                const int64_t c = hypcnt[x], r = refmax[x];
                correct += c < r ? c : r;
                hypcnt[x] = 0; /* counted once per distinct n-gram */
                live[w] = live[k];
                ids[w] = x;
                w += r != 0;
            }
            if (ws_work(ws, (size_t)(hi - lo)) < 0) return -1;
        }
        end[0] = w;
        row[2 + n - 1] = correct;
        row[2 + order + n - 1] = hyp_positions;
        if (correct == 0) {
            /* no n-gram matched, so no longer one can: only the totals are left */
            for (int m = n + 1; m <= order && hyp_len - m + 1 > 0; m++) row[2 + order + m - 1] = hyp_len - m + 1;
            break;
        }
    }
    return 0;
}
