/*
 * pair_matches and unique_rows of bleukit.metrics.bleu._kernel: clipped n-gram matches of every
 * hypothesis against every reference.
 *
 * The Python side (bleukit.metrics.bleu.pairs) tokenizes and counts each sentence once and hands over two
 * counted tables with n-grams as integer ids:
 *   - per hypothesis i, its entries hyp_ptr[i] .. hyp_ptr[i+1]: (n-gram id, order - 1, count);
 *   - per n-gram id g, its postings post_ptr[g] .. post_ptr[g+1]: (reference j, count).
 * For each hypothesis this loop walks its n-grams and, through the postings, adds
 * min(hypothesis count, reference count) to the matches of every reference holding that n-gram
 * (sacreBLEU's clip with a single reference). Pairs sharing no n-gram cost nothing, so unrelated
 * sentences are cheap and near-duplicates (MBR samples) cost what a per-pair merge would.
 * Lengths, totals and the BLEU formula stay in Python (bleukit.metrics.bleu.formula). A second
 * entry point, unique_rows, finds the distinct statistics rows so that only those are scored.
 *
 * All arrays are checked (int64 buffers, sizes, monotone pointers, ids in range) before the GIL
 * is released; the loop then runs on `threads` threads over disjoint hypothesis ranges (disjoint
 * output rows). In the main thread the calling thread polls for signals every 10 ms (common/poll.h)
 * while it works and while it waits for the others, so Ctrl-C stops even one long call; the
 * other threads then stop at their next report.
 * Every call works on its own buffers (the module's state, module.c, holds threading.main_thread
 * for the poll).
 */
#include "module.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "common/pool.h"

#define PAIRWISE_THREADS POOL_THREADS

typedef struct {
    const int64_t *hyp_ptr, *hyp_gid, *hyp_ord, *hyp_cnt;
    const int64_t *post_ptr, *post_ref, *post_cnt;
    int64_t *out; /* (i1 - i0) x m x width, zeroed by the caller; matches at columns offset.. */
    int64_t i0, i1, m, width, offset;
} job;

/* ------------------------------------------------------------------------------------------ */
/* progress: the calling thread polls, worker threads ask whether it was interrupted           */

#if PAIRWISE_THREADS
/* What the calling thread and its workers (common/pool.h) share. */
typedef struct {
    pool pool; /* its lock guards `stop` */
    int stop;  /* the caller was interrupted: workers stop at their next report */
} crew;

static int crew_stopped(crew *c) {
    pool_lock(&c->pool);
    const int stop = c->stop;
    pool_unlock(&c->pool);
    return stop;
}

static void crew_set_stop(crew *c) {
    pool_lock(&c->pool);
    c->stop = 1;
    pool_unlock(&c->pool);
}
#else
typedef int crew; /* no worker threads */
#endif

/* How a range of rows reports its work: with `poll` (the calling thread) it polls for signals,
 * without (a worker) it asks the crew whether to stop. */
typedef struct {
    poller *poll;
    crew *crew; /* NULL without workers */
} reporter;

/* -1: stop (a signal handler raised in the calling thread, or the caller says so). */
static int report(const reporter *r, size_t units) {
    if (r->poll) {
        if (poller_work(r->poll, units) == 0) return 0;
#if PAIRWISE_THREADS
        if (r->crew) crew_set_stop(r->crew);
#endif
        return -1;
    }
#if PAIRWISE_THREADS
    return crew_stopped(r->crew) ? -1 : 0;
#else
    return 0;
#endif
}

/* ------------------------------------------------------------------------------------------ */
/* the match loop                                                                              */

/* Rows lo..hi-1; a unit of work is one posting added (or one n-gram entry). -1: stopped. */
static int run_rows(const job *jb, int64_t lo, int64_t hi, const reporter *r) {
    const int64_t stride = jb->width, per_hyp = jb->m * stride;
    size_t units = 0;
    for (int64_t i = lo; i < hi; i++) {
        int64_t *row = jb->out + (i - jb->i0) * per_hyp + jb->offset;
        for (int64_t e = jb->hyp_ptr[i]; e < jb->hyp_ptr[i + 1]; e++) {
            const int64_t g = jb->hyp_gid[e], h = jb->hyp_cnt[e];
            int64_t *col = row + jb->hyp_ord[e];
            const int64_t start = jb->post_ptr[g], end = jb->post_ptr[g + 1];
            for (int64_t p = start; p < end; p++) {
                const int64_t c = jb->post_cnt[p];
                col[jb->post_ref[p] * stride] += c < h ? c : h;
            }
            units += (size_t)(end - start) + 1;
            if (units >= POLL_SLICE) {
                if (report(r, units) < 0) return -1;
                units = 0;
            }
        }
    }
    return report(r, units);
}

#if PAIRWISE_THREADS
typedef struct {
    const job *jb;
    int64_t lo, hi;
    crew *crew;
} slice;

