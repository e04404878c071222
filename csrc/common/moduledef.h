/*
 * What every bleukit kernel's module definition shares.
 *
 * Each kernel is a multi-phase init module (PEP 489) whose state lives in the module object, never
 * in globals, so it loads in subinterpreters with a GIL of their own (3.12+), and declares that it
 * does not need the GIL (3.13+): importing it on a free-threaded build leaves the GIL off. Every
 * call works on its own buffers. Its slots are therefore the same everywhere:
 *
 *     static PyModuleDef_Slot slots[] = {KERNEL_SLOTS(module_exec)};
 */
#ifndef BLEUKIT_MODULEDEF_H
#define BLEUKIT_MODULEDEF_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>

#ifdef Py_mod_multiple_interpreters /* 3.12+: no global state, so each interpreter may have its own GIL */
#define KERNEL_SLOT_INTERPRETERS {Py_mod_multiple_interpreters, Py_MOD_PER_INTERPRETER_GIL_SUPPORTED},
#else
#define KERNEL_SLOT_INTERPRETERS
#endif
#ifdef Py_mod_gil /* 3.13+: safe without the GIL */
#define KERNEL_SLOT_GIL {Py_mod_gil, Py_MOD_GIL_NOT_USED},
#else
#define KERNEL_SLOT_GIL
#endif

/* The slot list of a kernel whose Py_mod_exec function is `exec_fn`, ending with its terminator. */
#define KERNEL_SLOTS(exec_fn) {Py_mod_exec, (void *)(exec_fn)}, KERNEL_SLOT_INTERPRETERS KERNEL_SLOT_GIL {0, NULL}

/* str.lower, unbound (a new reference, NULL with an exception): the kernels lowercase non-ASCII
 * text with it under the GIL, and a str subclass cannot override it. */
static inline PyObject *str_lower_method(void) {
    return PyObject_GetAttrString((PyObject *)&PyUnicode_Type, "lower");
}

#endif
