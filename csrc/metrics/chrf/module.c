/*
 * bleukit.metrics.chrf._kernel: the method table and the module's state (chrf.h lists the files
 * behind each entry point; the typed signatures are in src/bleukit/metrics/chrf/_kernel.pyi).
 * Multi-phase init with module state and the GIL not needed (common/moduledef.h).
 */
#include "chrf.h"
#include "common/moduledef.h"

static PyMethodDef methods[] = {
    {"statistics", py_statistics, METH_VARARGS,
     "statistics(hyps, refs, char_order, word_order, lowercase, whitespace, eps_smoothing, factor, one_plus,\n"
     "           punctuation, out, threads)\n\n"
     "Fill out (int64, n x 3 (char_order + word_order)) with the chrF statistics of hyps[i] (a str)\n"
     "against the best of refs[i] (a non-empty list of str). factor and one_plus are beta ** 2 and\n"
     "1 + beta ** 2; punctuation the ASCII characters split off words. Releases the GIL."},
    {"pairwise", py_pairwise, METH_VARARGS,
     "pairwise(hyps, refs, char_order, word_order, lowercase, whitespace, eps_smoothing, factor, one_plus,\n"
     "         punctuation, scores_out, rows_out, threads)\n\n"
     "Sentence chrF (scores_out, float64 N x M) and/or statistics rows (rows_out, int64 N x M x 3 order)\n"
     "of every hypothesis against every single reference (pass the same list twice for MBR).\n"
     "Either output may be None. Releases the GIL."},
    {"sentence", py_sentence, METH_VARARGS,
     "sentence(hyp, refs, char_order, word_order, lowercase, whitespace, eps_smoothing, factor, one_plus,\n"
     "         punctuation, normalize)\n\n"
     "The statistics row of one hypothesis against its references (a str, or a list or tuple of str\n"
     "and None; another type goes through normalize(refs, -1), which returns a list of str): a tuple\n"
     "of 3 (char_order + word_order) ints, then the number of references."},
    {NULL, NULL, 0, NULL}};

static int module_exec(PyObject *m) {
    module_state *st = get_state(m);
    st->main_thread = poll_main_thread();
    if (!st->main_thread) return -1;
    st->str_lower = str_lower_method();
    if (!st->str_lower) return -1;
    return PyModule_AddIntConstant(m, "MAX_ORDER", MAX_ORDER) < 0 ||
                   PyModule_AddIntConstant(m, "MAX_THREADS", MAX_THREADS) < 0
               ? -1
               : 0;
}

static int module_traverse(PyObject *m, visitproc visit, void *arg) {
    module_state *st = get_state(m);
    if (st) {
        Py_VISIT(st->str_lower);
        Py_VISIT(st->main_thread);
    }
    return 0;
}

static int module_clear(PyObject *m) {
    module_state *st = get_state(m);
    if (st) {
        Py_CLEAR(st->str_lower);
        Py_CLEAR(st->main_thread);
        if (st->spare) {
            worker_free(st->spare);
            PyMem_Free(st->spare);
            st->spare = NULL;
        }
    }
    return 0;
}

static void module_free(void *m) { module_clear((PyObject *)m); }

static PyModuleDef_Slot slots[] = {KERNEL_SLOTS(module_exec)};

static struct PyModuleDef moduledef = {
    PyModuleDef_HEAD_INIT,
    "bleukit.metrics.chrf._kernel",
    "bleukit's compiled chrF / chrF++ kernel (see bleukit.metrics.chrf.extract).",
    sizeof(module_state),
    methods,
    slots,
    module_traverse,
    module_clear,
    module_free,
};

PyMODINIT_FUNC PyInit__kernel(void) { return PyModuleDef_Init(&moduledef); }
