/*
 * The Python entry points of bleukit._native_kernel (the glue is bleukit._native; the typed
 * signatures are in src/bleukit/_native_kernel.pyi).
 *
 * Every entry point validates all of its arguments with the same checks (check_outputs and
 * pyhelpers.h's int64_buffer) before any work, as strictly as a public function would: the
 * tokenize and count steps then trust them. The work runs with the GIL released:
 *  - text: under the GIL a batch of sentences (about BATCH_CHARS code points) is gathered, each
 *    str held by a new reference (lowercased first with str.lower itself when it is not ASCII),
 *    then tokenized and counted without the GIL, reading the strings in place;
 *  - ids: the buffers are pinned for the whole call, so they are counted without the GIL at once.
 * Signals are checked between batches and, in the main thread (the only one where Python runs
 * signal handlers), inside long work every 10 ms (poll.h), even within one enormous sentence, so
 * Ctrl-C raises KeyboardInterrupt within some 10 ms.
 *
 * The module keeps no global state (multi-phase init, PEP 489; its state is str.lower and
 * threading.main_thread), so it loads in subinterpreters, and it declares that it does not need
 * the GIL: on a free-threaded build importing it leaves the GIL off. Every call works in its own
 * workspace, holds references to the str it reads and copies the outer lists, so concurrent
 * calls share nothing.
 *
 * Text items are read as their str value: a str subclass's overridden methods (lower() among
 * them) are never called, in this engine as in the Python one (bleukit.engine.preprocess).
 */
#include "kernel.h"
#include "pyhelpers.h"

#include <stdlib.h>
#include <string.h>

/* Code points gathered per release of the GIL: some 40 ms of work. The batch holds references,
 * not copies (32 bytes per segment), and every return to the GIL may wait a switch interval
 * (5 ms) for a thread running Python, so batches are large. A sentence counts as SENTENCE_CHARS
 * code points more than it has, so that a batch of empty sentences is bounded too. */
#define BATCH_CHARS ((int64_t)1 << 22)
#define SENTENCE_CHARS 16
/* Keeps 2 + 2 * order and the row indices within an int. */
#define MAX_ORDER ((INT_MAX - 2) / 2)

typedef struct {
    PyObject *str_lower;   /* str.lower, unbound: a subclass cannot override it */
    PyObject *main_thread; /* threading.main_thread, asked at each call (poll.h) */
} module_state;

static module_state *state_of(PyObject *module) { return (module_state *)PyModule_GetState(module); }

/* ------------------------------------------------------------------------------------------ */
/* the one argument check                                                                      */

typedef struct {
    Py_buffer rows, nrefs;
    Py_ssize_t width; /* 2 + 2 * order int64 per row */
} outputs;

