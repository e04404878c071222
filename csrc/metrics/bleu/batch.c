/*
 * Text gathered under the GIL, counted without it (text.c's entry points use these):
 *  - under the GIL a batch of sentences (about BATCH_CHARS code points) is gathered, each str held
 *    by a new reference (lowercased first with str.lower itself when it is not ASCII; ASCII text
 *    is lowercased while it is read), the references of each sentence checked as
 *    bleukit.inputs.check_reference_entry checks them (common/entries.h);
 *  - count_range then tokenizes (tokenize.c) and counts (count.c) the batch's sentences without
 *    the GIL, reading the strings in place.
 *
 * Text items are read as their str value: a str subclass's overridden methods (lower() among
 * them) are never called, in this engine as in the Python one
 * (bleukit.metrics.bleu.extract.preprocess).
 */
#include "common/entries.h"
#include "module.h"

#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------------------------------------ */
/* the caller's references (entries.h checks them as bleukit.inputs does)                      */

/* Entry i of the private list `refs` checked; an entry of another type is replaced there by the
 * Python check's list. 0, or -1 with the error. */
int check_entry(PyObject *refs, Py_ssize_t i, PyObject *normalize) {
    PyObject *e = PyList_GET_ITEM(refs, i);
    PyObject *readable = readable_entry(e, i, normalize);
    if (!readable) return -1;
#ifdef Py_GIL_DISABLED
    /* without a GIL another thread could change the caller's list while it is read: read a copy */
    if (readable == e && PyList_CheckExact(e)) {
        Py_DECREF(readable);
        readable = PyList_AsTuple(e);
        if (!readable) return -1;
    }
#endif
    if (readable == e)
        Py_DECREF(readable);
    else
        PyList_SetItem(refs, i, readable); /* steals it, releases the entry */
    return 0;
}


/* ------------------------------------------------------------------------------------------ */
/* text                                                                                        */

void batch_clear(batch *b) {
    for (size_t i = 0; i < b->n_seg; i++) Py_DECREF(b->seg[i].str);
    b->n_seg = b->n_sent = 0;
    b->chars = 0;
}

void batch_free(batch *b) {
    batch_clear(b);
    free(b->seg);
    free(b->first);
    free(b->cum);
}

/* common/buffers.h's grow_array, raising on failure. */
static int batch_grow(void **data, size_t *cap, size_t need, size_t elem) {
    const int err = grow_array(data, cap, need, elem);
    if (err) raise_kernel_error(err);
    return err ? -1 : 0;
}

static int batch_reserve_segment(batch *b) {
    void *seg = b->seg;
    const int r = batch_grow(&seg, &b->cap_seg, b->n_seg + 1, sizeof(held_segment));
    b->seg = (held_segment *)seg;
    return r;
}

/* Room for one more sentence and the closing entries of first and cum. */
static int batch_reserve_sentence(batch *b) {
    void *first = b->first, *cum = b->cum;
    int r = batch_grow(&first, &b->cap_first, b->n_sent + 2, sizeof(size_t));
    b->first = (size_t *)first;
    if (r == 0) r = batch_grow(&cum, &b->cap_cum, b->n_sent + 2, sizeof(int64_t));
    b->cum = (int64_t *)cum;
    return r;
}

/* Hold one str for the batch (lowercased first when asked and not ASCII); its length in code
 * points, -1 on error. */
