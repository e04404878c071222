/*
 * TER's number of edits on integer word ids: Levenshtein distance inside a beam around the
 * pseudo-diagonal, and greedy block shifts while one lowers it. Every decision (band, tie order,
 * candidate order and filters, targets, the ranking of candidates, the cap of 1000 tried
 * candidates) is that of bleukit/metrics/ter/reference.py, which documents them; this file
 * follows its structure function for function:
 *
 *   band_build        the rows of the beam                 (_Band)
 *   align_current     forward distances with moves, the path read back, backward distances
 *                                                          (_Alignment)
 *   next_row          one row of distances from the one above (_next_row)
 *   shifted           a block moved in front of a target    (_shifted)
 *   candidate_distance  rows p+1..q of a candidate, joined to the backward row q
 *                                                          (_distance_after_change)
 *   best_shift        the candidate search                 (_best_shift)
 *   ter_edits         the loop                             (edits)
 *
 * Only the band's cells are stored, row after row (row i at off[i], columns lo[i]..hi[i]-1), so
 * memory grows with the band, not with the whole matrix.
 */
#include "ter.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define BEAM_WIDTH 25
#define MAX_SHIFT_SIZE 10
#define MAX_SHIFT_DISTANCE 50
#define MAX_SHIFT_CANDIDATES 1000

enum { MOVE_MATCH = 0, MOVE_SUBSTITUTE = 1, MOVE_HYP_WORD = 2, MOVE_REF_WORD = 3 };

#define I64(b) ((int64_t *)(b).d)
#define I32(b) ((int32_t *)(b).d)
#define U8(b) ((uint8_t *)(b).d)

typedef struct {
    int64_t n, m;
    const int64_t *lo, *hi, *off;
    const int32_t *ref;
} band;

/* ------------------------------------------------------------------------------------------ */

static int band_build(ter_work *w, band *bd, int64_t n, int64_t m, const int32_t *ref) {
    if (ter_reserve(w, &w->lo, (size_t)n + 1, sizeof(int64_t)) < 0 ||
        ter_reserve(w, &w->hi, (size_t)n + 1, sizeof(int64_t)) < 0 ||
        ter_reserve(w, &w->off, (size_t)n + 2, sizeof(int64_t)) < 0)
        return -1;
    int64_t *lo = I64(w->lo), *hi = I64(w->hi), *off = I64(w->off);
    const double ratio = n ? (double)m / (double)n : 1.0;
    const double half = ratio / 2;
    const int64_t width = half > BEAM_WIDTH ? (int64_t)ceil(half + BEAM_WIDTH) : BEAM_WIDTH;
    lo[0] = 0;
    hi[0] = m + 1;
    off[0] = 0;
    off[1] = m + 1;
    for (int64_t i = 1; i <= n; i++) {
        const int64_t diagonal = (int64_t)floor((double)i * ratio);
        lo[i] = diagonal - width > 0 ? diagonal - width : 0;
        hi[i] = (i == n || diagonal + width > m + 1) ? m + 1 : diagonal + width;
        off[i + 1] = off[i] + (hi[i] - lo[i]); /* at most (n + 1) (m + 1) < 2^58 */
    }
    bd->n = n;
    bd->m = m;
    bd->lo = lo;
    bd->hi = hi;
    bd->off = off;
    bd->ref = ref;
    return 0;
}

/* ------------------------------------------------------------------------------------------ */

/* Row i of the distances of a hypothesis whose word i-1 is `word`, from row i-1 (`prev`). */
static void next_row(const band *bd, int64_t i, const int32_t *prev, int32_t word, int32_t *row) {
    const int64_t lo = bd->lo[i], hi = bd->hi[i], plo = bd->lo[i - 1], phi = bd->hi[i - 1];
    const int32_t *ref = bd->ref;
    int32_t left = TER_UNREACHABLE;
    int64_t j = lo;
    if (j == 0) { /* lo[i] == 0 implies lo[i-1] == 0 */
        left = row[0] = prev[0] + 1;
        j = 1;
    }
    if (j < hi && j == plo) { /* no diagonal: column j-1 is left of the row above */
        int32_t v = prev[0] + 1;
        if (left + 1 < v) v = left + 1;
        left = row[j - lo] = v;
        j++;
    }
    const int64_t both = hi < phi ? hi : phi; /* diagonal and above both in the band */
    for (; j < both; j++) {
        int32_t v = prev[j - 1 - plo] + (word != ref[j - 1]);
        const int32_t u = prev[j - plo] + 1;
        if (u < v) v = u;
        if (left + 1 < v) v = left + 1;
        left = row[j - lo] = v;
    }
    if (j < hi && j == phi) { /* diagonal only */
        int32_t v = prev[j - 1 - plo] + (word != ref[j - 1]);
        if (left + 1 < v) v = left + 1;
        left = row[j - lo] = v;
        j++;
    }
    for (; j < hi; j++) { /* right of the row above: reachable from the left only */
        left = left + 1 < TER_UNREACHABLE ? left + 1 : TER_UNREACHABLE;
        row[j - lo] = left;
    }
}

