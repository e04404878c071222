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

static inline int int64_format(const char *f) {
    if (!f) return 0;
    if (*f == '@' || *f == '=' || *f == '<') f++; /* native order; '<' is native here (checked below) */
    return (f[0] == 'l' || f[0] == 'q') && f[1] == '\0';
}

/* Fill `view` with obj's buffer: C-contiguous, 8-byte-aligned int64 in native byte order (numpy
 * int64 arrays are), writable when asked. 0, or -1 with an exception (`what` names the argument)
 * and nothing to release. */
static inline int int64_buffer(PyObject *obj, Py_buffer *view, int writable, const char *what) {
    const int flags = PyBUF_C_CONTIGUOUS | PyBUF_FORMAT | (writable ? PyBUF_WRITABLE : 0);
    view->obj = NULL;
    if (PyObject_GetBuffer(obj, view, flags) < 0) {
        view->obj = NULL;
        return -1;
    }
    const uint16_t probe = 1;
    const int little = *(const uint8_t *)&probe == 1;
    if (view->itemsize != 8 || !int64_format(view->format) || (view->format[0] == '<' && !little) ||
        ((uintptr_t)view->buf & 7u) != 0 || view->len % 8 != 0) {
        PyErr_Format(PyExc_TypeError, "%s must be a C-contiguous, aligned int64 array (format %.10s, itemsize %zd)",
                     what, view->format ? view->format : "?", view->itemsize);
        PyBuffer_Release(view);
        view->obj = NULL;
        return -1;
    }
    return 0;
}

static inline int float64_format(const char *f) {
    if (!f) return 0;
    if (*f == '@' || *f == '=' || *f == '<') f++; /* native order; '<' is native here (checked below) */
    return f[0] == 'd' && f[1] == '\0';
}

/* The same for a C-contiguous, 8-byte-aligned float64 buffer (an empty one may lie anywhere). */
static inline int float64_buffer(PyObject *obj, Py_buffer *view, int writable, const char *what) {
    const int flags = PyBUF_C_CONTIGUOUS | PyBUF_FORMAT | (writable ? PyBUF_WRITABLE : 0);
    view->obj = NULL;
    if (PyObject_GetBuffer(obj, view, flags) < 0) {
        view->obj = NULL;
        return -1;
    }
    const uint16_t probe = 1;
    const int little = *(const uint8_t *)&probe == 1;
    if (view->itemsize != 8 || !float64_format(view->format) || (view->format[0] == '<' && !little) ||
        (view->len && ((uintptr_t)view->buf & 7u) != 0) || view->len % 8 != 0) {
        PyErr_Format(PyExc_TypeError, "%s must be a C-contiguous, aligned float64 array (format %.10s, itemsize %zd)",
                     what, view->format ? view->format : "?", view->itemsize);
        PyBuffer_Release(view);
        view->obj = NULL;
        return -1;
    }
    return 0;
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
