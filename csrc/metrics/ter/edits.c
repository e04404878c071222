/*
 * TER's number of edits on integer word ids: Levenshtein distance inside a beam around the
 * pseudo-diagonal, and greedy block shifts while one lowers it. Every decision (band, tie order,
 * candidate order and filters, targets, the ranking of candidates, the cap of 1000 tried
 * candidates) is that of bleukit/metrics/ter/reference.py, which documents them; this file
 * follows its structure:
 *
 *   band_build          the rows of the beam                            (_Band)
 *   forward_row         a row of distances from the start, with moves   (_Alignment, forward)
 *   read_path           the path read back: alignment, error marks      (_Alignment, the path)
 *   backward_row        a row of distances to the end                   (_Alignment, backward)
 *   next_row            a row of distances, values only                 (_next_row)
 *   shifted             a block moved in front of a target              (_shifted)
 *   candidate_distance  rows p+1..q of a candidate joined to backward row q
 *                                                                       (_distance_after_change)
 *   best_shift          the candidate search                            (_best_shift)
 *   ter_edits           the loop                                        (edits)
 *
 * Only the band's cells are stored, row after row (row i at off[i], columns lo[i]..hi[i]-1), so
 * memory grows with the band, not with the whole matrix.
 *
 * Two savings that change no number: a shift rewrites the hypothesis only in a span [p, q), so
 * the next search recomputes forward rows p+1..n only (rows up to p, moves included, depend on
 * the unchanged prefix) and keeps the backward rows from q on; and backward rows are computed
 * only when a candidate needs them (a search without candidates needs none).
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

/* The distances of the current hypothesis: forward rows 0..fwd_valid and backward rows
 * bwd_valid..n are up to date. */
typedef struct {
    band bd;
    int32_t *hyp, *fwd, *bwd;
    uint8_t *moves;
    int64_t fwd_valid, bwd_valid;
} matrix;

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
/* rows of the matrix. A row's cells fall in stretches: column 0 (reached from above only); a
 * column whose diagonal neighbour lies left of the row above; columns with both neighbours
 * above in the band; the column whose upper neighbour lies right of the row above (diagonal
 * only); columns further right (from the left only). Rows of the band always overlap. */

static inline int32_t step(int32_t v) { return v < TER_UNREACHABLE ? v + 1 : TER_UNREACHABLE; }

/* Row i of the distances from the start, from row i-1 (`prev`); `word` is hypothesis word i-1.
 * With `how`, also the move that reached each cell: the first of (diagonal, hypothesis word,
 * reference word) that is cheapest. */
static void forward_row(const band *bd, int64_t i, const int32_t *prev, int32_t word, int32_t *row, uint8_t *how) {
    const int64_t lo = bd->lo[i], hi = bd->hi[i], plo = bd->lo[i - 1], phi = bd->hi[i - 1];
    const int32_t *ref = bd->ref;
    int32_t left = TER_UNREACHABLE;
    int64_t j = lo;
    if (j == 0) { /* lo[i] == 0 implies lo[i-1] == 0 */
        left = row[0] = prev[0] + 1;
        if (how) how[0] = MOVE_HYP_WORD;
        j = 1;
    }
    if (j < hi && j == plo) { /* the first column of the row, no diagonal: from above */
        left = row[j - lo] = prev[0] + 1;
        if (how) how[j - lo] = MOVE_HYP_WORD;
        j++;
    }
    const int64_t both = hi < phi ? hi : phi;
    if (how) {
        for (; j < both; j++) {
            const int32_t differ = word != ref[j - 1];
            int32_t v = prev[j - 1 - plo] + differ;
            uint8_t move = (uint8_t)differ; /* MOVE_MATCH or MOVE_SUBSTITUTE */
            const int32_t up = prev[j - plo] + 1;
            if (up < v) {
                v = up;
                move = MOVE_HYP_WORD;
            }
            if (left + 1 < v) {
                v = left + 1;
                move = MOVE_REF_WORD;
            }
            left = row[j - lo] = v;
            how[j - lo] = move;
        }
    } else {
        for (; j < both; j++) {
            int32_t v = prev[j - 1 - plo] + (word != ref[j - 1]);
            const int32_t up = prev[j - plo] + 1;
            if (up < v) v = up;
            if (left + 1 < v) v = left + 1;
            left = row[j - lo] = v;
        }
    }
    if (j < hi && j == phi) { /* diagonal only */
        const int32_t differ = word != ref[j - 1];
        int32_t v = prev[j - 1 - plo] + differ;
        uint8_t move = (uint8_t)differ;
        if (left + 1 < v) {
            v = left + 1;
            move = MOVE_REF_WORD;
        }
        left = row[j - lo] = v;
        if (how) how[j - lo] = move;
        j++;
    }
    for (; j < hi; j++) { /* right of the row above: from the left only */
        left = row[j - lo] = step(left);
        if (how) how[j - lo] = MOVE_REF_WORD;
    }
}

