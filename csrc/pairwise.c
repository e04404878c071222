/*
 * bleukit pairwise kernel: clipped n-gram matches of every hypothesis against every reference.
 *
 * The Python side (bleukit.pairwise) tokenizes and counts each sentence once and hands over two
 * counted tables with n-grams as integer ids:
 *   - per hypothesis i, its entries hyp_ptr[i] .. hyp_ptr[i+1]: (n-gram id, order - 1, count);
 *   - per n-gram id g, its postings post_ptr[g] .. post_ptr[g+1]: (reference j, count).
 * For each hypothesis this loop walks its n-grams and, through the postings, adds
 * min(hypothesis count, reference count) to the matches of every reference holding that n-gram
 * (sacreBLEU's clip with a single reference). Pairs sharing no n-gram cost nothing, so unrelated
 * sentences are cheap and near-duplicates (MBR samples) cost what a per-pair merge would.
 * Lengths, totals and the BLEU formula stay in Python (bleukit.scoring). A second entry point,
 * unique_rows, finds the distinct statistics rows so that only those are scored.
 *
 * All arrays are checked (sizes, monotone pointers, ids in range) before the GIL is released;
 * the loop then runs on `threads` threads over disjoint hypothesis ranges (disjoint output rows).
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include "hash.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#ifndef _WIN32
#include <pthread.h>
#define PAIRWISE_THREADS 1
#else
#define PAIRWISE_THREADS 0
#endif

typedef struct {
    const int64_t *hyp_ptr, *hyp_gid, *hyp_ord, *hyp_cnt;
    const int64_t *post_ptr, *post_ref, *post_cnt;
    int64_t *out; /* (i1 - i0) x m x width, zeroed by the caller; matches at columns offset.. */
    int64_t i0, i1, m, width, offset;
} job;

static void run_rows(const job *jb, int64_t lo, int64_t hi) {
    const int64_t stride = jb->width, per_hyp = jb->m * stride;
    for (int64_t i = lo; i < hi; i++) {
        int64_t *row = jb->out + (i - jb->i0) * per_hyp + jb->offset;
        for (int64_t e = jb->hyp_ptr[i]; e < jb->hyp_ptr[i + 1]; e++) {
            const int64_t g = jb->hyp_gid[e], h = jb->hyp_cnt[e];
            int64_t *col = row + jb->hyp_ord[e];
            const int64_t end = jb->post_ptr[g + 1];
            for (int64_t p = jb->post_ptr[g]; p < end; p++) {
                const int64_t r = jb->post_cnt[p];
                col[jb->post_ref[p] * stride] += r < h ? r : h;
            }
        }
    }
}

#if PAIRWISE_THREADS
typedef struct {
    const job *jb;
    int64_t lo, hi;
} slice;

static void *run_slice(void *arg) {
    const slice *s = (const slice *)arg;
    run_rows(s->jb, s->lo, s->hi);
    return NULL;
}
#endif

/* Number of int64 items in a buffer, or -1 (with an exception) when it is not a whole number. */
static Py_ssize_t items(const Py_buffer *b, const char *name) {
    if (b->len % (Py_ssize_t)sizeof(int64_t) != 0) {
        PyErr_Format(PyExc_ValueError, "pairwise: %s is not an int64 buffer", name);
        return -1;
    }
    return b->len / (Py_ssize_t)sizeof(int64_t);
}

/* ptr has n + 1 entries, starts at 0, never decreases and ends at `total`. */
static int check_ptr(const int64_t *ptr, Py_ssize_t n, Py_ssize_t total, const char *name) {
    if (ptr[0] != 0 || ptr[n] != (int64_t)total) {
        PyErr_Format(PyExc_ValueError, "pairwise: %s does not cover its entries", name);
        return -1;
    }
    for (Py_ssize_t i = 0; i < n; i++) {
        if (ptr[i + 1] < ptr[i]) {
            PyErr_Format(PyExc_ValueError, "pairwise: %s decreases at %zd", name, i);
            return -1;
        }
    }
    return 0;
}

static int check_range(const int64_t *x, Py_ssize_t n, int64_t lo, int64_t hi, const char *name) {
    for (Py_ssize_t i = 0; i < n; i++) {
        if (x[i] < lo || x[i] >= hi) {
            PyErr_Format(PyExc_ValueError, "pairwise: %s[%zd] = %lld is outside [%lld, %lld)", name, i,
                         (long long)x[i], (long long)lo, (long long)hi);
            return -1;
        }
    }
    return 0;
}

