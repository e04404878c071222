/*
 * The one argument check BLEU's entry points share (the output buffers, pyhelpers.h's int64
 * buffers) and the exceptions of the work without the GIL.
 */
#include "module.h"

#include <string.h>

/* ------------------------------------------------------------------------------------------ */
/* the one argument check                                                                      */



void outputs_release(outputs *o) {
    buffer_release(&o->rows);
    buffer_release(&o->nrefs);
}

/* order in range; rows_out n x (2 + 2 order) and nrefs_out n writable int64, sizes checked
 * without overflow. */
int check_outputs(int order, Py_ssize_t n, PyObject *rows, PyObject *nrefs, outputs *o) {
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
void raise_kernel_error(int err) {
    if (PyErr_Occurred()) return; /* KERR_INTERRUPTED: the signal handler's exception is set */
    if (err == KERR_TOO_LONG)
        PyErr_SetString(PyExc_OverflowError, "sentence too long for the native kernel");
    else if (err == KERR_INTERRUPTED)
        PyErr_SetString(PyExc_KeyboardInterrupt, "");
    else if (err == KERR_SUM_OVERFLOW)
        PyErr_SetString(PyExc_OverflowError, "the statistics' column sums overflow int64");
    else
        PyErr_NoMemory();
}

