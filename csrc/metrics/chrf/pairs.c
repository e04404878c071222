/*
 * pairwise() of bleukit.metrics.chrf._kernel: sentence chrF (or the rows) of every hypothesis
 * against every single reference, each sentence's n-grams counted once.
 */
#include "chrf.h"

#include <stdlib.h>

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

PyObject *py_pairwise(PyObject *module, PyObject *args) {
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
    shared sh = {0};
    poller poll, idle; /* the calling thread's (the last worker's), the others' (never polls) */
    if (poller_start(&poll, st->main_thread) < 0) goto done;
    idle = poll;
    idle.enabled = 0;
    for (int t = 0; t < n_workers; t++) {
        ws[t].o = &o;
        ws[t].sh = &sh;
        ws[t].poll = t == n_workers - 1 ? &poll : &idle;
    }
    worker *self = &ws[n_workers - 1];
    job.o = &o;
    job.n_hyp = N;
    job.n_ref = M;
    job.ref_base = same ? 0 : N;
    job.scores = scores.obj ? (double *)scores.buf : NULL;
    job.rows = rows.obj ? (int64_t *)rows.buf : NULL;
    int rc;
    poller_release(&poll);
    rc = pair_tables(self, tx.src, (int64_t)tx.n, &job);
    if (rc == 0 && N > 0) {
        cum[0] = 0;
        for (Py_ssize_t i = 0; i < N; i++)
            cum[i + 1] = cum[i] + (job.hyp_ptr[i + 1] - job.hyp_ptr[i]) + M * o.order / 4 + 1;
        int64_t bounds[MAX_THREADS + 1];
        split_weights(cum, N, threads, bounds);
        run_parts(pair_range, &job, ws, bounds, threads);
    }
    poller_acquire(&poll);
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
    buffer_release(&scores);
    buffer_release(&rows);
    return result;
}