static PyObject *py_pair_matches(PyObject *self, PyObject *args) {
    Py_buffer hp = {0}, hg = {0}, ho = {0}, hc = {0}, pp = {0}, pr = {0}, pc = {0}, out = {0};
    Py_ssize_t i0, i1, m, width = -1, offset = 0;
    int order, threads;
    (void)self;
    if (!PyArg_ParseTuple(args, "y*y*y*y*y*y*y*nnniw*i|nn", &hp, &hg, &ho, &hc, &pp, &pr, &pc, &i0, &i1, &m,
                          &order, &out, &threads, &width, &offset))
        return NULL;
    PyObject *result = NULL;
    Py_ssize_t n_hyp_ptr, n_ent, n_post_ptr, n_post, n_out;
    if ((n_hyp_ptr = items(&hp, "hyp_ptr")) < 0 || (n_ent = items(&hg, "hyp_gid")) < 0 ||
        (n_post_ptr = items(&pp, "post_ptr")) < 0 || (n_post = items(&pr, "post_ref")) < 0 ||
        (n_out = items(&out, "out")) < 0)
        goto done;
    if (order < 1 || m < 0 || n_hyp_ptr < 1 || n_post_ptr < 1) {
        PyErr_SetString(PyExc_ValueError, "pairwise: order must be >= 1, m >= 0 and pointers non-empty");
        goto done;
    }
    if (width < 0) width = order;
    if (offset < 0 || offset > width - order) {
        PyErr_SetString(PyExc_ValueError, "pairwise: the matches columns (offset .. offset + order) must lie within width");
        goto done;
    }
    if (ho.len != hg.len || hc.len != hg.len || pc.len != pr.len) {
        PyErr_SetString(PyExc_ValueError, "pairwise: entry arrays have different lengths");
        goto done;
    }
    const Py_ssize_t n_hyp = n_hyp_ptr - 1, n_gid = n_post_ptr - 1;
    if (i0 < 0 || i1 < i0 || i1 > n_hyp) {
        PyErr_Format(PyExc_ValueError, "pairwise: hypothesis range [%zd, %zd) outside [0, %zd)", i0, i1, n_hyp);
        goto done;
    }
    /* out holds (i1 - i0) * m * width items: checked by division so the product cannot overflow */
    {
        const Py_ssize_t rows = i1 - i0;
        const Py_ssize_t per_row = m;
        if (rows > 0 && (per_row > PY_SSIZE_T_MAX / width || per_row * width > PY_SSIZE_T_MAX / rows ||
                         n_out != rows * per_row * width)) {
            PyErr_SetString(PyExc_ValueError, "pairwise: out must hold (i1 - i0) * m * width int64 values");
            goto done;
        }
        if (rows == 0 && n_out != 0) {
            PyErr_SetString(PyExc_ValueError, "pairwise: out must be empty for an empty range");
            goto done;
        }
    }
    const int64_t *hyp_ptr = (const int64_t *)hp.buf, *hyp_gid = (const int64_t *)hg.buf;
    const int64_t *hyp_ord = (const int64_t *)ho.buf, *hyp_cnt = (const int64_t *)hc.buf;
    const int64_t *post_ptr = (const int64_t *)pp.buf, *post_ref = (const int64_t *)pr.buf;
    const int64_t *post_cnt = (const int64_t *)pc.buf;
    if (check_ptr(hyp_ptr, n_hyp, n_ent, "hyp_ptr") < 0 || check_ptr(post_ptr, n_gid, n_post, "post_ptr") < 0 ||
        check_range(hyp_gid, n_ent, 0, n_gid, "hyp_gid") < 0 || check_range(hyp_ord, n_ent, 0, order, "hyp_ord") < 0 ||
        check_range(hyp_cnt, n_ent, 0, INT64_MAX, "hyp_cnt") < 0 || check_range(post_ref, n_post, 0, m, "post_ref") < 0 ||
        check_range(post_cnt, n_post, 0, INT64_MAX, "post_cnt") < 0)
        goto done;

    job jb = {hyp_ptr, hyp_gid, hyp_ord, hyp_cnt, post_ptr, post_ref, post_cnt, (int64_t *)out.buf, i0, i1, m, width, offset};
    memset(out.buf, 0, (size_t)out.len);
    if (threads < 1) threads = 1;
    if (threads > 64) threads = 64;
    if ((Py_ssize_t)threads > i1 - i0) threads = (int)(i1 - i0 > 0 ? i1 - i0 : 1);
    Py_BEGIN_ALLOW_THREADS
#if PAIRWISE_THREADS
    if (threads > 1) {
        pthread_t tid[64];
        slice parts[64];
        int created[64];
        /* Equal numbers of hypothesis entries per thread rather than equal rows: entries are the work. */
        const int64_t first = hyp_ptr[i0], span = hyp_ptr[i1] - first;
        int64_t lo = i0;
        for (int t = 0; t < threads; t++) {
            int64_t hi = i1;
            if (t + 1 < threads) {
                const int64_t goal = first + span / threads * (t + 1) + span % threads * (t + 1) / threads;
                hi = lo;
                while (hi < i1 && hyp_ptr[hi] < goal) hi++;
            }
            parts[t].jb = &jb;
            parts[t].lo = lo;
            parts[t].hi = hi;
            lo = hi;
            /* the last slice runs on this thread; a thread that cannot start is run here too */
            created[t] = t + 1 < threads && pthread_create(&tid[t], NULL, run_slice, &parts[t]) == 0;
            if (!created[t]) run_rows(&jb, parts[t].lo, parts[t].hi);
        }
        for (int t = 0; t < threads; t++)
            if (created[t]) pthread_join(tid[t], NULL);
    } else
#endif
    {
        run_rows(&jb, i0, i1);
    }
    Py_END_ALLOW_THREADS
    result = Py_None;
    Py_INCREF(result);
done:
    PyBuffer_Release(&hp);
    PyBuffer_Release(&hg);
    PyBuffer_Release(&ho);
    PyBuffer_Release(&hc);
    PyBuffer_Release(&pp);
    PyBuffer_Release(&pr);
    PyBuffer_Release(&pc);
    if (out.obj) PyBuffer_Release(&out);
    return result;
}