/* Forward distances and moves of the current hypothesis, the path read back into align and the
 * error prefix sums, and the backward distances. Returns the distance. */
static int32_t align_current(ter_work *w, const band *bd, const int32_t *hyp) {
    const int64_t n = bd->n, m = bd->m;
    const int64_t *lo = bd->lo, *hi = bd->hi, *off = bd->off;
    const int32_t *ref = bd->ref;
    int32_t *fwd = I32(w->fwd), *bwd = I32(w->bwd), *align = I32(w->align);
    int32_t *hsum = I32(w->hyp_err_sum), *rsum = I32(w->ref_err_sum);
    uint8_t *moves = U8(w->moves);

    for (int64_t j = 0; j <= m; j++) {
        fwd[j] = (int32_t)j;
        moves[j] = MOVE_REF_WORD;
    }
    for (int64_t i = 1; i <= n; i++) {
        const int64_t plo = lo[i - 1], phi = hi[i - 1];
        const int32_t *prev = fwd + off[i - 1];
        int32_t *row = fwd + off[i];
        uint8_t *how = moves + off[i];
        const int32_t word = hyp[i - 1];
        int32_t left = TER_UNREACHABLE;
        for (int64_t j = lo[i]; j < hi[i]; j++) {
            int32_t v;
            uint8_t move;
            if (j == 0) {
                v = prev[0] + 1;
                move = MOVE_HYP_WORD;
            } else {
                /* the first of (diagonal, hypothesis word, reference word) that is cheapest */
                v = TER_UNREACHABLE;
                move = MOVE_REF_WORD; /* stays unread when the cell is unreachable */
                if (j - 1 >= plo && j - 1 < phi) {
                    const int same = word == ref[j - 1];
                    v = prev[j - 1 - plo] + (same ? 0 : 1);
                    move = same ? MOVE_MATCH : MOVE_SUBSTITUTE;
                }
                if (j < phi && prev[j - plo] + 1 < v) {
                    v = prev[j - plo] + 1;
                    move = MOVE_HYP_WORD;
                }
                if (left + 1 < v) {
                    v = left + 1;
                    move = MOVE_REF_WORD;
                }
            }
            row[j - lo[i]] = v;
            how[j - lo[i]] = move;
            left = v;
        }
    }
    const int32_t distance = fwd[off[n] + (m - lo[n])];

    /* The path, read back from the last cell: error marks first, prefix sums after. */
    memset(hsum, 0, ((size_t)n + 1) * sizeof(int32_t));
    memset(rsum, 0, ((size_t)m + 1) * sizeof(int32_t));
    for (int64_t i = n, j = m; i > 0 || j > 0;) {
        const uint8_t move = moves[off[i] + (j - lo[i])];
        if (move == MOVE_MATCH || move == MOVE_SUBSTITUTE) {
            align[j - 1] = (int32_t)(i - 1);
            hsum[i] = rsum[j] = move == MOVE_SUBSTITUTE;
            i--;
            j--;
        } else if (move == MOVE_HYP_WORD) {
            hsum[i] = 1;
            i--;
        } else {
            align[j - 1] = (int32_t)(i - 1);
            rsum[j] = 1;
            j--;
        }
    }
    for (int64_t i = 1; i <= n; i++) hsum[i] += hsum[i - 1];
    for (int64_t j = 1; j <= m; j++) rsum[j] += rsum[j - 1];

    /* Backward distances over the same band. */
    for (int64_t j = lo[n]; j <= m; j++) bwd[off[n] + (j - lo[n])] = (int32_t)(m - j);
    for (int64_t i = n - 1; i >= 0; i--) {
        const int64_t blo = lo[i + 1], bhi = hi[i + 1];
        const int32_t *below = bwd + off[i + 1];
        int32_t *row = bwd + off[i];
        const int32_t word = hyp[i];
        int32_t right = TER_UNREACHABLE;
        for (int64_t j = hi[i] - 1; j >= lo[i]; j--) {
            int32_t v = right + 1;
            if (j < m && j + 1 >= blo && j + 1 < bhi) {
                const int32_t d = below[j + 1 - blo] + (word != ref[j]);
                if (d < v) v = d;
            }
            if (j >= blo && j < bhi && below[j - blo] + 1 < v) v = below[j - blo] + 1;
            if (v > TER_UNREACHABLE) v = TER_UNREACHABLE;
            row[j - lo[i]] = right = v;
        }
    }
    return distance;
}

