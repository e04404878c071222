/*
 * Reference entries as bleukit.inputs.check_reference_entry checks them, for every kernel that
 * reads the caller's references in place (BLEU's text paths, csrc/metrics/bleu/batch.c; chrF's one-sentence path).
 *
 * An entry (references[i] of a corpus, or the references of one sentence) is a str, or a list or
 * tuple of str and None (None marks a missing reference) holding at least one str. The errors are
 * the Python check's, word for word (tests/core/test_inputs.py pins them). An entry of any other
 * type (a numpy array, a user's sequence class) is read by that Python check itself, which the
 * kernel calls: it returns a list of str or raises.
 */
#ifndef BLEUKIT_ENTRIES_H
#define BLEUKIT_ENTRIES_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>

enum { ENTRY_NONE, ENTRY_EMPTY, ENTRY_ITEM, ENTRY_TYPE };

/* Raise the check's error for entry i (i < 0: the references of one sentence). */
static inline void entry_error(int what, Py_ssize_t i, Py_ssize_t k, PyObject *bad) {
    PyObject *where = i >= 0 ? PyUnicode_FromFormat("references[%zd]", i) : PyUnicode_FromString("references");
    PyObject *name = bad ? PyObject_GetAttrString((PyObject *)Py_TYPE(bad), "__name__") : NULL;
    if (where && (name || !bad)) {
        if (what == ENTRY_NONE)
            PyErr_Format(PyExc_ValueError, "%U is None: every hypothesis needs at least one reference", where);
        else if (what == ENTRY_EMPTY)
            PyErr_Format(PyExc_ValueError,
                         "%U holds no reference (empty or all None): every hypothesis needs at least one", where);
        else if (what == ENTRY_ITEM)
            PyErr_Format(PyExc_TypeError, "%U[%zd] must be a str or None, got %U", where, k, name);
        else
            PyErr_Format(PyExc_TypeError, "%U must be a str or a list of str (None for a missing reference), got %U",
                         where, name);
    }
    Py_XDECREF(where);
    Py_XDECREF(name);
}

/* The number of references of an entry (>= 1); 0 when it is of a type read through the Python
 * check; -1 with the error. */
static inline Py_ssize_t count_entry(PyObject *e, Py_ssize_t i) {
    if (PyUnicode_Check(e)) return 1;
    if (e == Py_None) {
        entry_error(ENTRY_NONE, i, 0, NULL);
        return -1;
    }
    if (!PyList_CheckExact(e) && !PyTuple_CheckExact(e)) return 0;
    const Py_ssize_t n = PySequence_Fast_GET_SIZE(e);
    PyObject **items = PySequence_Fast_ITEMS(e);
    Py_ssize_t found = 0;
    for (Py_ssize_t k = 0; k < n; k++) {
        if (items[k] == Py_None) continue;
        if (!PyUnicode_Check(items[k])) {
            entry_error(ENTRY_ITEM, i, k, items[k]);
            return -1;
        }
        found++;
    }
    if (!found) entry_error(ENTRY_EMPTY, i, 0, NULL);
    return found ? found : -1;
}

/* Entry `e` (number i) as the kernel reads it: itself (a new reference) when it is a str, list
 * or tuple, else normalize(e, i)'s list (None: the type's error); NULL with the error. */
static inline PyObject *readable_entry(PyObject *e, Py_ssize_t i, PyObject *normalize) {
    const Py_ssize_t found = count_entry(e, i);
    if (found < 0) return NULL;
    if (found > 0) {
        Py_INCREF(e);
        return e;
    }
    if (normalize == Py_None || !PyCallable_Check(normalize)) {
        entry_error(ENTRY_TYPE, i, 0, e);
        return NULL;
    }
    PyObject *fixed = PyObject_CallFunction(normalize, "On", e, i);
    if (!fixed) return NULL;
    if (!PyList_CheckExact(fixed) || count_entry(fixed, i) < 1) {
        if (!PyErr_Occurred()) PyErr_SetString(PyExc_TypeError, "normalize must return a list of str");
        Py_DECREF(fixed);
        return NULL;
    }
    return fixed;
}

#endif
