/*
 * chrF's argument checks and the texts it gathers under the GIL (held by new references, read
 * without the GIL); the errors of the work without it turned into exceptions.
 */
#include "chrf.h"

#include <math.h>



void texts_clear(texts *t) {
    for (size_t i = 0; i < t->n; i++) Py_DECREF(t->held[i]);
    t->n = 0;
}

void texts_free(texts *t) {
    texts_clear(t);
    PyMem_Free(t->held);
    PyMem_Free(t->src);
    memset(t, 0, sizeof(*t));
}

static int texts_reserve(texts *t, size_t need) {
    if (need <= t->cap) return 0;
    size_t c = t->cap ? t->cap * 2 : 64;
    while (c < need) c *= 2;
    if (c > (size_t)PY_SSIZE_T_MAX / sizeof(text_src)) {
        PyErr_NoMemory();
        return -1;
    }
    PyObject **h = (PyObject **)PyMem_Realloc(t->held, c * sizeof(PyObject *));
    if (!h) {
        PyErr_NoMemory();
        return -1;
    }
    t->held = h;
    text_src *s = (text_src *)PyMem_Realloc(t->src, c * sizeof(text_src));
    if (!s) {
        PyErr_NoMemory();
        return -1;
    }
    t->src = s;
    t->cap = c;
    return 0;
}

/* Hold one str (lowercased first when asked); its length, or -1 with an exception. */
int64_t texts_add(texts *t, PyObject *s, int lowercase, PyObject *str_lower) {
    if (texts_reserve(t, t->n + 1) < 0) return -1;
#if PY_VERSION_HEX < 0x030C0000
    if (PyUnicode_READY(s) < 0) return -1;
#endif
    int ascii_lower = 0;
    if (lowercase && PyUnicode_IS_ASCII(s)) {
        ascii_lower = 1;
        Py_INCREF(s);
    } else if (lowercase) {
        s = PyObject_CallOneArg(str_lower, s);
        if (!s) return -1;
        if (!PyUnicode_CheckExact(s)) {
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
    text_src *src = &t->src[t->n];
    src->data = PyUnicode_DATA(s);
    src->len = (int64_t)PyUnicode_GET_LENGTH(s);
    src->kind = PyUnicode_KIND(s);
    src->ascii_lower = ascii_lower;
    t->held[t->n++] = s;
    return src->len;
}

/* Options from the arguments, each one checked. */
int parse_opts(chrf_opts *o, int char_order, int word_order, int whitespace, int eps_smoothing,
                      double factor, double one_plus, PyObject *punct) {
    memset(o, 0, sizeof(*o));
    if (char_order < 1 || char_order > MAX_ORDER || word_order < 0 || word_order > MAX_ORDER ||
        char_order + word_order > MAX_ORDER) {
        PyErr_Format(PyExc_ValueError,
                     "char_order must be in [1, %d] and word_order in [0, %d] (at most %d together), got %d and %d",
                     MAX_ORDER, MAX_ORDER, MAX_ORDER, char_order, word_order);
        return -1;
    }
    if (!isfinite(factor) || !isfinite(one_plus) || factor < 0 || one_plus < 1) {
        PyErr_SetString(PyExc_ValueError, "factor (beta ** 2) and one_plus (1 + beta ** 2) must be finite, >= 0 and >= 1");
        return -1;
    }
    if (!PyUnicode_Check(punct)) {
        PyErr_Format(PyExc_TypeError, "punctuation must be a str, got %.80s", Py_TYPE(punct)->tp_name);
        return -1;
    }
#if PY_VERSION_HEX < 0x030C0000
    if (PyUnicode_READY(punct) < 0) return -1;
#endif
    const Py_ssize_t np = PyUnicode_GET_LENGTH(punct);
    for (Py_ssize_t i = 0; i < np; i++) {
        const Py_UCS4 c = PyUnicode_READ_CHAR(punct, i);
        if (c >= 128 || Py_UNICODE_ISSPACE(c)) {
            PyErr_SetString(PyExc_ValueError, "punctuation must hold ASCII characters other than whitespace");
            return -1;
        }
        o->punct[c] = 1;
    }
    o->char_order = char_order;
    o->word_order = word_order;
    o->order = char_order + word_order;
    o->whitespace = whitespace != 0;
    o->eps_smoothing = eps_smoothing != 0;
    o->factor = factor;
    o->one_plus = one_plus;
    return 0;
}

int check_threads(int threads) {
    if (threads < 1 || threads > MAX_THREADS) {
        PyErr_Format(PyExc_ValueError, "threads must be between 1 and %d, got %d", MAX_THREADS, threads);
        return -1;
    }
    return 0;
}

/* A writable, C-contiguous, aligned buffer of `count` items of format `fmt` ('q' int64, 'd' float64). */
int out_buffer(PyObject *obj, Py_buffer *view, char fmt, Py_ssize_t count, const char *what) {
    if (PyObject_GetBuffer(obj, view, PyBUF_C_CONTIGUOUS | PyBUF_FORMAT | PyBUF_WRITABLE) < 0) return -1;
    const char *f = view->format ? view->format : "B";
    if (*f == '@' || *f == '=' || *f == '<') f++;
    const uint16_t probe = 1;
    const int little = *(const uint8_t *)&probe == 1;
    const int ok_fmt = fmt == 'd' ? (f[0] == 'd' && f[1] == '\0') : ((f[0] == 'q' || f[0] == 'l') && f[1] == '\0');
    if (view->itemsize != 8 || !ok_fmt || (view->format && view->format[0] == '<' && !little) ||
        ((uintptr_t)view->buf & 7u) != 0) {
        PyErr_Format(PyExc_TypeError, "%s must be a writable, C-contiguous, aligned %s array", what,
                     fmt == 'd' ? "float64" : "int64");
        PyBuffer_Release(view);
        view->obj = NULL;
        return -1;
    }
    if (count < 0 || view->len / 8 != count || view->len % 8 != 0) {
        PyErr_Format(PyExc_ValueError, "%s must hold %zd values, it holds %zd", what, count, view->len / 8);
        PyBuffer_Release(view);
        view->obj = NULL;
        return -1;
    }
    return 0;
}

void raise_error(int err) {
    if (PyErr_Occurred()) return; /* the signal handler's exception */
    if (err == ERR_TOO_LONG)
        PyErr_SetString(PyExc_OverflowError, "a sentence is too long for the native chrF kernel");
    else if (err == ERR_INTERRUPTED)
        PyErr_SetNone(PyExc_KeyboardInterrupt);
    else
        PyErr_NoMemory();
}

/* n = product of a and b, or -1 with OverflowError. */
Py_ssize_t checked_mul(Py_ssize_t a, Py_ssize_t b) {
    if (a < 0 || b < 0 || (a > 0 && b > PY_SSIZE_T_MAX / a)) {
        PyErr_SetString(PyExc_OverflowError, "output size overflows");
        return -1;
    }
    return a * b;
}