/* ------------------------------------------------------------------------------------------ */

/* words with the block [start, start + length) moved in front of `target` (see _shifted): the
 * block goes to position `at` of the other words. */
static void shifted(const int32_t *words, int64_t n, int64_t start, int64_t length, int64_t target, int32_t *out) {
    int64_t at;
    if (target < start)
        at = target;
    else if (target > start + length)
        at = target - length;
    else
        at = target < n - length ? target : n - length;
    const size_t word = sizeof(int32_t);
    if (at <= start) { /* words[:at] + block + words[at:start] + words[start+length:] */
        memcpy(out, words, (size_t)at * word);
        memcpy(out + at, words + start, (size_t)length * word);
        memcpy(out + at + length, words + at, (size_t)(start - at) * word);
    } else { /* words[:start] + words[start+length:at+length] + block + words[at+length:] */
        memcpy(out, words, (size_t)start * word);
        memcpy(out + start, words + start + length, (size_t)(at - start) * word);
        memcpy(out + at, words + start, (size_t)length * word);
    }
    const int64_t tail = (at > start ? at : start) + length; /* the same from here on */
    memcpy(out + tail, words + tail, (size_t)(n - tail) * word);
}

/* Distance of cand, a permutation of the current hypothesis (see _distance_after_change). */
static int32_t candidate_distance(ter_work *w, const band *bd, const int32_t *hyp, const int32_t *cand,
                                  int32_t current) {
    const int64_t n = bd->n;
    int64_t p = 0, q = n;
    while (p < n && cand[p] == hyp[p]) p++;
    if (p == n) return current;
    while (cand[q - 1] == hyp[q - 1]) q--;
    const int64_t *lo = bd->lo, *hi = bd->hi, *off = bd->off;
    const int32_t *row = I32(w->fwd) + off[p];
    int32_t *a = I32(w->row_a), *b = I32(w->row_b);
    uint64_t cells = 0;
    for (int64_t i = p + 1; i <= q; i++) {
        next_row(bd, i, row, cand[i - 1], a);
        cells += (uint64_t)(hi[i] - lo[i]);
        row = a;
        a = b;
        b = (int32_t *)row;
    }
    const int32_t *back = I32(w->bwd) + off[q];
    int32_t best = INT32_MAX;
    for (int64_t k = 0; k < hi[q] - lo[q]; k++) {
        const int32_t s = row[k] + back[k]; /* both at most TER_UNREACHABLE: no overflow */
        if (s < best) best = s;
    }
    if (ter_tick(w, cells) < 0) return -1;
    return best;
}

typedef struct {
    int32_t gain;
    int64_t length, start, target;
} shift_key;

/* Whether a candidate ranks above the best so far: larger gain, longer block, earlier start,
 * earlier target. */
static int ranks_above(const shift_key *a, const shift_key *b) {
    if (a->gain != b->gain) return a->gain > b->gain;
    if (a->length != b->length) return a->length > b->length;
    if (a->start != b->start) return a->start < b->start;
    return a->target < b->target;
}

/* The best shift of the current hypothesis (see _best_shift): 1 with *best filled when there
 * was a candidate, 0 when none, -1 on failure. *tried counts across the sentence pair. */
