/*
 * statistics() and sentence() of bleukit.metrics.chrf._kernel: one row per hypothesis against the
 * best of its references, on `threads` threads without the GIL; one sentence without a table.
 */
#include "chrf.h"
#include "common/entries.h"

#include <stdlib.h>

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

PyObject *py_statistics(PyObject *module, PyObject *args) {
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
        poller_release(&poll);
        run_parts(stats_range, &job, ws + (n_workers - parts), bounds, parts);
        poller_acquire(&poll);
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
    buffer_release(&out);
    return result;
}

/* Code points up to which one sentence is counted without releasing the GIL (tens of µs). */
#define SHORT_SENTENCE_CHARS ((int64_t)1 << 14)

/* sentence(hyp, refs, char_order, word_order, lowercase, whitespace, eps_smoothing, factor,
 * one_plus, punctuation, normalize): the statistics row of one hypothesis against its references
 * (an entry as entries.h reads it), as a tuple of 3 * order ints and then the number of
 * references: sentence chrF without a table. A short sentence is counted holding the GIL, in a
 * worker the module keeps for the next call (its character map is allocated once: that is most
 * of a one-sentence statistics() call); a long one releases the GIL and polls for signals. */
PyObject *py_sentence(PyObject *module, PyObject *args) {
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
    shared sh = {0};
    poller poll;
    w->o = &o;
    w->sh = &sh;
    w->err = ERR_NONE;
    w->work = 0;
    int rc;
    if (short_one) {
        poll.enabled = 0; /* the GIL is not released: nothing to poll */
        w->poll = &poll;
        rc = sentence_row(w, tx.src, tx.n, row);
    } else {
        if (poller_start(&poll, st->main_thread) < 0) goto done;
        w->poll = &poll;
        poller_release(&poll);
        rc = sentence_row(w, tx.src, tx.n, row);
        poller_acquire(&poll);
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
