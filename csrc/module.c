/*
 * The Python entry points of bleukit._native_kernel (the glue is bleukit._native).
 *
 * Every entry point validates all of its arguments with the same checks (check_outputs and
 * int64_buffer below) before any work, as strictly as a public function would: the tokenize and
 * count steps then trust them. The work runs with the GIL released:
 *  - text: under the GIL a batch of sentences (about BATCH_CHARS code points) is gathered, each
 *    str held by a new reference (lowercased first with str.lower itself when it is not ASCII),
 *    then tokenized and counted without the GIL, reading the strings in place;
 *  - ids: the buffers are pinned for the whole call, so they are counted without the GIL at once.
 * Signals are checked between batches and, in the main thread (the only one where Python runs
 * signal handlers), inside long work every POLL_WORK units (kernel.poll), so Ctrl-C raises
 * KeyboardInterrupt within some 10 ms.
 *
 * Text items are read as their str value: a str subclass's overridden methods (lower() among
 * them) are never called, in this engine as in the Python one (bleukit.engine.preprocess).
 */
#include "kernel.h"

#include <string.h>

/* Code points gathered per release of the GIL: some 40 ms of work. The batch holds references,
 * not copies (32 bytes per segment), and every return to the GIL may wait a switch interval
 * (5 ms) for a thread running Python, so batches are large. */
#define BATCH_CHARS ((int64_t)1 << 22)
/* Keeps 2 + 2 * order and the row indices within an int. */
#define MAX_ORDER ((INT_MAX - 2) / 2)

static PyObject *str_lower; /* str.lower, unbound: a subclass cannot override it */

/* ------------------------------------------------------------------------------------------ */
/* the one argument check                                                                      */

static int is_int64_format(const char *f) {
    if (!f) return 0;
    if (*f == '@' || *f == '=' || *f == '<') f++; /* native order; '<' is native here (checked below) */
    return (f[0] == 'l' || f[0] == 'q') && f[1] == '\0';
}

/* A C-contiguous, 8-byte-aligned buffer of int64 (numpy int64 arrays are). */
static int int64_buffer(PyObject *obj, Py_buffer *view, int writable, const char *what) {
    const int flags = PyBUF_C_CONTIGUOUS | PyBUF_FORMAT | (writable ? PyBUF_WRITABLE : 0);
    if (PyObject_GetBuffer(obj, view, flags) < 0) return -1;
    const uint16_t probe = 1;
    const int little = *(const uint8_t *)&probe == 1;
    if (view->itemsize != 8 || !is_int64_format(view->format) || (view->format[0] == '<' && !little) ||
        ((uintptr_t)view->buf & 7u) != 0 || view->len % 8 != 0) {
        PyErr_Format(PyExc_TypeError, "%s must be a C-contiguous, aligned int64 array (format %.10s, itemsize %zd)",
                     what, view->format ? view->format : "?", view->itemsize);
        PyBuffer_Release(view);
        view->obj = NULL;
        return -1;
    }
    return 0;
}

typedef struct {
    Py_buffer rows, nrefs;
    Py_ssize_t width; /* 2 + 2 * order int64 per row */
} outputs;

static void release(Py_buffer *view) {
    if (view->obj) PyBuffer_Release(view);
    view->obj = NULL;
}

static void outputs_release(outputs *o) {
    release(&o->rows);
    release(&o->nrefs);
}

/* order in range; rows_out n x (2 + 2 order) and nrefs_out n writable int64, sizes checked
 * without overflow. */
