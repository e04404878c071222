/*
 * exp and log of bleukit.metrics.bleu._kernel: libm's exp() and log() over a vector of doubles
 * (the glue is bleukit.metrics.bleu.libm).
 *
 * Why: sacreBLEU computes BLEU with math.exp and math.log, which call the C library's exp() and
 * log(). numpy's own exp/log (SIMD code on CPUs with AVX-512) differ from them in the last bit for
 * some arguments, and so would the scores. These functions call the very same exp() and log() on
 * every element, so a vectorised formula gives Python's floats bit for bit (math.log(x) is log(x)
 * for every finite x > 0; the formula never uses what this returns for x <= 0).
 *
 * The kernel is built with -ffp-contract=off and without -ffast-math (setup.py), so the compiler neither fuses
 * nor replaces the calls by its own vector versions (glibc declares those only under fast-math).
 *
 * Every argument is checked before any work: x a C-contiguous float64 buffer, out a writable one
 * of as many items that is either x itself or does not overlap it. Large vectors run without the
 * GIL, a chunk of CHUNK items at a time, with a check for signals between chunks (Ctrl-C raises
 * KeyboardInterrupt within a few ms).
 */
#include "module.h"

#include <math.h>
#include <stdint.h>

/* Items per release of the GIL: a few ms of exp() or log(). */
#define CHUNK ((Py_ssize_t)1 << 18)
/* Below this many items the work is shorter than releasing the GIL. */
#define GIL_FREE_MIN ((Py_ssize_t)1 << 12)

typedef double (*unary)(double);

static void apply(unary f, const double *x, double *out, Py_ssize_t n) {
    for (Py_ssize_t i = 0; i < n; i++) out[i] = f(x[i]);
}

/* out[i] = f(x[i]) for every i, both buffers checked first. */
static PyObject *vector_call(PyObject *args, unary f) {
    PyObject *x_obj, *out_obj;
    if (!PyArg_ParseTuple(args, "OO", &x_obj, &out_obj)) return NULL;
    Py_buffer x, out;
    if (float64_buffer(x_obj, &x, 0, "x") < 0) return NULL;
    if (float64_buffer(out_obj, &out, 1, "out") < 0) {
        PyBuffer_Release(&x);
        return NULL;
    }
    PyObject *result = NULL;
    const Py_ssize_t n = x.len / 8;
    const char *xb = (const char *)x.buf, *ob = (const char *)out.buf;
    if (out.len != x.len) {
        PyErr_Format(PyExc_ValueError, "out must hold as many items as x (%zd), it holds %zd", n, out.len / 8);
        goto done;
    }
    /* In place is fine (each item is read before it is written); a shifted overlap is not. */
    if (xb != ob && xb < ob + out.len && ob < xb + x.len) {
        PyErr_SetString(PyExc_ValueError, "out must be x itself or not overlap it");
        goto done;
    }
    const double *xs = (const double *)x.buf;
    double *os = (double *)out.buf;
    if (n < GIL_FREE_MIN) {
        apply(f, xs, os, n);
    } else {
        for (Py_ssize_t start = 0; start < n; start += CHUNK) {
            const Py_ssize_t len = n - start < CHUNK ? n - start : CHUNK;
            Py_BEGIN_ALLOW_THREADS
            apply(f, xs + start, os + start, len);
            Py_END_ALLOW_THREADS
            if (PyErr_CheckSignals() < 0) goto done;
        }
    }
    Py_INCREF(Py_None);
    result = Py_None;
done:
    PyBuffer_Release(&x);
    PyBuffer_Release(&out);
    return result;
}

/* Through a function pointer so that the compiler calls the C library's exp() and log() as
 * Python's math module does, never an inlined or vectorised variant of its own. */
static double libm_exp(double v) { return exp(v); }
static double libm_log(double v) { return log(v); }

PyObject *py_exp(PyObject *self, PyObject *args) {
    (void)self;
    return vector_call(args, libm_exp);
}

PyObject *py_log(PyObject *self, PyObject *args) {
    (void)self;
    return vector_call(args, libm_log);
}