/* Row i of the distances to the end, from row i+1 (`below`); `word` is hypothesis word i. */
static void backward_row(const band *bd, int64_t i, const int32_t *below, int32_t word, int32_t *row) {
    const int64_t lo = bd->lo[i], hi = bd->hi[i], blo = bd->lo[i + 1], bhi = bd->hi[i + 1], m = bd->m;
    const int32_t *ref = bd->ref;
    int32_t right = TER_UNREACHABLE;
    /* columns are visited right to left; hi <= bhi and lo <= blo (rows only move right) */
    int64_t j = hi - 1;
    for (; j >= lo && (j >= m || j + 1 >= bhi); j--) { /* no diagonal neighbour below */
        int32_t v = step(right);
        if (j >= blo && below[j - blo] + 1 < v) v = below[j - blo] + 1;
        row[j - lo] = right = v;
    }
    for (; j >= lo && j >= blo; j--) { /* both neighbours below */
        int32_t v = step(right);
        const int32_t diagonal = below[j + 1 - blo] + (word != ref[j]);
        const int32_t down = below[j - blo] + 1;
        if (diagonal < v) v = diagonal;
        if (down < v) v = down;
        row[j - lo] = right = v;
    }
    if (j >= lo && j == blo - 1) { /* diagonal only */
        int32_t v = step(right);
        const int32_t diagonal = below[0] + (word != ref[j]);
        if (diagonal < v) v = diagonal;
        row[j - lo] = right = v;
        j--;
    }
    for (; j >= lo; j--) row[j - lo] = right = step(right); /* from the right only */
}

/* Forward rows fwd_valid+1..n of the current hypothesis; returns its distance. */
static int32_t forward_rest(ter_work *w, matrix *mx) {
    const band *bd = &mx->bd;
    const int64_t *off = bd->off;
    for (int64_t i = mx->fwd_valid + 1; i <= bd->n; i++)
        forward_row(bd, i, mx->fwd + off[i - 1], mx->hyp[i - 1], mx->fwd + off[i], mx->moves + off[i]);
    (void)ter_tick(w, (uint64_t)(off[bd->n + 1] - off[mx->fwd_valid + 1]));
    mx->fwd_valid = bd->n;
    return mx->fwd[off[bd->n] + (bd->m - bd->lo[bd->n])];
}

/* Backward rows down to row q. */
static void backward_down_to(ter_work *w, matrix *mx, int64_t q) {
    const band *bd = &mx->bd;
    const int64_t *off = bd->off;
    if (q >= mx->bwd_valid) return;
    for (int64_t i = mx->bwd_valid - 1; i >= q; i--)
        backward_row(bd, i, mx->bwd + off[i + 1], mx->hyp[i], mx->bwd + off[i]);
    (void)ter_tick(w, (uint64_t)(off[mx->bwd_valid] - off[q]));
    mx->bwd_valid = q;
}

/* The path read back from the last cell: align[k] = hypothesis position of reference word k
 * (-1 before the first), and prefix sums of the error marks of both sides. */