static Py_ssize_t add_segment(batch *b, PyObject *str_lower, PyObject *s, int lowercase) {
    if (batch_reserve_segment(b) < 0) return -1;
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

/* Room for a segment of `len` code points in a sentence that has `chars` so far; -1 with an
 * OverflowError past the kernel's limit. */
static int sentence_room(int64_t chars, Py_ssize_t len, Py_ssize_t i) {
    if ((int64_t)len <= MAX_SENTENCE_CHARS - chars) return 0; /* chars <= MAX_SENTENCE_CHARS: no overflow */
    if (i >= 0)
        PyErr_Format(PyExc_OverflowError, "sentence %zd is too long for the native kernel", i);
    else
        PyErr_SetString(PyExc_OverflowError, "sentence too long for the native kernel");
    return -1;
}

/* Gather sentence i: its hypothesis (one per system: paired tests count every system against the
 * references tokenized once) and the references of its checked entry (i < 0: the one sentence of
 * sentence_row). The entry's list may have changed since it was checked (the GIL is released
 * between batches), so its items are checked again as they are read. */
int add_sentence(batch *b, PyObject *str_lower, PyObject *const *hyps, int systems, PyObject *entry,
                        int lowercase, Py_ssize_t i) {
    if (batch_reserve_sentence(b) < 0) return -1;
    const size_t first = b->n_seg;
    int64_t chars = 0;
    Py_ssize_t len = 0;
    for (int j = 0; j < systems; j++) {
        len = add_segment(b, str_lower, hyps[j], lowercase);
        if (len < 0 || sentence_room(chars, len, i) < 0) return -1;
        chars += len;
    }
    if (PyUnicode_Check(entry)) {
        len = add_segment(b, str_lower, entry, lowercase);
        if (len < 0 || sentence_room(chars, len, i) < 0) return -1;
        chars += len;
    } else if (PyList_CheckExact(entry) || PyTuple_CheckExact(entry)) {
        Py_ssize_t found = 0;
        for (Py_ssize_t k = 0; k < PySequence_Fast_GET_SIZE(entry); k++) {
            PyObject *x = PySequence_Fast_GET_ITEM(entry, k);
            if (x == Py_None) continue;
            if (!PyUnicode_Check(x)) {
                entry_error(ENTRY_ITEM, i, k, x);
                return -1;
            }
            len = add_segment(b, str_lower, x, lowercase);
            if (len < 0 || sentence_room(chars, len, i) < 0) return -1;
            chars += len;
            found++;
        }
        if (!found) {
            entry_error(ENTRY_EMPTY, i, 0, NULL);
            return -1;
        }
    } else {
        entry_error(entry == Py_None ? ENTRY_NONE : ENTRY_TYPE, i, 0, entry == Py_None ? NULL : entry);
        return -1;
    }
    b->first[b->n_sent] = first;
    b->cum[b->n_sent] = b->chars;
    b->chars += chars + SENTENCE_CHARS;
    b->n_sent++;
    b->first[b->n_sent] = b->n_seg;
    b->cum[b->n_sent] = b->chars;
    return 0;
}

/* Add a counted row to the sums; -1 when a sum would overflow int64 (counts are never negative). */
static int sums_add(sums *acc, int64_t nrefs, Py_ssize_t width) {
    for (Py_ssize_t c = 0; c < width; c++) {
        if (acc->row[c] > INT64_MAX - acc->total[c]) return -1;
        acc->total[c] += acc->row[c];
    }
    if (nrefs < acc->nrefs_lo) acc->nrefs_lo = nrefs;
    if (nrefs > acc->nrefs_hi) acc->nrefs_hi = nrefs;
    return 0;
}

/* Append the tokens of refs' store (its segments) to ws' store: a paired test's references,
 * tokenized once per sentence, after each system's hypothesis. */
static int append_tokens(workspace *ws, const workspace *refs) {
    const size_t base = ws->chars.n, t0 = ws->tok_off.n, nt = refs->tok_off.n, ns = refs->seg_start.n;
    if (cp_reserve(ws, &ws->chars, base + refs->chars.n) < 0 || i64_reserve(ws, &ws->tok_off, t0 + nt) < 0 ||
        i64_reserve(ws, &ws->tok_len, t0 + nt) < 0 || i64_reserve(ws, &ws->tok_hash, t0 + nt) < 0 ||
        i64_reserve(ws, &ws->seg_start, ws->seg_start.n + ns + 1) < 0)
        return -1;
    if (refs->chars.n) memcpy(ws->chars.d + base, refs->chars.d, refs->chars.n * sizeof(cp_t));
    for (size_t t = 0; t < nt; t++) ws->tok_off.d[t0 + t] = refs->tok_off.d[t] + (int64_t)base;
    if (nt) {
        memcpy(ws->tok_len.d + t0, refs->tok_len.d, nt * sizeof(int64_t));
        memcpy(ws->tok_hash.d + t0, refs->tok_hash.d, nt * sizeof(int64_t));
    }
    for (size_t e = 0; e < ns; e++) ws->seg_start.d[ws->seg_start.n++] = refs->seg_start.d[e] + (int64_t)t0;
    ws->chars.n += refs->chars.n;
    ws->tok_off.n = ws->tok_len.n = ws->tok_hash.n = t0 + nt;
    return ws_work(ws, refs->chars.n + nt);
}

static void store_clear(workspace *ws) {
    ws->chars.n = ws->tok_off.n = ws->tok_len.n = ws->tok_hash.n = ws->seg_start.n = 0;
}

/* Tokenize and count sentences lo..hi-1 of the batch (no GIL needed) into `o`, or with `acc` into
 * its sums. With several systems, the references are tokenized once into `refs` (a second
 * workspace) and copied after each system's hypothesis. */
int count_range(workspace *ws, workspace *refs, const batch *b, size_t lo, size_t hi, const outrows *o,
                       sums *acc) {
    const int systems = o->systems;
    for (size_t s = lo; s < hi; s++) {
        const size_t g0 = b->first[s], g1 = b->first[s + 1];
        const int64_t nr = (int64_t)(g1 - g0) - systems;
        if (systems > 1) {
            store_clear(refs);
            for (size_t g = g0 + (size_t)systems; g < g1; g++)
                if (tokenize_segment(refs, &b->seg[g].src) < 0) {
                    ws->err = refs->err;
                    return -1;
                }
        }
        for (int j = 0; j < systems; j++) {
            store_clear(ws);
            if (systems > 1) {
                if (tokenize_segment(ws, &b->seg[g0 + (size_t)j].src) < 0 || append_tokens(ws, refs) < 0) return -1;
            } else {
                for (size_t g = g0; g < g1; g++)
                    if (tokenize_segment(ws, &b->seg[g].src) < 0) return -1; /* opens its segment in seg_start */
            }
            ws->seg_start.d[ws->seg_start.n++] = (int64_t)ws->tok_off.n; /* room left by tokenize_segment */
            if (acc) {
                if (count_sentence(ws, acc->row, NULL) < 0) return -1;
                if (sums_add(acc, nr, o->width) < 0) {
                    ws->err = KERR_SUM_OVERFLOW;
                    return -1;
                }
            } else if (count_sentence(ws, o->rows + j * o->stride + (Py_ssize_t)s * o->width, NULL) < 0) {
                return -1;
            }
        }
        for (int j = 0; j < systems && !acc; j++) o->nrefs[j * o->nrefs_stride + (Py_ssize_t)s] = nr;
        if (ws_work(ws, SENTENCE_CHARS) < 0) return -1;
    }
    return 0;
}

/* Gather sentences *i, *i + 1, ... into the empty batch `b` until it weighs `limit` code points
 * (at least one sentence), advancing *i. 0, or -1 with the error. */
int gather_batch(batch *b, PyObject *str_lower, PyObject *const *hyps, int systems, PyObject *refs,
                        int lowercase, Py_ssize_t *i, int64_t limit) {
    PyObject *hyp_i[MAX_SYSTEMS];
    const Py_ssize_t n = PyList_GET_SIZE(refs), start = *i;
    while (*i < n && (*i == start || b->chars < limit)) {
        /* A list of hypotheses may be the caller's own (hypotheses_list): Python code (another
         * thread between batches, a finaliser run by an allocation) may have changed it since
         * it was checked, so each item is checked again and held while it is gathered. */
        int held = 0, bad = 0;
        for (; held < systems; held++) {
            if (*i >= PyList_GET_SIZE(hyps[held])) {
                PyErr_SetString(PyExc_RuntimeError, "the list of hypotheses changed size during the call");
                bad = 1;
                break;
            }
            hyp_i[held] = PyList_GET_ITEM(hyps[held], *i);
            if (!PyUnicode_Check(hyp_i[held])) {
                PyErr_Format(PyExc_TypeError, "hypotheses[%zd] must be a str, got %s", *i, Py_TYPE(hyp_i[held])->tp_name);
                bad = 1;
                break;
            }
            Py_INCREF(hyp_i[held]);
        }
        const int rc = bad ? -1 : add_sentence(b, str_lower, hyp_i, systems, PyList_GET_ITEM(refs, *i), lowercase, *i);
        for (int j = 0; j < held; j++) Py_DECREF(hyp_i[j]);
        if (rc < 0) return -1;
        (*i)++;
    }
    return 0;
}

/* The private copy of the hypotheses of one system: a list of n items (checked: str). */
PyObject *hypotheses_copy(PyObject *in, Py_ssize_t n, int check) {
    if (PyUnicode_Check(in) || PyBytes_Check(in)) {
        PyErr_SetString(PyExc_TypeError, "hypotheses and references must be sequences (of str, of reference entries)");
        return NULL;
    }
    PyObject *list = PySequence_List(in);
    if (!list) return NULL;
    if (n >= 0 && PyList_GET_SIZE(list) != n) {
        PyErr_Format(PyExc_ValueError, "every system needs %zd hypotheses, one has %zd", n, PyList_GET_SIZE(list));
        Py_DECREF(list);
        return NULL;
    }
    for (Py_ssize_t i = 0; check && i < PyList_GET_SIZE(list); i++) {
        PyObject *h = PyList_GET_ITEM(list, i);
        if (!PyUnicode_Check(h)) {
            PyObject *name = PyObject_GetAttrString((PyObject *)Py_TYPE(h), "__name__");
            if (name) PyErr_Format(PyExc_TypeError, "hypotheses[%zd] must be a str, got %U", i, name);
            Py_XDECREF(name);
            Py_DECREF(list);
            return NULL;
        }
    }
    return list;
}

/* The hypotheses of text_statistics: a list is read in place (checked here, and again item by
 * item as count_text gathers it), saving a copy of 8 bytes a sentence; any other sequence, and
 * every list on a build without the GIL (another thread could change it under a reader), is
 * copied by hypotheses_copy. A new reference. */
PyObject *hypotheses_list(PyObject *in) {
#ifndef Py_GIL_DISABLED
    if (PyList_CheckExact(in)) {
        for (Py_ssize_t i = 0; i < PyList_GET_SIZE(in); i++) {
            PyObject *h = PyList_GET_ITEM(in, i);
            if (!PyUnicode_Check(h)) {
                PyObject *name = PyObject_GetAttrString((PyObject *)Py_TYPE(h), "__name__");
                if (name) PyErr_Format(PyExc_TypeError, "hypotheses[%zd] must be a str, got %U", i, name);
                Py_XDECREF(name);
                return NULL;
            }
        }
        Py_INCREF(in);
        return in;
    }
#endif
    return hypotheses_copy(in, -1, 1);
}
