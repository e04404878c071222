/*
 * One sentence's chrF statistics (see chrf.h): n-gram ids per order, counts against each
 * reference, and the row of the reference with the best f-score. Runs without the GIL.
 */
#include "chrf.h"

#include <math.h>
#include <stdlib.h>

/* sacreBLEU's CHRF._compute_f_score on one row of 3 * order counts. */
double f_score(const int64_t *st, const chrf_opts *o) {
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

/* Clear the hash table for at least `entries` keys (only the slots in use are cleared). */
int table_reset(worker *w, size_t entries) {
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
int sentence_row(worker *w, const text_src *src, size_t nseg, int64_t *row) {
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
