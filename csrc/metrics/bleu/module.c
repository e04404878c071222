/*
 * bleukit.metrics.bleu._kernel, BLEU's one compiled module: the method table and the module's
 * state (module.h lists the files behind each entry point; the typed signatures are in
 * src/bleukit/metrics/bleu/_kernel.pyi). Its glue: bleukit.metrics.bleu.kernel (text and ids ->
 * statistics), .pairs (pairwise matches), .libm (exp, log) and .formula (float32 scores), each
 * loading it through bleukit._native.
 *
 * The module keeps no global state (multi-phase init, PEP 489; its state is str.lower,
 * threading.main_thread and sentence_row's spare workspace), so it loads in subinterpreters, and
 * it declares that it does not need the GIL (common/moduledef.h): on a free-threaded build
 * importing it leaves the GIL off.
 */
#include "common/moduledef.h"
#include "module.h"

/* ------------------------------------------------------------------------------------------ */
/* module                                                                                      */

static PyMethodDef methods[] = {
    {"text_statistics", py_text_statistics, METH_VARARGS,
     "text_statistics($module, hyps, refs, tokenizer, lowercase, order, table, rows_out, nrefs_out,\n"
     "                threads=1, summed=0, normalize=None, /)\n--\n\n"
     "Fill rows_out (int64, n x (2 + 2 order)) and nrefs_out (int64, n) with the statistics of\n"
     "hyps[i] (a str) against refs[i] (a str, or a list or tuple of str and None, at least one\n"
     "str; another type goes through normalize(entry, i), which returns a list of str). With\n"
     "summed, rows_out is 1 x (2 + 2 order): the column sums, and nrefs_out[0] the common number\n"
     "of references (-1 when they differ). tokenizer is one of the TOK_* constants; table is\n"
     "bleukit.metrics.bleu.kernel.character_table(). Counts on `threads` threads, without the GIL."},
    {"systems_statistics", py_systems_statistics, METH_VARARGS,
     "systems_statistics($module, systems, refs, tokenizer, lowercase, order, table, rows_out, nrefs_out,\n"
     "                   threads=1, normalize=None, /)\n--\n\n"
     "text_statistics for several systems translating the same sentences: rows_out is S x n x\n"
     "(2 + 2 order) and nrefs_out S x n (int64), system j's rows at [j]. Each sentence's references\n"
     "are tokenized once for all systems."},
    {"sentence_row", (PyCFunction)(void (*)(void))py_sentence_row, METH_FASTCALL,
     "sentence_row($module, hyp, refs, tokenizer, lowercase, order, table, normalize, /)\n--\n\n"
     "The statistics row of one hypothesis against its references (an entry as in\n"
     "text_statistics), as a tuple of 2 + 2 order ints followed by the number of references."},
    {"ids_statistics_flat", py_ids_statistics_flat, METH_VARARGS,
     "ids_statistics_flat($module, tokens, lengths, owner, n_rows, order, rows_out, nrefs_out, /)\n--\n\n"
     "The same statistics from a flat batch of int64 ids: one length and owner row per\n"
     "sequence, sequences ordered by row with the hypothesis first. Releases the GIL."},
    {"pair_matches", py_pair_matches, METH_VARARGS,
     "pair_matches($module, hyp_ptr, hyp_gid, hyp_ord, hyp_cnt, post_ptr, post_ref, post_cnt, i0, i1, m, order,\n"
     "             out, threads, width=-1, offset=0, /)\n--\n\n"
     "Zero out (int64, (i1 - i0) x m x width) and write the clipped n-gram matches of hypotheses i0..i1-1\n"
     "against references 0..m-1 into its columns offset..offset+order-1, from the counted tables\n"
     "(all int64, see csrc/metrics/bleu/pairwise.c). width -1 means order. Releases the GIL."},
    {"unique_rows", py_unique_rows, METH_VARARGS,
     "unique_rows($module, rows, width, first_out, inverse_out, /)\n--\n\n"
     "Distinct rows of an int64 table: first_out[:k] their first row indices, inverse_out each row's distinct\n"
     "row; returns k. Releases the GIL."},
    {"exp", py_exp, METH_VARARGS,
     "exp($module, x, out, /)\n--\n\n"
     "out[i] = exp(x[i]) with the C library's exp() (what math.exp calls). x and out are C-contiguous\n"
     "float64 buffers of the same length; out may be x itself. Releases the GIL for large vectors."},
    {"log", py_log, METH_VARARGS,
     "log($module, x, out, /)\n--\n\n"
     "out[i] = log(x[i]) with the C library's log() (what math.log calls for x > 0). x and out are\n"
     "C-contiguous float64 buffers of the same length; out may be x itself. Releases the GIL for large\n"
     "vectors."},
    {"float32_scores", bleu_float32_scores, METH_VARARGS,
     "float32_scores($module, sums, order, smooth_method, smooth_value, effective_order, weak_scalars,\n"
     "               compensated_sum, out, /)\n--\n\n"
     "out[r] = sacreBLEU's BLEU of the float32 resample sums in row r of the int64 table sums (each in\n"
     "[0, 2**24]), as bleukit.metrics.bleu.formula.score_float32_sums computes it (see csrc/metrics/bleu/float32.c)."},
    {"scores", bleu_scores, METH_VARARGS,
     "scores($module, sums, order, smooth_method, smooth_value, effective_order, compensated_sum, out, /)\n--\n\n"
     "out[r] = sacreBLEU's BLEU of the integer statistics in row r of the int64 table sums (each in [0, 2**53]),\n"
     "as BLEU's formula (Metric.scores) computes it, without numpy (see csrc/metrics/bleu/float32.c)."},
    {NULL, NULL, 0, NULL}};

static int module_exec(PyObject *m) {
    module_state *st = state_of(m);
    st->str_lower = str_lower_method();
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
        PyModule_AddIntConstant(m, "MAX_ORDER", MAX_ORDER) < 0 ||
        PyModule_AddIntConstant(m, "MAX_THREADS", MAX_THREADS) < 0 ||
        PyModule_AddIntConstant(m, "MAX_SYSTEMS", MAX_SYSTEMS) < 0)
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
    if (st->spare) {
        workspace_free(st->spare);
        PyMem_Free(st->spare);
        st->spare = NULL;
    }
    return 0;
}

static void module_free(void *m) { module_clear((PyObject *)m); }

static PyModuleDef_Slot slots[] = {KERNEL_SLOTS(module_exec)};

static struct PyModuleDef moduledef = {
    .m_base = PyModuleDef_HEAD_INIT,
    .m_name = "bleukit.metrics.bleu._kernel",
    .m_doc = "BLEU's compiled kernel: statistics of text and ids, pairwise matches, the formula's libm and float32\n"
              "scores (see bleukit.metrics.bleu.kernel, .pairs, .libm and .formula).",
    .m_size = sizeof(module_state),
    .m_methods = methods,
    .m_slots = slots,
    .m_traverse = module_traverse,
    .m_clear = module_clear,
    .m_free = module_free,
};

PyMODINIT_FUNC PyInit__kernel(void) { return PyModuleDef_Init(&moduledef); }

