/*
 * ids_statistics_flat of bleukit.metrics.bleu._kernel: BLEU statistics of integer token ids. The
 * buffers are pinned for the whole call, so the ids are counted in place without the GIL, and
 * Ctrl-C is polled as in text.c.
 */
#include "module.h"

#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------------------------------------ */
/* token ids                                                                                   */

/* The statistics of one flat batch: sequence j has lengths[j] ids (consecutive in tokens) and
 * belongs to row owner[j]; sequences are ordered by row, the hypothesis first. The ids of a row
 * are contiguous, so they are counted in place without a copy. The layout (lengths, owner) is
 * copied before it is checked: the work without the GIL follows the checked copy, so another
 * thread writing to the caller's arrays meanwhile can change ids (and so the counts) but never
 * send a read outside the buffers. */
PyObject *py_ids_statistics_flat(PyObject *module, PyObject *args) {
    PyObject *tok_in, *len_in, *own_in, *rows_in, *nrefs_in;
    Py_ssize_t n;
    int order;
    if (!PyArg_ParseTuple(args, "OOOniOO:ids_statistics_flat", &tok_in, &len_in, &own_in, &n, &order, &rows_in,
                          &nrefs_in))
        return NULL;
    const module_state *st = state_of(module);
    PyObject *result = NULL;
    Py_buffer tok = {0}, len = {0}, own = {0};
    outputs out = {0};
    int64_t *layout = NULL; /* private copy: lengths, then owner */
    workspace ws;
    memset(&ws, 0, sizeof(ws));
    poller poll;
    if (int64_buffer(tok_in, &tok, 0, "tokens") < 0 || int64_buffer(len_in, &len, 0, "lengths") < 0 ||
        int64_buffer(own_in, &own, 0, "owner") < 0 || check_outputs(order, n, rows_in, nrefs_in, &out) < 0)
        goto done;
    if (own.len != len.len) {
        PyErr_SetString(PyExc_ValueError, "flat ids: buffers have inconsistent sizes");
        goto done;
    }
    const Py_ssize_t nseq = int64_items(&len), ntok = int64_items(&tok);
    layout = (int64_t *)malloc(2 * (size_t)nseq * sizeof(int64_t) + 1); /* nseq <= PY_SSIZE_T_MAX / 8 */
    if (!layout) {
        PyErr_NoMemory();
        goto done;
    }
    if (nseq) {
        memcpy(layout, len.buf, (size_t)nseq * sizeof(int64_t));
        memcpy(layout + nseq, own.buf, (size_t)nseq * sizeof(int64_t));
    }
    const int64_t *tokens = (const int64_t *)tok.buf, *lengths = layout, *owner = layout + nseq;
    /* The whole layout is checked before any counting: no length is negative, every row has a
     * hypothesis and a reference, rows come in order, the lengths add up to the ids exactly
     * (summed without overflow: each is compared with what is left), and no row is longer than
     * the kernel's limits. */
    for (Py_ssize_t j = 0; j < nseq; j++)
        if (lengths[j] < 0) {
            PyErr_SetString(PyExc_ValueError, "flat ids: negative length");
            goto done;
        }
    {
        Py_ssize_t j = 0;
        int64_t left = ntok;
        for (Py_ssize_t i = 0; i < n; i++) {
            const Py_ssize_t first = j;
            int64_t row_len = 0;
            for (; j < nseq && owner[j] == i; j++) {
                if (lengths[j] > left) {
                    PyErr_SetString(PyExc_ValueError, "flat ids: lengths exceed the ids");
                    goto done;
                }
                left -= lengths[j];
                row_len += lengths[j];
            }
            if (j - first < 2) {
                PyErr_Format(PyExc_ValueError, "flat ids: row %zd needs a hypothesis and at least one reference", i);
                goto done;
            }
            if (lengths[first] > MAX_HYP_TOKENS || row_len > MAX_SENTENCE_CHARS) {
                PyErr_Format(PyExc_OverflowError, "flat ids: row %zd is too long for the native kernel", i);
                goto done;
            }
        }
        if (j != nseq || left != 0) {
            PyErr_SetString(PyExc_ValueError, "flat ids: sequences are not ordered by row or do not cover the ids");
            goto done;
        }
    }
    if (poller_start(&poll, st->main_thread) < 0) goto done;
    ws.order = order;
    ws.poll = &poll;
    int64_t *rows = (int64_t *)out.rows.buf, *nrefs = (int64_t *)out.nrefs.buf;
    int rc = 0;
    poller_release(&poll);
    {
        int64_t offset = 0;
        Py_ssize_t j = 0;
        for (Py_ssize_t i = 0; i < n && rc == 0; i++) {
            const int64_t row_start = offset;
            const Py_ssize_t first = j;
            ws.seg_start.n = 0;
            for (; j < nseq && owner[j] == i; j++) {
                if (i64_reserve(&ws, &ws.seg_start, ws.seg_start.n + 2) < 0) {
                    rc = -1;
                    break;
                }
                ws.seg_start.d[ws.seg_start.n++] = offset - row_start;
                offset += lengths[j];
            }
            if (rc < 0) break;
            ws.seg_start.d[ws.seg_start.n++] = offset - row_start;
            rc = count_sentence(&ws, rows + i * out.width, tokens + row_start);
            nrefs[i] = (int64_t)(j - first - 1);
            if (rc == 0) rc = ws_work(&ws, SENTENCE_CHARS); /* a row's fixed cost; its loops report themselves */
        }
    }
    poller_acquire(&poll);
    if (rc < 0) {
        raise_kernel_error(ws.err);
        goto done;
    }
    result = Py_None;
    Py_INCREF(result);
done:
    free(layout);
    workspace_free(&ws);
    buffer_release(&tok);
    buffer_release(&len);
    buffer_release(&own);
    outputs_release(&out);
    return result;
}