static int check_outputs(int order, Py_ssize_t n, PyObject *rows, PyObject *nrefs, outputs *o) {
    memset(o, 0, sizeof(*o));
    if (order < 1 || order > MAX_ORDER) {
        PyErr_Format(PyExc_ValueError, "max_ngram_order must be between 1 and %d, got %d", MAX_ORDER, order);
        return -1;
    }
    if (n < 0) {
        PyErr_SetString(PyExc_ValueError, "the number of rows must be >= 0");
        return -1;
    }
    o->width = 2 + 2 * (Py_ssize_t)order;
    if (int64_buffer(rows, &o->rows, 1, "rows_out") < 0 || int64_buffer(nrefs, &o->nrefs, 1, "nrefs_out") < 0) {
        outputs_release(o);
        return -1;
    }
    const Py_ssize_t row_bytes = o->width * 8;
    if (n > PY_SSIZE_T_MAX / row_bytes || o->rows.len != n * row_bytes || o->nrefs.len != n * 8) {
        PyErr_Format(PyExc_ValueError, "output buffers have the wrong size for %zd rows of max_ngram_order %d", n,
                     order);
        outputs_release(o);
        return -1;
    }
    return 0;
}

/* Turn a failure of the work without the GIL into the matching exception. */
static void raise_kernel_error(const kernel *k) {
    if (PyErr_Occurred()) return; /* KERR_INTERRUPTED: the signal handler's exception is set */
    if (k->err == KERR_TOO_LONG)
        PyErr_SetString(PyExc_OverflowError, "sentence too long for the native kernel");
    else if (k->err == KERR_INTERRUPTED)
        PyErr_SetString(PyExc_KeyboardInterrupt, "");
    else
        PyErr_NoMemory();
}

/* kernel.poll: called without the GIL; takes it to run signal handlers, then releases it. */
static int poll_signals(void *state) {
    PyThreadState **saved = (PyThreadState **)state;
    PyEval_RestoreThread(*saved);
    const int r = PyErr_CheckSignals();
    *saved = PyEval_SaveThread();
    return r;
}

/* Python runs signal handlers in the main thread only: in another thread kernel.poll would take
 * the GIL (waiting for it, perhaps a whole switch interval) for nothing. */
static unsigned long main_thread_ident;

static void set_poll(kernel *k, PyThreadState **saved) {
    k->poll = PyThread_get_thread_ident() == main_thread_ident ? poll_signals : NULL;
    k->poll_state = saved;
}

/* ------------------------------------------------------------------------------------------ */
/* text                                                                                        */

typedef struct {
    PyObject **held; /* one new reference per segment: the str read without the GIL */
    segment_src *src;
    Py_ssize_t *nseg; /* per sentence of the batch: its segments (hypothesis + references) */
    size_t n_held, cap_held, cap_src, n_sent, cap_sent;
} batch;

static void batch_clear(batch *b) {
    for (size_t i = 0; i < b->n_held; i++) Py_DECREF(b->held[i]);
    b->n_held = b->n_sent = 0;
}

static void batch_free(batch *b) {
    batch_clear(b);
    PyMem_Free(b->held);
    PyMem_Free(b->src);
    PyMem_Free(b->nseg);
}

static int grow(void **p, size_t *cap, size_t need, size_t elem) {
    if (need <= *cap) return 0;
    size_t c = *cap ? *cap * 2 : 64;
    while (c < need) c *= 2;
    if (c > PY_SSIZE_T_MAX / elem) {
        PyErr_NoMemory();
        return -1;
    }
    void *q = PyMem_Realloc(*p, c * elem);
    if (!q) {
        PyErr_NoMemory();
        return -1;
    }
    *p = q;
    *cap = c;
    return 0;
}