static void outputs_release(outputs *o) {
    buffer_release(&o->rows);
    buffer_release(&o->nrefs);
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

/* Turn a failure (a KERR_* code) of the work without the GIL into the matching exception. */
static void raise_kernel_error(int err) {
    if (PyErr_Occurred()) return; /* KERR_INTERRUPTED: the signal handler's exception is set */
    if (err == KERR_TOO_LONG)
        PyErr_SetString(PyExc_OverflowError, "sentence too long for the native kernel");
    else if (err == KERR_INTERRUPTED)
        PyErr_SetString(PyExc_KeyboardInterrupt, "");
    else
        PyErr_NoMemory();
}

/* ------------------------------------------------------------------------------------------ */
/* text                                                                                        */

/* One segment of the batch: the str read without the GIL (a new reference) and where to read it. */
typedef struct {
    PyObject *str;
    segment_src src;
} held_segment;

typedef struct {
    held_segment *seg;
    Py_ssize_t *nseg; /* per sentence of the batch: its segments (hypothesis + references) */
    size_t n_seg, cap_seg, n_sent, cap_sent;
} batch;

static void batch_clear(batch *b) {
    for (size_t i = 0; i < b->n_seg; i++) Py_DECREF(b->seg[i].str);
    b->n_seg = b->n_sent = 0;
}

static void batch_free(batch *b) {
    batch_clear(b);
    free(b->seg);
    free(b->nseg);
}

/* Room for one more segment and one more sentence: kernel.h's grow_array, raising on failure. */
static int batch_reserve(batch *b) {
    void *seg = b->seg, *nseg = b->nseg;
    int err = grow_array(&seg, &b->cap_seg, b->n_seg + 1, sizeof(held_segment));
    b->seg = (held_segment *)seg;
    if (!err) err = grow_array(&nseg, &b->cap_sent, b->n_sent + 1, sizeof(Py_ssize_t));
    b->nseg = (Py_ssize_t *)nseg;
    if (err) raise_kernel_error(err);
    return err ? -1 : 0;
}

/* Hold one segment for the batch; returns its length in code points, -1 on error. */
static Py_ssize_t add_segment(batch *b, PyObject *str_lower, PyObject *s, int lowercase, Py_ssize_t i,
                              Py_ssize_t j) {
    if (!PyUnicode_Check(s)) {
        if (j < 0)
            PyErr_Format(PyExc_TypeError, "hypotheses[%zd] must be a str, got %.80s", i, Py_TYPE(s)->tp_name);
        else
            PyErr_Format(PyExc_TypeError, "references[%zd][%zd] must be a str, got %.80s", i, j,
                         Py_TYPE(s)->tp_name);
        return -1;
    }
    if (batch_reserve(b) < 0) return -1;
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
    held_segment *h = &b->seg[b->n_seg++];
    h->str = s;
    h->src.data = PyUnicode_DATA(s);
    h->src.len = (size_t)PyUnicode_GET_LENGTH(s);
    h->src.kind = PyUnicode_KIND(s);
    h->src.ascii_lower = ascii_lower;
    return PyUnicode_GET_LENGTH(s);
}

/* Gather sentence i (hypothesis and references) into the batch; returns its code points. */
static int64_t add_sentence(batch *b, PyObject *str_lower, PyObject *hyp, PyObject *refs_i, int lowercase,
                            Py_ssize_t i) {
    Py_ssize_t len = add_segment(b, str_lower, hyp, lowercase, i, -1);
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
#ifdef Py_GIL_DISABLED
    /* without a GIL another thread could change the list while it is read: read a copy */
    PyObject *rf = PySequence_Tuple(refs_i);
#else
    PyObject *rf = PySequence_Fast(refs_i, "references[i] must be a list of str");
#endif
    if (!rf) return -1;
    const Py_ssize_t nr = PySequence_Fast_GET_SIZE(rf);
    for (Py_ssize_t j = 0; j < nr; j++) {
        len = add_segment(b, str_lower, PySequence_Fast_GET_ITEM(rf, j), lowercase, i, j);
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
    b->nseg[b->n_sent++] = 1 + nr; /* room reserved by add_segment */
    return chars;
}

/* Tokenize and count the batch (no GIL needed) into rows and nrefs, which start at its first sentence. */
static int count_batch(workspace *ws, const batch *b, int64_t *rows, int64_t *nrefs, Py_ssize_t width) {
    size_t seg = 0;
    for (size_t s = 0; s < b->n_sent; s++) {
        ws->chars.n = ws->tok_off.n = ws->tok_len.n = ws->tok_hash.n = ws->seg_start.n = 0;
        for (Py_ssize_t j = 0; j < b->nseg[s]; j++)
            if (tokenize_segment(ws, &b->seg[seg++].src) < 0) return -1; /* opens its segment in seg_start */
        ws->seg_start.d[ws->seg_start.n++] = (int64_t)ws->tok_off.n; /* room left by tokenize_segment */
        if (count_sentence(ws, rows + (Py_ssize_t)s * width, NULL) < 0) return -1;
        nrefs[s] = b->nseg[s] - 1;
        if (ws_work(ws, SENTENCE_CHARS) < 0) return -1;
    }
    return 0;
}

static PyObject *py_text_statistics(PyObject *module, PyObject *args) {
    PyObject *hyps_in, *refs_in, *table_in, *rows_in, *nrefs_in;
    int tokenizer, lowercase, order;
    if (!PyArg_ParseTuple(args, "OOiiiOOO:text_statistics", &hyps_in, &refs_in, &tokenizer, &lowercase, &order,
                          &table_in, &rows_in, &nrefs_in))
        return NULL;
    const module_state *st = state_of(module);
    PyObject *hyps = NULL, *refs = NULL, *result = NULL;
    Py_buffer table = {0};
    outputs out = {0};
    batch b = {0};
    workspace ws;
    memset(&ws, 0, sizeof(ws));
    poller poll;
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
    if (poller_start(&poll, st->main_thread) < 0) goto done;
    ws.cls = (const uint8_t *)table.buf;
    ws.tokenizer = tokenizer;
    ws.order = order;
    ws.poll = &poll;
    int64_t *rows = (int64_t *)out.rows.buf, *nrefs = (int64_t *)out.nrefs.buf;
    for (Py_ssize_t i = 0; i < n;) {
        const Py_ssize_t first = i;
        int64_t chars = 0;
        while (i < n && (i == first || chars < BATCH_CHARS)) {
            const int64_t c = add_sentence(&b, st->str_lower, PyList_GET_ITEM(hyps, i), PyList_GET_ITEM(refs, i),
                                           lowercase, i);
            if (c < 0) goto done;
            chars += c + SENTENCE_CHARS;
            i++;
        }
        poller_release(&poll);
        const int rc = count_batch(&ws, &b, rows + first * out.width, nrefs + first, out.width);
        poller_acquire(&poll);
        batch_clear(&b);
        if (rc < 0) {
            raise_kernel_error(ws.err);
            goto done;
        }
        if (PyErr_CheckSignals() < 0) goto done;
    }
    result = Py_None;
    Py_INCREF(result);
done:
    batch_free(&b);
    workspace_free(&ws);
    Py_XDECREF(hyps);
    Py_XDECREF(refs);
    buffer_release(&table);
    outputs_release(&out);
    return result;
}

/* ------------------------------------------------------------------------------------------ */
/* token ids                                                                                   */

/* The statistics of one flat batch: sequence j has lengths[j] ids (consecutive in tokens) and
 * belongs to row owner[j]; sequences are ordered by row, the hypothesis first. The ids of a row
 * are contiguous, so they are counted in place without a copy. The layout (lengths, owner) is
 * copied before it is checked: the work without the GIL follows the checked copy, so another
 * thread writing to the caller's arrays meanwhile can change ids (and so the counts) but never
 * send a read outside the buffers. */
static PyObject *py_ids_statistics_flat(PyObject *module, PyObject *args) {
    PyObject *tok_in, *len_in, *own_in, *rows_in, *nrefs_in;
    Py_ssize_t n;
    int order;
    if (!PyArg_ParseTuple(args, "OOOniOO:ids_statistics_flat", &tok_in, &len_in, &own_in, &n, &order, &rows_in,
                          &nrefs_in))
        return NULL;
    const module_state *st = state_of(module);
    PyObject *result = NULL;
    Py_buffer tok = {0}, len = {0}, own = {0};
    outputs out = {0};
    int64_t *layout = NULL; /* private copy: lengths, then owner */
    workspace ws;
    memset(&ws, 0, sizeof(ws));
    poller poll;
    if (int64_buffer(tok_in, &tok, 0, "tokens") < 0 || int64_buffer(len_in, &len, 0, "lengths") < 0 ||
        int64_buffer(own_in, &own, 0, "owner") < 0 || check_outputs(order, n, rows_in, nrefs_in, &out) < 0)
        goto done;
    if (own.len != len.len) {
        PyErr_SetString(PyExc_ValueError, "flat ids: buffers have inconsistent sizes");
        goto done;
    }
    const Py_ssize_t nseq = int64_items(&len), ntok = int64_items(&tok);
    layout = (int64_t *)malloc(2 * (size_t)nseq * sizeof(int64_t) + 1); /* nseq <= PY_SSIZE_T_MAX / 8 */
    if (!layout) {
        PyErr_NoMemory();
        goto done;
    }
    if (nseq) {
        memcpy(layout, len.buf, (size_t)nseq * sizeof(int64_t));
        memcpy(layout + nseq, own.buf, (size_t)nseq * sizeof(int64_t));
    }
    const int64_t *tokens = (const int64_t *)tok.buf, *lengths = layout, *owner = layout + nseq;
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
    if (poller_start(&poll, st->main_thread) < 0) goto done;
    ws.order = order;
    ws.poll = &poll;
    int64_t *rows = (int64_t *)out.rows.buf, *nrefs = (int64_t *)out.nrefs.buf;
    int rc = 0;
    poller_release(&poll);
    {
        int64_t offset = 0;
        Py_ssize_t j = 0;
        for (Py_ssize_t i = 0; i < n && rc == 0; i++) {
            const int64_t row_start = offset;
            const Py_ssize_t first = j;
            ws.seg_start.n = 0;
            for (; j < nseq && owner[j] == i; j++) {
                if (i64_reserve(&ws, &ws.seg_start, ws.seg_start.n + 2) < 0) {
                    rc = -1;
                    break;
                }
                ws.seg_start.d[ws.seg_start.n++] = offset - row_start;
                offset += lengths[j];
            }
            if (rc < 0) break;
            ws.seg_start.d[ws.seg_start.n++] = offset - row_start;
            rc = count_sentence(&ws, rows + i * out.width, tokens + row_start);
            nrefs[i] = (int64_t)(j - first - 1);
            if (rc == 0) rc = ws_work(&ws, SENTENCE_CHARS); /* a row's fixed cost; its loops report themselves */
        }
    }
    poller_acquire(&poll);
    if (rc < 0) {
        raise_kernel_error(ws.err);
        goto done;
    }
    result = Py_None;
    Py_INCREF(result);
done:
    free(layout);
    workspace_free(&ws);
    buffer_release(&tok);
    buffer_release(&len);
    buffer_release(&own);
    outputs_release(&out);
    return result;
}

/* ------------------------------------------------------------------------------------------ */
/* module                                                                                      */

static PyMethodDef methods[] = {
    {"text_statistics", py_text_statistics, METH_VARARGS,
     "text_statistics($module, hyps, refs, tokenizer, lowercase, order, table, rows_out, nrefs_out, /)\n--\n\n"
     "Fill rows_out (int64, n x (2 + 2 order)) and nrefs_out (int64, n) with the statistics of\n"
     "hyps[i] (a str) against refs[i] (a non-empty list of str). tokenizer is one of the TOK_*\n"
     "constants; table is bleukit._native.character_table().\n"
     "Releases the GIL while it counts."},
    {"ids_statistics_flat", py_ids_statistics_flat, METH_VARARGS,
     "ids_statistics_flat($module, tokens, lengths, owner, n_rows, order, rows_out, nrefs_out, /)\n--\n\n"
     "The same statistics from a flat batch of int64 ids: one length and owner row per\n"
     "sequence, sequences ordered by row with the hypothesis first. Releases the GIL."},
    {NULL, NULL, 0, NULL}};

static int module_exec(PyObject *m) {
    module_state *st = state_of(m);
    st->str_lower = PyObject_GetAttrString((PyObject *)&PyUnicode_Type, "lower");
    if (!st->str_lower) return -1;
    st->main_thread = poll_main_thread();
    if (!st->main_thread) return -1;
    if (PyModule_AddIntConstant(m, "TABLE_SIZE", TABLE_SIZE) < 0 ||
        PyModule_AddIntConstant(m, "CLS_P", CLS_P) < 0 || PyModule_AddIntConstant(m, "CLS_S", CLS_S) < 0 ||
        PyModule_AddIntConstant(m, "CLS_N", CLS_N) < 0 || PyModule_AddIntConstant(m, "CLS_ZH", CLS_ZH) < 0 ||
        PyModule_AddIntConstant(m, "CLS_13A", CLS_13A) < 0 ||
        PyModule_AddIntConstant(m, "CLS_DIGIT", CLS_DIGIT) < 0 ||
        PyModule_AddIntConstant(m, "TOK_13A", TOK_13A) < 0 || PyModule_AddIntConstant(m, "TOK_INTL", TOK_INTL) < 0 ||
        PyModule_AddIntConstant(m, "TOK_ZH", TOK_ZH) < 0 || PyModule_AddIntConstant(m, "TOK_CHAR", TOK_CHAR) < 0 ||
        PyModule_AddIntConstant(m, "TOK_NONE", TOK_NONE) < 0 ||
        PyModule_AddIntConstant(m, "MAX_ORDER", MAX_ORDER) < 0)
        return -1;
    return 0;
}

static int module_traverse(PyObject *m, visitproc visit, void *arg) {
    const module_state *st = state_of(m);
    Py_VISIT(st->str_lower);
    Py_VISIT(st->main_thread);
    return 0;
}

static int module_clear(PyObject *m) {
    module_state *st = state_of(m);
    Py_CLEAR(st->str_lower);
    Py_CLEAR(st->main_thread);
    return 0;
}

static void module_free(void *m) { module_clear((PyObject *)m); }

static PyModuleDef_Slot slots[] = {
    {Py_mod_exec, (void *)module_exec},
#ifdef Py_mod_multiple_interpreters /* 3.12+: no global state, so each interpreter may have its own GIL */
    {Py_mod_multiple_interpreters, Py_MOD_PER_INTERPRETER_GIL_SUPPORTED},
#endif
#ifdef Py_mod_gil /* 3.13+: safe without the GIL (see the top of this file) */
    {Py_mod_gil, Py_MOD_GIL_NOT_USED},
#endif
    {0, NULL}};

static struct PyModuleDef moduledef = {
    .m_base = PyModuleDef_HEAD_INIT,
    .m_name = "_native_kernel",
    .m_doc = "bleukit's compiled statistics kernel (see bleukit._native).",
    .m_size = sizeof(module_state),
    .m_methods = methods,
    .m_slots = slots,
    .m_traverse = module_traverse,
    .m_clear = module_clear,
    .m_free = module_free,
};

PyMODINIT_FUNC PyInit__native_kernel(void) { return PyModuleDef_Init(&moduledef); }