static void run_slice(void *arg) {
    const slice *s = (const slice *)arg;
    const reporter r = {NULL, s->crew};
    run_rows(s->jb, s->lo, s->hi, &r);
}

/* The calling thread's poll while it waits for the workers (pool_finish): a raised handler tells
 * the workers to stop; the wait goes on until they have (they use the caller's buffers). */
typedef struct {
    poller *poll;
    crew *crew;
    int rc; /* -1 once interrupted */
} waiting;

static int crew_poll(void *arg) {
    waiting *w = (waiting *)arg;
    w->rc = poller_check(w->poll);
    if (w->rc < 0) crew_set_stop(w->crew);
    return w->rc;
}


/* Rows i0..i1-1 on `threads` threads: the last slice on this one, a slice whose thread cannot
 * start here too. Equal numbers of hypothesis entries per thread rather than equal rows: entries
 * are the work. -1 when interrupted. */
static int run_threads(const job *jb, int threads, poller *p) {
    slice parts[MAX_THREADS];
    crew c;
    c.stop = 0;
    if (pool_init(&c.pool) < 0) {
        const reporter r = {p, NULL};
        return run_rows(jb, jb->i0, jb->i1, &r);
    }
    const reporter mine = {p, &c};
    const int64_t first = jb->hyp_ptr[jb->i0], span = jb->hyp_ptr[jb->i1] - first;
    int64_t lo = jb->i0;
    int rc = 0;
    for (int t = 0; t < threads; t++) {
        int64_t hi = jb->i1;
        if (t + 1 < threads) {
            const int64_t goal = first + span / threads * (t + 1) + span % threads * (t + 1) / threads;
            hi = lo;
            while (hi < jb->i1 && jb->hyp_ptr[hi] < goal) hi++;
        }
        parts[t].jb = jb;
        parts[t].lo = lo;
        parts[t].hi = hi;
        parts[t].crew = &c;
        lo = hi;
        int started = 0;
        if (t + 1 < threads && rc == 0) started = pool_start(&c.pool, run_slice, &parts[t]) == 0;
        if (!started && rc == 0) rc = run_rows(jb, parts[t].lo, parts[t].hi, &mine);
    }
    waiting w = {p, &c, rc};
    pool_finish(&c.pool, p->enabled && rc == 0 ? crew_poll : NULL, &w);
    return w.rc;
}
#endif

/* ------------------------------------------------------------------------------------------ */
/* argument checks                                                                             */

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

/* ------------------------------------------------------------------------------------------ */
/* entry points                                                                                */

enum { HYP_PTR, HYP_GID, HYP_ORD, HYP_CNT, POST_PTR, POST_REF, POST_CNT, OUT, N_ARRAYS };

