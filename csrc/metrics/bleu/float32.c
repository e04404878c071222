/*
 * BLEU of bootstrap resamples as sacreBLEU scores them, in C: float32_scores() of
 * bleukit.metrics.bleu._kernel (glue: bleukit.metrics.bleu.formula.native_float32_scores), and
 * scores() of integer statistics (glue: formula.native_scores).
 *
 * Why: the command line's significance tests (--confidence, --paired-bs, --paired-ar) run without
 * numpy (see bleukit.resampling); their thousands of resampled sums or trials need this formula,
 * and numpy's vectorised ones (bleukit.metrics.bleu.formula.score_float32_sums, and Metric.scores
 * for scores()) are the exact references that tests compare this with, row for row, with ==, for
 * every option.
 *
 * scores() is sacreBLEU's compute_bleu of integer statistics, Python floats throughout (below
 * 2**53 every statistic is an exact double): what approximate randomization scores each trial with.
 *
 * sacreBLEU sums each resample's rows in float32 and calls compute_bleu on the float32 numbers.
 * Below 2**24 those sums are the exact integers given here (larger ones are refused: their float32
 * sums depend on the order of the additions, and numpy's path reproduces that). With numpy 2
 * ("weak" Python scalars, NEP 50) every step to a precision is float32 arithmetic: 100 * correct,
 * its quotient by the total, the add-k sums, mteval's 100 / (2**k * total), the floor's
 * (100 * k) / total; with numpy 1 only the add-k sums are rounded to float32 (stored back into the
 * float32 array) and the rest is float64. Logarithms, their sum (left to right, or Neumaier's
 * compensated sum as Python >= 3.12's sum does; the caller says which), the division by the
 * order and exp() are Python's floats: the C library's log() and exp(), as math calls them.
 *
 * The file is compiled with -ffp-contract=off (no fused multiply-add), and float arithmetic in C99
 * rounds every assignment and cast to float, so each float32 step rounds as numpy's does.
 */
#include "module.h"

#include <math.h>
#include <stdint.h>

/* The smoothing methods, in the order of bleukit.metrics.bleu.formula.SMOOTH_CODES. */
enum { SMOOTH_NONE = 0, SMOOTH_FLOOR = 1, SMOOTH_ADD_K = 2, SMOOTH_EXP = 3 };

#define MAX_FLOAT32_ORDER 64
#define LOG_ZERO (-9999999999.0)
#define EXACT_FLOAT32 ((int64_t)1 << 24)
#define EXACT_FLOAT64_INT ((int64_t)1 << 53)

/* Python's sum() of the terms (a list of floats), as the running interpreter adds them. */
static double python_sum(const double *terms, int n, int compensated) {
    double total = 0.0;
    if (!compensated) {
        for (int i = 0; i < n; i++) total += terms[i];
        return total;
    }
    double c = 0.0;
    for (int i = 0; i < n; i++) {
        const double x = terms[i];
        const double t = total + x;
        if (fabs(total) >= fabs(x))
            c += (total - t) + x;
        else
            c += (x - t) + total;
        total = t;
    }
    if (c != 0.0 && isfinite(c)) total += c;
    return total;
}

/* Through function pointers, as in libm.c: the C library's own exp() and log(). */
static double (*volatile libm_exp)(double) = exp;
static double (*volatile libm_log)(double) = log;

/* How a row's precisions are computed (the caller's `arithmetic`). */
enum { NUMPY1_FLOAT32 = 0, NUMPY2_FLOAT32 = 1, EXACT_FLOAT64 = 2 };

/* sacreBLEU's compute_bleu of one row: sys_len, ref_len, then `order` matches and `order` totals.
 * NUMPY1_FLOAT32 and NUMPY2_FLOAT32 are its float32 bootstrap sums under numpy 1 and 2 (the header
 * says which steps round to float32), EXACT_FLOAT64 its integer statistics (approximate
 * randomization's trials, a corpus): Python floats throughout. Every statistic below 2**24 (2**53
 * for EXACT_FLOAT64) is an exact float, so holding it in a double changes nothing. */