/* Hold one segment for the batch; returns its length in code points, -1 on error. */
static Py_ssize_t add_segment(batch *b, PyObject *s, int lowercase, Py_ssize_t i, Py_ssize_t j) {
    if (!PyUnicode_Check(s)) {
        if (j < 0)
            PyErr_Format(PyExc_TypeError, "hypotheses[%zd] must be a str, got %.80s", i, Py_TYPE(s)->tp_name);
        else
            PyErr_Format(PyExc_TypeError, "references[%zd][%zd] must be a str, got %.80s", i, j,
                         Py_TYPE(s)->tp_name);
        return -1;
    }
    if (grow((void **)&b->held, &b->cap_held, b->n_held + 1, sizeof(PyObject *)) < 0 ||
        grow((void **)&b->src, &b->cap_src, b->n_held + 1, sizeof(segment_src)) < 0)
        return -1;
#if PY_VERSION_HEX < 0x030C0000
    if (PyUnicode_READY(s) < 0) return -1;
#endif
    int ascii_lower = 0;
    if (lowercase && PyUnicode_IS_ASCII(s)) {
        ascii_lower = 1; /* str.lower() on ASCII is exactly A-Z -> a-z: done while reading */
        Py_INCREF(s);
    } else if (lowercase) {
        s = PyObject_CallOneArg(str_lower, s);
        if (!s) return -1;
        if (!PyUnicode_CheckExact(s)) { /* str.lower always returns a str; never trust, though */
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
    segment_src *src = &b->src[b->n_held];
    src->data = PyUnicode_DATA(s);
    src->len = (size_t)PyUnicode_GET_LENGTH(s);
    src->kind = PyUnicode_KIND(s);
    src->ascii_lower = ascii_lower;
    b->held[b->n_held++] = s;
    return PyUnicode_GET_LENGTH(s);
}

/* Gather sentence i (hypothesis and references) into the batch; returns its code points. */
static int64_t add_sentence(batch *b, PyObject *hyp, PyObject *refs_i, int lowercase, Py_ssize_t i) {
    if (grow((void **)&b->nseg, &b->cap_sent, b->n_sent + 1, sizeof(Py_ssize_t)) < 0) return -1;
    Py_ssize_t len = add_segment(b, hyp, lowercase, i, -1);
    if (len < 0) return -1;
    if (len > MAX_SENTENCE_CHARS) {
        PyErr_Format(PyExc_OverflowError, "sentence %zd is too long for the native kernel", i);
        return -1;
    }
    int64_t chars = len;
    if (!PyList_Check(refs_i) && !PyTuple_Check(refs_i)) { /* a str would be read as its characters */
        PyErr_Format(PyExc_TypeError, "references[%zd] must be a list of str, got %.80s", i, Py_TYPE(refs_i)->tp_name);
        return -1;
    }
    PyObject *rf = PySequence_Fast(refs_i, "references[i] must be a list of str");
    if (!rf) return -1;
    const Py_ssize_t nr = PySequence_Fast_GET_SIZE(rf);
    for (Py_ssize_t j = 0; j < nr; j++) {
        len = add_segment(b, PySequence_Fast_GET_ITEM(rf, j), lowercase, i, j);
        if (len < 0) {
            Py_DECREF(rf);
            return -1;
        }
        if (len > MAX_SENTENCE_CHARS - chars) { /* chars <= MAX_SENTENCE_CHARS: no overflow */
            Py_DECREF(rf);
            PyErr_Format(PyExc_OverflowError, "sentence %zd is too long for the native kernel", i);
            return -1;
        }
        chars += len;
    }
    Py_DECREF(rf);
    if (nr < 1) {
        PyErr_Format(PyExc_ValueError, "references[%zd] is empty", i);
        return -1;
    }
    b->nseg[b->n_sent++] = 1 + nr;
    return chars;
}

/* Tokenize and count the batch (no GIL needed) into rows and nrefs, which start at its first sentence. */
static int count_batch(kernel *k, const batch *b, int64_t *rows, int64_t *nrefs, Py_ssize_t width) {
    size_t seg = 0;
    for (size_t s = 0; s < b->n_sent; s++) {
        k->chars.n = k->tok_off.n = k->tok_len.n = k->tok_hash.n = k->seg_start.n = 0;
        for (Py_ssize_t j = 0; j < b->nseg[s]; j++)
            if (tokenize_segment(k, &b->src[seg++]) < 0) return -1; /* opens its segment in seg_start */
        k->seg_start.d[k->seg_start.n++] = (int64_t)k->tok_off.n; /* room left by tokenize_segment */
        if (count_sentence(k, rows + (Py_ssize_t)s * width, NULL) < 0) return -1;
        nrefs[s] = b->nseg[s] - 1;
    }
    return 0;
}

static PyObject *py_text_statistics(PyObject *self, PyObject *args) {
    (void)self;
    PyObject *hyps_in, *refs_in, *table_in, *rows_in, *nrefs_in;
    int tokenizer, lowercase, order, direct = 1;
    if (!PyArg_ParseTuple(args, "OOiiiOOO|i", &hyps_in, &refs_in, &tokenizer, &lowercase, &order, &table_in,
                          &rows_in, &nrefs_in, &direct))
        return NULL;
    PyObject *hyps = NULL, *refs = NULL, *result = NULL;
    Py_buffer table = {0};
    outputs out = {0};
    batch b = {0};
    kernel k;
    memset(&k, 0, sizeof(k));
    if (tokenizer < TOK_13A || tokenizer > TOK_NONE) {
        PyErr_Format(PyExc_ValueError, "unknown tokenizer code %d", tokenizer);
        goto done;
    }
    if (PyObject_GetBuffer(table_in, &table, PyBUF_SIMPLE) < 0) goto done;
    if (table.len != TABLE_SIZE) {
        PyErr_SetString(PyExc_ValueError, "character table must have 0x110000 entries");
        goto done;
    }
    if (PyUnicode_Check(hyps_in) || PyBytes_Check(hyps_in) || PyUnicode_Check(refs_in) || PyBytes_Check(refs_in)) {
        PyErr_SetString(PyExc_TypeError, "hypotheses and references must be sequences (of str, of lists of str)");
        goto done;
    }
    /* private copies of the outer sequences: nothing another thread does to the caller's lists
     * while the GIL is released can move an item under us */
    hyps = PySequence_List(hyps_in);
    if (!hyps) goto done;
    refs = PySequence_List(refs_in);
    if (!refs) goto done;
    const Py_ssize_t n = PyList_GET_SIZE(hyps);
    if (PyList_GET_SIZE(refs) != n) {
        PyErr_Format(PyExc_ValueError, "got %zd hypotheses but %zd reference lists", n, PyList_GET_SIZE(refs));
        goto done;
    }
    if (check_outputs(order, n, rows_in, nrefs_in, &out) < 0) goto done;
    k.cls = (const uint8_t *)table.buf;
    k.tokenizer = tokenizer;
    k.order = order;
    k.direct = direct;
    int64_t *rows = (int64_t *)out.rows.buf, *nrefs = (int64_t *)out.nrefs.buf;
    PyThreadState *saved = NULL;
    set_poll(&k, &saved);
    for (Py_ssize_t i = 0; i < n;) {
        const Py_ssize_t first = i;
        int64_t chars = 0;
        while (i < n && (i == first || chars < BATCH_CHARS)) {
            const int64_t c = add_sentence(&b, PyList_GET_ITEM(hyps, i), PyList_GET_ITEM(refs, i), lowercase, i);
            if (c < 0) goto done;
            chars += c;
            i++;
        }
        int rc;
        saved = PyEval_SaveThread();
        rc = count_batch(&k, &b, rows + first * out.width, nrefs + first, out.width);
        PyEval_RestoreThread(saved);
        batch_clear(&b);
        if (rc < 0) {
            raise_kernel_error(&k);
            goto done;
        }
        if (PyErr_CheckSignals() < 0) goto done;
    }
    result = Py_None;
    Py_INCREF(result);
done:
    batch_free(&b);
    kernel_free(&k);
    Py_XDECREF(hyps);
    Py_XDECREF(refs);
    release(&table);
    outputs_release(&out);
    return result;
}

/* ------------------------------------------------------------------------------------------ */
/* token ids                                                                                   */

/* The statistics of one flat batch: sequence j has lengths[j] ids (consecutive in tokens) and
 * belongs to row owner[j]; sequences are ordered by row, the hypothesis first. The ids of a row
 * are contiguous, so they are counted in place without a copy. */
static PyObject *py_ids_statistics_flat(PyObject *self, PyObject *args) {
    (void)self;
    PyObject *tok_in, *len_in, *own_in, *rows_in, *nrefs_in;
    Py_ssize_t n;
    int order;
    if (!PyArg_ParseTuple(args, "OOOniOO", &tok_in, &len_in, &own_in, &n, &order, &rows_in, &nrefs_in))
        return NULL;
    PyObject *result = NULL;
    Py_buffer tok = {0}, len = {0}, own = {0};
    outputs out = {0};
    kernel k;
    memset(&k, 0, sizeof(k));
    if (int64_buffer(tok_in, &tok, 0, "tokens") < 0 || int64_buffer(len_in, &len, 0, "lengths") < 0 ||
        int64_buffer(own_in, &own, 0, "owner") < 0 || check_outputs(order, n, rows_in, nrefs_in, &out) < 0)
        goto done;
    if (own.len != len.len) {
        PyErr_SetString(PyExc_ValueError, "flat ids: buffers have inconsistent sizes");
        goto done;
    }
    const Py_ssize_t nseq = len.len / 8, ntok = tok.len / 8;
    const int64_t *tokens = (const int64_t *)tok.buf, *lengths = (const int64_t *)len.buf;
    const int64_t *owner = (const int64_t *)own.buf;
    /* The whole layout is checked before any counting: no length is negative, every row has a
     * hypothesis and a reference, rows come in order, the lengths add up to the ids exactly
     * (summed without overflow: each is compared with what is left), and no row is longer than
     * the kernel's limits. */
    for (Py_ssize_t j = 0; j < nseq; j++)
        if (lengths[j] < 0) {
            PyErr_SetString(PyExc_ValueError, "flat ids: negative length");
            goto done;
        }
    {
        Py_ssize_t j = 0;
        int64_t left = ntok;
        for (Py_ssize_t i = 0; i < n; i++) {
            const Py_ssize_t first = j;
            int64_t row_len = 0;
            for (; j < nseq && owner[j] == i; j++) {
                if (lengths[j] > left) {
                    PyErr_SetString(PyExc_ValueError, "flat ids: lengths exceed the ids");
                    goto done;
                }
                left -= lengths[j];
                row_len += lengths[j];
            }
            if (j - first < 2) {
                PyErr_Format(PyExc_ValueError, "flat ids: row %zd needs a hypothesis and at least one reference", i);
                goto done;
            }
            if (lengths[first] > MAX_HYP_TOKENS || row_len > MAX_SENTENCE_CHARS) {
                PyErr_Format(PyExc_OverflowError, "flat ids: row %zd is too long for the native kernel", i);
                goto done;
            }
        }
        if (j != nseq || left != 0) {
            PyErr_SetString(PyExc_ValueError, "flat ids: sequences are not ordered by row or do not cover the ids");
            goto done;
        }
    }
    k.order = order;
    int64_t *rows = (int64_t *)out.rows.buf, *nrefs = (int64_t *)out.nrefs.buf;
    PyThreadState *saved = NULL;
    set_poll(&k, &saved);
    int rc = 0;
    saved = PyEval_SaveThread();
    {
        int64_t offset = 0;
        Py_ssize_t j = 0;
        for (Py_ssize_t i = 0; i < n && rc == 0; i++) {
            const int64_t row_start = offset;
            const Py_ssize_t first = j;
            k.seg_start.n = 0;
            for (; j < nseq && owner[j] == i; j++) {
                if (i64_reserve(&k, &k.seg_start, k.seg_start.n + 2) < 0) {
                    rc = -1;
                    break;
                }
                k.seg_start.d[k.seg_start.n++] = offset - row_start;
                offset += lengths[j];
            }
            if (rc < 0) break;
            k.seg_start.d[k.seg_start.n++] = offset - row_start;
            rc = count_sentence(&k, rows + i * out.width, tokens + row_start);
            nrefs[i] = (int64_t)(j - first - 1);
            if (rc == 0) rc = kernel_work(&k, (size_t)(offset - row_start) + 16);
        }
    }
    PyEval_RestoreThread(saved);
    if (rc < 0) {
        raise_kernel_error(&k);
        goto done;
    }
    result = Py_None;
    Py_INCREF(result);
done:
    kernel_free(&k);
    release(&tok);
    release(&len);
    release(&own);
    outputs_release(&out);
    return result;
}

/* ------------------------------------------------------------------------------------------ */
/* module                                                                                      */

static PyMethodDef methods[] = {
    {"text_statistics", py_text_statistics, METH_VARARGS,
     "text_statistics(hyps, refs, tokenizer, lowercase, order, table, rows_out, nrefs_out, direct=1)\n\n"
     "Fill rows_out (int64, n x (2 + 2 order)) and nrefs_out (int64, n) with the statistics of\n"
     "hyps[i] (a str) against refs[i] (a non-empty list of str). Tokenizer codes: 0 13a, 1 intl,\n"
     "2 zh, 3 char, 4 none; table is bleukit._native.character_table(). direct=0 applies the\n"
     "mteval rules one by one even where the one-pass form is exact (for tests).\n"
     "Releases the GIL while it counts."},
    {"ids_statistics_flat", py_ids_statistics_flat, METH_VARARGS,
     "ids_statistics_flat(tokens, lengths, owner, n_rows, order, rows_out, nrefs_out)\n\n"
     "The same statistics from a flat batch of int64 ids: one length and owner row per\n"
     "sequence, sequences ordered by row with the hypothesis first. Releases the GIL."},
    {NULL, NULL, 0, NULL}};

static struct PyModuleDef moduledef = {PyModuleDef_HEAD_INIT, "_native_kernel",
                                       "bleukit's compiled statistics kernel (see bleukit._native).",
                                       -1, methods, NULL, NULL, NULL, NULL};

PyMODINIT_FUNC PyInit__native_kernel(void) {
    if (!main_thread_ident) { /* threading.main_thread().ident: where signal handlers run */
        PyObject *threading = PyImport_ImportModule("threading");
        PyObject *main = threading ? PyObject_CallMethod(threading, "main_thread", NULL) : NULL;
        PyObject *ident = main ? PyObject_GetAttrString(main, "ident") : NULL;
        Py_XDECREF(threading);
        Py_XDECREF(main);
        if (!ident) return NULL;
        main_thread_ident = PyLong_AsUnsignedLong(ident);
        Py_DECREF(ident);
        if (PyErr_Occurred()) return NULL;
    }
    if (!str_lower) {
        str_lower = PyObject_GetAttrString((PyObject *)&PyUnicode_Type, "lower");
        if (!str_lower) return NULL;
    }
    PyObject *m = PyModule_Create(&moduledef);
    if (!m) return NULL;
    if (PyModule_AddIntConstant(m, "TABLE_SIZE", TABLE_SIZE) < 0 ||
        PyModule_AddIntConstant(m, "CLS_P", CLS_P) < 0 || PyModule_AddIntConstant(m, "CLS_S", CLS_S) < 0 ||
        PyModule_AddIntConstant(m, "CLS_N", CLS_N) < 0 || PyModule_AddIntConstant(m, "CLS_ZH", CLS_ZH) < 0 ||
        PyModule_AddIntConstant(m, "CLS_13A", CLS_13A) < 0 ||
        PyModule_AddIntConstant(m, "CLS_DIGIT", CLS_DIGIT) < 0 ||
        PyModule_AddIntConstant(m, "MAX_ORDER", MAX_ORDER) < 0) {
        Py_DECREF(m);
        return NULL;
    }
    return m;
}