PyObject *py_pair_matches(PyObject *module, PyObject *args) {
    static const char *const names[N_ARRAYS] = {"pairwise: hyp_ptr",  "pairwise: hyp_gid",  "pairwise: hyp_ord",
                                                "pairwise: hyp_cnt",  "pairwise: post_ptr", "pairwise: post_ref",
                                                "pairwise: post_cnt", "pairwise: out"};
    PyObject *in[N_ARRAYS];
    Py_buffer view[N_ARRAYS];
    Py_ssize_t i0, i1, m, width = -1, offset = 0;
    int order, threads;
    if (!PyArg_ParseTuple(args, "OOOOOOOnnniOi|nn:pair_matches", &in[HYP_PTR], &in[HYP_GID], &in[HYP_ORD],
                          &in[HYP_CNT], &in[POST_PTR], &in[POST_REF], &in[POST_CNT], &i0, &i1, &m, &order, &in[OUT],
                          &threads, &width, &offset))
        return NULL;
    const module_state *st = state_of(module);
    PyObject *result = NULL;
    memset(view, 0, sizeof(view));
    for (int a = 0; a < N_ARRAYS; a++)
        if (int64_buffer(in[a], &view[a], a == OUT, names[a]) < 0) goto done;
    const Py_ssize_t n_hyp_ptr = int64_items(&view[HYP_PTR]), n_ent = int64_items(&view[HYP_GID]);
    const Py_ssize_t n_post_ptr = int64_items(&view[POST_PTR]), n_post = int64_items(&view[POST_REF]);
    const Py_ssize_t n_out = int64_items(&view[OUT]);
    if (order < 1 || m < 0 || n_hyp_ptr < 1 || n_post_ptr < 1) {
        PyErr_SetString(PyExc_ValueError, "pairwise: order must be >= 1, m >= 0 and pointers non-empty");
        goto done;
    }
    if (width < 0) width = order;
    if (offset < 0 || offset > width - order) {
        PyErr_SetString(PyExc_ValueError, "pairwise: the matches columns (offset .. offset + order) must lie within width");
        goto done;
    }
    if (int64_items(&view[HYP_ORD]) != n_ent || int64_items(&view[HYP_CNT]) != n_ent ||
        int64_items(&view[POST_CNT]) != n_post) {
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
    const int64_t *hyp_ptr = (const int64_t *)view[HYP_PTR].buf, *hyp_gid = (const int64_t *)view[HYP_GID].buf;
    const int64_t *hyp_ord = (const int64_t *)view[HYP_ORD].buf, *hyp_cnt = (const int64_t *)view[HYP_CNT].buf;
    const int64_t *post_ptr = (const int64_t *)view[POST_PTR].buf, *post_ref = (const int64_t *)view[POST_REF].buf;
    const int64_t *post_cnt = (const int64_t *)view[POST_CNT].buf;
    if (check_ptr(hyp_ptr, n_hyp, n_ent, "hyp_ptr") < 0 || check_ptr(post_ptr, n_gid, n_post, "post_ptr") < 0 ||
        check_range(hyp_gid, n_ent, 0, n_gid, "hyp_gid") < 0 || check_range(hyp_ord, n_ent, 0, order, "hyp_ord") < 0 ||
        check_range(hyp_cnt, n_ent, 0, INT64_MAX, "hyp_cnt") < 0 || check_range(post_ref, n_post, 0, m, "post_ref") < 0 ||
        check_range(post_cnt, n_post, 0, INT64_MAX, "post_cnt") < 0)
        goto done;

    job jb = {hyp_ptr, hyp_gid, hyp_ord, hyp_cnt, post_ptr, post_ref, post_cnt, (int64_t *)view[OUT].buf,
              i0, i1, m, width, offset};
    threads = thread_count(threads, i1 - i0, MAX_THREADS);
    poller poll;
    if (poller_start(&poll, st->main_thread) < 0) goto done;
    int rc;
    poller_release(&poll);
    memset(view[OUT].buf, 0, (size_t)view[OUT].len);
#if PAIRWISE_THREADS
    rc = run_threads(&jb, threads, &poll);
#else
    {
        const reporter r = {&poll, NULL};
        rc = run_rows(&jb, i0, i1, &r);
    }
#endif
    poller_acquire(&poll);
    if (rc == 0) {
        result = Py_None;
        Py_INCREF(result);
    } else if (!PyErr_Occurred()) {
        PyErr_SetString(PyExc_KeyboardInterrupt, "");
    }
done:
    for (int a = 0; a < N_ARRAYS; a++) buffer_release(&view[a]);
    return result;
}

/* Distinct rows of an int64 (R, width) table, by hashing: first_out[k] is the first row of the
 * k-th distinct row, inverse_out[r] the distinct row of row r; returns their number. Pairwise
 * statistics repeat a lot (at N = 1024 real sentences, 1M pairs have some 37k distinct rows), so
 * bleukit.metrics.bleu.pairs scores the distinct rows only. */

PyObject *py_unique_rows(PyObject *module, PyObject *args) {
    PyObject *rows_in, *first_in, *inverse_in;
    Py_buffer rb = {0}, fb = {0}, ib = {0};
    Py_ssize_t width;
    if (!PyArg_ParseTuple(args, "OnOO:unique_rows", &rows_in, &width, &first_in, &inverse_in)) return NULL;
    const module_state *st = state_of(module);
    PyObject *result = NULL;
    if (int64_buffer(rows_in, &rb, 0, "unique_rows: rows") < 0 ||
        int64_buffer(first_in, &fb, 1, "unique_rows: first_out") < 0 ||
        int64_buffer(inverse_in, &ib, 1, "unique_rows: inverse_out") < 0)
        goto done;
    const Py_ssize_t n_items = int64_items(&rb);
    if (width < 1 || n_items % width != 0) {
        PyErr_SetString(PyExc_ValueError, "unique_rows: rows must hold whole rows of width >= 1");
        goto done;
    }
    const Py_ssize_t n = n_items / width;
    if (int64_items(&fb) != n || int64_items(&ib) != n) {
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
    poller poll;
    if (poller_start(&poll, st->main_thread) < 0) {
        free(table);
        goto done;
    }
    const int64_t *rows = (const int64_t *)rb.buf;
    int64_t *first = (int64_t *)fb.buf, *inverse = (int64_t *)ib.buf;
    int64_t k = 0;
    int rc = 0;
    poller_release(&poll);
    memset(table, 0xff, cap * sizeof(int64_t)); /* -1: empty slot */
    const size_t mask = cap - 1;
    for (Py_ssize_t r = 0; r < n && rc == 0; r++) {
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
        rc = poller_work(&poll, (size_t)width);
    }
    poller_acquire(&poll);
    free(table);
    if (rc == 0) result = PyLong_FromLongLong((long long)k);
    else if (!PyErr_Occurred()) PyErr_SetString(PyExc_KeyboardInterrupt, "");
done:
    buffer_release(&rb);
    buffer_release(&fb);
    buffer_release(&ib);
    return result;
}