static double score_row(const int64_t *row, int order, int method, double k, int effective_order, int arithmetic,
                        int compensated) {
    const double sys_len = (double)row[0], ref_len = (double)row[1];
    const double bp = sys_len < ref_len ? (sys_len > 0 ? libm_exp(1.0 - ref_len / sys_len) : 0.0) : 1.0;
    int any = 0;
    for (int n = 0; n < order; n++) any |= row[2 + n] != 0;
    if (!any) return 0.0; /* sacreBLEU returns before any smoothing when nothing matched */
    const int weak = arithmetic == NUMPY2_FLOAT32;
    double precisions[MAX_FLOAT32_ORDER];
    for (int n = 0; n < order; n++) precisions[n] = 0.0;
    double mteval = 1.0;
    int eff = order;
    const float k32 = (float)k;
    for (int n = 0; n < order; n++) {
        double correct = (double)row[2 + n], total = (double)row[2 + order + n];
        if (method == SMOOTH_ADD_K && n > 0) {
            if (arithmetic == EXACT_FLOAT64) {
                correct = correct + k;
                total = total + k;
            } else if (weak) {
                correct = (double)((float)correct + k32);
                total = (double)((float)total + k32);
            } else { /* numpy 1: float64 sums stored back into the float32 array */
                correct = (double)(float)(correct + k);
                total = (double)(float)(total + k);
            }
        }
        if (total == 0.0) break;
        if (effective_order) eff = n + 1;
        if (correct == 0.0) {
            if (method == SMOOTH_EXP) {
                mteval *= 2.0;
                if (weak) {
                    const float denominator = (float)mteval * (float)total;
                    precisions[n] = (double)(100.0f / denominator);
                } else {
                    precisions[n] = 100.0 / (mteval * total);
                }
            } else if (method == SMOOTH_FLOOR) {
                const double numerator = 100.0 * k;
                precisions[n] = weak ? (double)((float)numerator / (float)total) : numerator / total;
            }
        } else if (weak) {
            const float scaled = 100.0f * (float)correct;
            precisions[n] = (double)(scaled / (float)total);
        } else {
            precisions[n] = 100.0 * correct / total;
        }
    }
    double logs[MAX_FLOAT32_ORDER];
    for (int n = 0; n < eff; n++) logs[n] = precisions[n] == 0.0 ? LOG_ZERO : libm_log(precisions[n]);
    return bp * libm_exp(python_sum(logs, eff, compensated) / eff);
}

/* The checks and the loop of float32_scores and scores: the BLEU of every row of `sums`. */
static PyObject *score_sums(PyObject *sums_obj, int order, int method, double k, int effective_order, int arithmetic,
                            int compensated, PyObject *out_obj) {
    if (order < 1 || order > MAX_FLOAT32_ORDER) {
        PyErr_Format(PyExc_ValueError, "order must lie in [1, %d], got %d", MAX_FLOAT32_ORDER, order);
        return NULL;
    }
    if (method < SMOOTH_NONE || method > SMOOTH_EXP) {
        PyErr_Format(PyExc_ValueError, "unknown smoothing code %d", method);
        return NULL;
    }
    if (!isfinite(k)) {
        PyErr_SetString(PyExc_ValueError, "the smoothing value must be finite");
        return NULL;
    }
    Py_buffer sums, out;
    if (int64_buffer(sums_obj, &sums, 0, "sums") < 0) return NULL;
    if (float64_buffer(out_obj, &out, 1, "out") < 0) {
        buffer_release(&sums);
        return NULL;
    }
    PyObject *result = NULL;
    const Py_ssize_t width = 2 + 2 * (Py_ssize_t)order, cells = int64_items(&sums), rows = out.len / 8;
    if (cells != rows * width) {
        PyErr_Format(PyExc_ValueError, "sums hold %zd items, out %zd rows: %zd rows of width %zd expected", cells,
                     rows, rows, width);
        goto done;
    }
    const int64_t *s = (const int64_t *)sums.buf;
    const int64_t largest = arithmetic == EXACT_FLOAT64 ? EXACT_FLOAT64_INT : EXACT_FLOAT32;
    for (Py_ssize_t i = 0; i < cells; i++) {
        if (s[i] < 0 || s[i] > largest) {
            if (arithmetic == EXACT_FLOAT64)
                PyErr_Format(PyExc_ValueError, "sum %zd is %lld: statistics must lie in [0, 2**53]", i,
                             (long long)s[i]);
            else
                PyErr_Format(PyExc_ValueError,
                             "sum %zd is %lld: float32 sums are exact integers only in [0, 2**24]; score larger "
                             "ones with formula.score_float32_sums",
                             i, (long long)s[i]);
            goto done;
        }
    }
    double *o = (double *)out.buf;
    Py_BEGIN_ALLOW_THREADS
    for (Py_ssize_t r = 0; r < rows; r++) o[r] = score_row(s + r * width, order, method, k, effective_order,
                                                           arithmetic, compensated);
    Py_END_ALLOW_THREADS
    Py_INCREF(Py_None);
    result = Py_None;
done:
    buffer_release(&sums);
    PyBuffer_Release(&out);
    return result;
}

PyObject *bleu_float32_scores(PyObject *self, PyObject *args) {
    (void)self;
    PyObject *sums_obj, *out_obj;
    int order, method, effective_order, weak, compensated;
    double k;
    if (!PyArg_ParseTuple(args, "OiidpppO:float32_scores", &sums_obj, &order, &method, &k, &effective_order, &weak,
                          &compensated, &out_obj))
        return NULL;
    return score_sums(sums_obj, order, method, k, effective_order, weak ? NUMPY2_FLOAT32 : NUMPY1_FLOAT32,
                      compensated, out_obj);
}

PyObject *bleu_scores(PyObject *self, PyObject *args) {
    (void)self;
    PyObject *sums_obj, *out_obj;
    int order, method, effective_order, compensated;
    double k;
    if (!PyArg_ParseTuple(args, "OiidppO:scores", &sums_obj, &order, &method, &k, &effective_order, &compensated,
                          &out_obj))
        return NULL;
    return score_sums(sums_obj, order, method, k, effective_order, EXACT_FLOAT64, compensated, out_obj);
}