static void read_path(ter_work *w, const matrix *mx) {
    const band *bd = &mx->bd;
    const int64_t n = bd->n, m = bd->m;
    const int64_t *lo = bd->lo, *off = bd->off;
    int32_t *align = I32(w->align), *hsum = I32(w->hyp_err_sum), *rsum = I32(w->ref_err_sum);
    memset(hsum, 0, ((size_t)n + 1) * sizeof(int32_t));
    memset(rsum, 0, ((size_t)m + 1) * sizeof(int32_t));
    for (int64_t i = n, j = m; i > 0 || j > 0;) {
        const uint8_t move = mx->moves[off[i] + (j - lo[i])];
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

/* The span [*p, *q) where cand differs from the hypothesis; 0 when they are equal. */
static int changed_span(const int32_t *hyp, const int32_t *cand, int64_t n, int64_t *p, int64_t *q) {
    int64_t a = 0, b = n;
    while (a < n && cand[a] == hyp[a]) a++;
    if (a == n) return 0;
    while (cand[b - 1] == hyp[b - 1]) b--;
    *p = a;
    *q = b;
    return 1;
}

/* Distance of cand, a permutation of the current hypothesis (see _distance_after_change). */
static int32_t candidate_distance(ter_work *w, matrix *mx, const int32_t *cand, int32_t current) {
    const band *bd = &mx->bd;
    int64_t p, q;
    if (!changed_span(mx->hyp, cand, bd->n, &p, &q)) return current;
    backward_down_to(w, mx, q);
    const int64_t *lo = bd->lo, *hi = bd->hi, *off = bd->off;
    const int32_t *row = mx->fwd + off[p];
    int32_t *a = I32(w->row_a), *b = I32(w->row_b);
    for (int64_t i = p + 1; i <= q; i++) {
        forward_row(bd, i, row, cand[i - 1], a, NULL);
        row = a;
        a = b;
        b = (int32_t *)row;
    }
    const int32_t *back = mx->bwd + off[q];
    int32_t best = INT32_MAX;
    for (int64_t k = 0; k < hi[q] - lo[q]; k++) {
        const int32_t s = row[k] + back[k]; /* both at most TER_UNREACHABLE: no overflow */
        if (s < best) best = s;
    }
    if (ter_tick(w, (uint64_t)(off[q + 1] - off[p + 1])) < 0) return -1;
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
 * was a candidate, 0 when none, -1 on failure. *tried counts across the sentence pair. Blocks
 * start where the reference holds the hypothesis word: its positions (`post_start`,
 * `post_pos`, ascending per word id) are walked instead of every reference position. */
static int best_shift(ter_work *w, matrix *mx, int32_t current, int64_t *tried, shift_key *best) {
    const int64_t n = mx->bd.n, m = mx->bd.m;
    const int32_t *hyp = mx->hyp, *ref = mx->bd.ref, *align = I32(w->align);
    const int32_t *hsum = I32(w->hyp_err_sum), *rsum = I32(w->ref_err_sum);
    const int64_t *post_start = I64(w->post_start);
    const int32_t *post_pos = I32(w->post_pos);
    int32_t *cand = I32(w->cand);
    int found = 0;
    for (int64_t h = 0; h < n; h++) {
        const int64_t r_first = h - MAX_SHIFT_DISTANCE, r_last = h + MAX_SHIFT_DISTANCE;
        for (int64_t e = post_start[hyp[h]]; e < post_start[hyp[h] + 1]; e++) {
            const int64_t r = post_pos[e];
            if (r < r_first) continue;
            if (r > r_last) break;
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
                    const int32_t distance = candidate_distance(w, mx, cand, current);
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

/* Positions of each word id in the reference, ascending, grouped by id; ids of the hypothesis
 * missing from the reference get empty groups. */
static int index_reference(ter_work *w, const int32_t *hyp, int64_t n, const int32_t *ref, int64_t m) {
    int32_t top = 0;
    for (int64_t i = 0; i < n; i++)
        if (hyp[i] > top) top = hyp[i];
    for (int64_t j = 0; j < m; j++)
        if (ref[j] > top) top = ref[j];
    if (ter_reserve(w, &w->post_start, (size_t)top + 2, sizeof(int64_t)) < 0 ||
        ter_reserve(w, &w->post_pos, (size_t)m + 1, sizeof(int32_t)) < 0)
        return -1;
    int64_t *start = I64(w->post_start);
    int32_t *pos = I32(w->post_pos);
    memset(start, 0, ((size_t)top + 2) * sizeof(int64_t));
    for (int64_t j = 0; j < m; j++) start[ref[j] + 1]++;
    for (int32_t id = 0; id <= top; id++) start[id + 1] += start[id];
    for (int64_t j = 0; j < m; j++) pos[start[ref[j]]++] = (int32_t)j;
    for (int32_t id = top; id > 0; id--) start[id] = start[id - 1]; /* undo the fill's advance */
    start[0] = 0;
    return ter_tick(w, (uint64_t)(m + top));
}

/* ------------------------------------------------------------------------------------------ */

int64_t ter_edits(ter_work *w, const int32_t *hyp_in, int64_t n, const int32_t *ref, int64_t m) {
    if (m == 0) return n;
    matrix mx;
    if (band_build(w, &mx.bd, n, m, ref) < 0) return -1;
    const size_t cells = (size_t)mx.bd.off[n + 1];
    int64_t widest = 0;
    for (int64_t i = 0; i <= n; i++)
        if (mx.bd.hi[i] - mx.bd.lo[i] > widest) widest = mx.bd.hi[i] - mx.bd.lo[i];
    if (ter_reserve(w, &w->fwd, cells, sizeof(int32_t)) < 0 || ter_reserve(w, &w->bwd, cells, sizeof(int32_t)) < 0 ||
        ter_reserve(w, &w->moves, cells, 1) < 0 || ter_reserve(w, &w->align, (size_t)m, sizeof(int32_t)) < 0 ||
        ter_reserve(w, &w->hyp_err_sum, (size_t)n + 1, sizeof(int32_t)) < 0 ||
        ter_reserve(w, &w->ref_err_sum, (size_t)m + 1, sizeof(int32_t)) < 0 ||
        ter_reserve(w, &w->hyp, (size_t)n + 1, sizeof(int32_t)) < 0 ||
        ter_reserve(w, &w->cand, (size_t)n + 1, sizeof(int32_t)) < 0 ||
        ter_reserve(w, &w->row_a, (size_t)widest, sizeof(int32_t)) < 0 ||
        ter_reserve(w, &w->row_b, (size_t)widest, sizeof(int32_t)) < 0 || index_reference(w, hyp_in, n, ref, m) < 0)
        return -1;
    mx.hyp = I32(w->hyp);
    mx.fwd = I32(w->fwd);
    mx.bwd = I32(w->bwd);
    mx.moves = U8(w->moves);
    if (n) memcpy(mx.hyp, hyp_in, (size_t)n * sizeof(int32_t));
    /* row 0 of the distances from the start (reference words only), the last row of those to the end */
    for (int64_t j = 0; j <= m; j++) {
        mx.fwd[j] = (int32_t)j;
        mx.moves[j] = MOVE_REF_WORD;
    }
    for (int64_t j = mx.bd.lo[n]; j <= m; j++) mx.bwd[mx.bd.off[n] + (j - mx.bd.lo[n])] = (int32_t)(m - j);
    mx.fwd_valid = 0;
    mx.bwd_valid = n;
    int64_t shifts = 0, tried = 0;
    for (;;) {
        const int32_t current = forward_rest(w, &mx);
        if (w->err) return -1; /* interrupted while computing it */
        read_path(w, &mx);
        shift_key best = {0}; /* read only when found */
        const int found = best_shift(w, &mx, current, &tried, &best);
        if (found < 0) return -1;
        if (tried >= MAX_SHIFT_CANDIDATES || !found || best.gain <= 0) return shifts + current;
        shifts++;
        int32_t *cand = I32(w->cand);
        int64_t p, q;
        shifted(mx.hyp, n, best.start, best.length, best.target, cand);
        if (changed_span(mx.hyp, cand, n, &p, &q)) { /* (a positive gain implies a change) */
            memcpy(mx.hyp + p, cand + p, (size_t)(q - p) * sizeof(int32_t));
            if (mx.fwd_valid > p) mx.fwd_valid = p;
            if (mx.bwd_valid < q) mx.bwd_valid = q;
        }
    }
}