/* Distinct rows of an int64 (R, width) table, by hashing: first_out[k] is the first row of the
 * k-th distinct row, inverse_out[r] the distinct row of row r; returns their number. Pairwise
 * statistics repeat a lot (at N = 1024 real sentences, 1M pairs have some 37k distinct rows), so
 * bleukit.pairwise scores the distinct rows only. */

static PyObject *py_unique_rows(PyObject *self, PyObject *args) {
    Py_buffer rb = {0}, fb = {0}, ib = {0};
    Py_ssize_t width;
    (void)self;
    if (!PyArg_ParseTuple(args, "y*nw*w*", &rb, &width, &fb, &ib)) return NULL;
    PyObject *result = NULL;
    Py_ssize_t n_items, n_first, n_inv;
    if ((n_items = items(&rb, "rows")) < 0 || (n_first = items(&fb, "first_out")) < 0 ||
        (n_inv = items(&ib, "inverse_out")) < 0)
        goto done;
    if (width < 1 || n_items % width != 0) {
        PyErr_SetString(PyExc_ValueError, "unique_rows: rows must hold whole rows of width >= 1");
        goto done;
    }
    const Py_ssize_t n = n_items / width;
    if (n_first != n || n_inv != n) {
        PyErr_SetString(PyExc_ValueError, "unique_rows: first_out and inverse_out need one entry per row");
        goto done;
    }
    size_t cap = 16;
    while (cap < (size_t)n * 2) cap *= 2; /* n <= PY_SSIZE_T_MAX / 8, so this cannot overflow */
    int64_t *table = (int64_t *)malloc(cap * sizeof(int64_t));
    if (!table) {
        PyErr_NoMemory();
        goto done;
    }
    const int64_t *rows = (const int64_t *)rb.buf;
    int64_t *first = (int64_t *)fb.buf, *inverse = (int64_t *)ib.buf;
    int64_t k = 0;
    Py_BEGIN_ALLOW_THREADS
    memset(table, 0xff, cap * sizeof(int64_t)); /* -1: empty slot */
    const size_t mask = cap - 1;
    for (Py_ssize_t r = 0; r < n; r++) {
        const int64_t *row = rows + r * width;
        uint64_t h = 0x9e3779b97f4a7c15ULL;
        for (Py_ssize_t c = 0; c < width; c++) h = mix64(h ^ (uint64_t)row[c]);
        size_t slot = (size_t)h & mask;
        for (;;) {
            const int64_t u = table[slot];
            if (u < 0) {
                table[slot] = k;
                first[k] = r;
                inverse[r] = k++;
                break;
            }
            if (memcmp(rows + first[u] * width, row, (size_t)width * sizeof(int64_t)) == 0) {
                inverse[r] = u;
                break;
            }
            slot = (slot + 1) & mask;
        }
    }
    Py_END_ALLOW_THREADS
    free(table);
    result = PyLong_FromLongLong((long long)k);
done:
    PyBuffer_Release(&rb);
    if (fb.obj) PyBuffer_Release(&fb);
    if (ib.obj) PyBuffer_Release(&ib);
    return result;
}

static PyMethodDef methods[] = {
    {"pair_matches", py_pair_matches, METH_VARARGS,
     "pair_matches(hyp_ptr, hyp_gid, hyp_ord, hyp_cnt, post_ptr, post_ref, post_cnt, i0, i1, m, order, out, threads,\n"
     "             width=order, offset=0)\n\n"
     "Zero out (int64, (i1 - i0) x m x width) and write the clipped n-gram matches of hypotheses i0..i1-1\n"
     "against references 0..m-1 into its columns offset..offset+order-1, from the counted tables\n"
     "(all int64, see csrc/pairwise.c)."},
    {"unique_rows", py_unique_rows, METH_VARARGS,
     "unique_rows(rows, width, first_out, inverse_out) -> k\n\n"
     "Distinct rows of an int64 table: first_out[:k] their first row indices, inverse_out each row's distinct row."},
    {NULL, NULL, 0, NULL}};

static struct PyModuleDef moduledef = {PyModuleDef_HEAD_INIT, "_pairwise_kernel",
                                       "bleukit's compiled pairwise match loop (see bleukit.pairwise).",
                                       -1, methods, NULL, NULL, NULL, NULL};

PyMODINIT_FUNC PyInit__pairwise_kernel(void) { return PyModule_Create(&moduledef); }