static int best_shift(ter_work *w, const band *bd, const int32_t *hyp, int32_t current, int64_t *tried,
                      shift_key *best) {
    const int64_t n = bd->n, m = bd->m;
    const int32_t *ref = bd->ref, *align = I32(w->align);
    const int32_t *hsum = I32(w->hyp_err_sum), *rsum = I32(w->ref_err_sum);
    int32_t *cand = I32(w->cand);
    int found = 0;
    for (int64_t h = 0; h < n; h++) {
        const int64_t r_first = h - MAX_SHIFT_DISTANCE > 0 ? h - MAX_SHIFT_DISTANCE : 0;
        const int64_t r_end = h + MAX_SHIFT_DISTANCE + 1 < m ? h + MAX_SHIFT_DISTANCE + 1 : m;
        for (int64_t r = r_first; r < r_end; r++) {
            for (int64_t length = 1; length <= MAX_SHIFT_SIZE && h + length <= n && r + length <= m &&
                                     hyp[h + length - 1] == ref[r + length - 1];
                 length++) {
                if (hsum[h + length] == hsum[h] || rsum[r + length] == rsum[r]) continue;
                if (h <= align[r] && align[r] < h + length) continue;
                int64_t last_target = -1;
                for (int64_t k = r - 1; k < r + length; k++) {
                    const int64_t target = k < 0 ? 0 : (int64_t)align[k] + 1;
                    if (target == last_target) continue;
                    last_target = target;
                    shifted(hyp, n, h, length, target, cand);
                    const int32_t distance = candidate_distance(w, bd, hyp, cand, current);
                    if (distance < 0) return -1;
                    ++*tried;
                    const shift_key key = {current - distance, length, h, target};
                    if (!found || ranks_above(&key, best)) {
                        *best = key;
                        found = 1;
                    }
                }
                if (*tried >= MAX_SHIFT_CANDIDATES) return found;
            }
        }
    }
    return found;
}

/* ------------------------------------------------------------------------------------------ */

int64_t ter_edits(ter_work *w, const int32_t *hyp_in, int64_t n, const int32_t *ref, int64_t m) {
    if (m == 0) return n;
    band bd;
    if (band_build(w, &bd, n, m, ref) < 0) return -1;
    const size_t cells = (size_t)bd.off[n + 1];
    int64_t widest = 0;
    for (int64_t i = 0; i <= n; i++)
        if (bd.hi[i] - bd.lo[i] > widest) widest = bd.hi[i] - bd.lo[i];
    if (ter_reserve(w, &w->fwd, cells, sizeof(int32_t)) < 0 || ter_reserve(w, &w->bwd, cells, sizeof(int32_t)) < 0 ||
        ter_reserve(w, &w->moves, cells, 1) < 0 || ter_reserve(w, &w->align, (size_t)m, sizeof(int32_t)) < 0 ||
        ter_reserve(w, &w->hyp_err_sum, (size_t)n + 1, sizeof(int32_t)) < 0 ||
        ter_reserve(w, &w->ref_err_sum, (size_t)m + 1, sizeof(int32_t)) < 0 ||
        ter_reserve(w, &w->hyp, (size_t)n + 1, sizeof(int32_t)) < 0 ||
        ter_reserve(w, &w->cand, (size_t)n + 1, sizeof(int32_t)) < 0 ||
        ter_reserve(w, &w->row_a, (size_t)widest, sizeof(int32_t)) < 0 ||
        ter_reserve(w, &w->row_b, (size_t)widest, sizeof(int32_t)) < 0)
        return -1;
    int32_t *hyp = I32(w->hyp);
    if (n) memcpy(hyp, hyp_in, (size_t)n * sizeof(int32_t));
    int64_t shifts = 0, tried = 0;
    for (;;) {
        const int32_t current = align_current(w, &bd, hyp);
        if (ter_tick(w, 3 * (uint64_t)cells) < 0) return -1;
        shift_key best;
        const int found = best_shift(w, &bd, hyp, current, &tried, &best);
        if (found < 0) return -1;
        if (tried >= MAX_SHIFT_CANDIDATES || !found || best.gain <= 0) return shifts + current;
        shifts++;
        int32_t *cand = I32(w->cand);
        shifted(hyp, n, best.start, best.length, best.target, cand);
        memcpy(hyp, cand, (size_t)n * sizeof(int32_t));
    }
}
