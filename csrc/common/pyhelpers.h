/*
 * Argument checks every bleukit kernel shares: int64 and float64 buffers and thread counts.
 *
 * Kernels take their arrays as int64 buffers (numpy int64 arrays, C-contiguous) and check them
 * here before any work, as strictly as a public function would: a float64 or int32 array, a
 * strided view or a misaligned buffer is a TypeError naming the argument, never reinterpreted.
 * Every view int64_buffer fills is released with buffer_release, which also accepts a view that
 * was never filled (zero-initialised) or already released, so one cleanup path serves all exits:
 *
 *     Py_buffer ids = {0};
 *     if (int64_buffer(ids_in, &ids, 0, "ids") < 0) goto done;
 *     ... int64_items(&ids) items at (const int64_t *)ids.buf ...
 * done:
 *     buffer_release(&ids);
 */
#ifndef BLEUKIT_PYHELPERS_H
#define BLEUKIT_PYHELPERS_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include <stdint.h>
#include <string.h>

/* Whether a buffer format is one of `codes` (struct letters) in native byte order. */
static inline int format_is(const char *f, const char *codes) {
    if (!f) return 0;
    if (*f == '@' || *f == '=' || *f == '<') f++; /* native order; '<' is native here (checked below) */
    return f[0] != '\0' && f[1] == '\0' && strchr(codes, f[0]) != NULL;
}

/* Fill `view` with obj's buffer: C-contiguous, 8-byte items of one of the format `codes`, aligned
 * (an empty buffer may lie anywhere) and in native byte order, writable when asked. 0, or -1 with
 * a TypeError naming the argument (`what`) and the `kind` expected, and nothing to release. */
static inline int buffer_of(PyObject *obj, Py_buffer *view, int writable, const char *what, const char *codes,
                            const char *kind) {
    const int flags = PyBUF_C_CONTIGUOUS | PyBUF_FORMAT | (writable ? PyBUF_WRITABLE : 0);
    view->obj = NULL;
    if (PyObject_GetBuffer(obj, view, flags) < 0) {
        view->obj = NULL;
        return -1;
    }
    const uint16_t probe = 1;
    const int little = *(const uint8_t *)&probe == 1;
    if (view->itemsize != 8 || !format_is(view->format, codes) || (view->format[0] == '<' && !little) ||
        (view->len && ((uintptr_t)view->buf & 7u) != 0) || view->len % 8 != 0) {
        PyErr_Format(PyExc_TypeError, "%s must be a C-contiguous, aligned %s array (format %.10s, itemsize %zd)",
                     what, kind, view->format ? view->format : "?", view->itemsize);
        PyBuffer_Release(view);
        view->obj = NULL;
        return -1;
    }
    return 0;
}

/* An int64 buffer (numpy int64 arrays, array("q")). */
static inline int int64_buffer(PyObject *obj, Py_buffer *view, int writable, const char *what) {
    return buffer_of(obj, view, writable, what, "lq", "int64");
}

/* A float64 buffer (numpy float64 arrays, array("d")). */
static inline int float64_buffer(PyObject *obj, Py_buffer *view, int writable, const char *what) {
    return buffer_of(obj, view, writable, what, "d", "float64");
}

/* Number of int64 items in a view int64_buffer filled. */
static inline Py_ssize_t int64_items(const Py_buffer *view) { return view->len / 8; }

static inline void buffer_release(Py_buffer *view) {
    if (view->obj) PyBuffer_Release(view);
    view->obj = NULL;
}

/* The threads to run `items` independent pieces of work on: `requested` (the caller has checked
 * it is >= 1; bleukit.engine.thread_count turns 0 into the core count) capped by `most` and by
 * the number of items, and at least 1. */
static inline int thread_count(int requested, Py_ssize_t items, int most) {
    int t = requested < 1 ? 1 : requested;
    if (t > most) t = most;
    if ((Py_ssize_t)t > items) t = items > 0 ? (int)items : 1;
    return t;
}

#endif
