/*
 * BLEU's kernel (bleukit.metrics.bleu._kernel): what its Python entry points share.
 *
 *   module.c    the module: its state, the method table, multi-phase init
 *   args.c      the one check of the output buffers, KERR_* codes turned into exceptions
 *   batch.c     text gathered under the GIL (the references checked as bleukit.inputs does),
 *               then tokenized and counted without it (count_range)
 *   text.c      text_statistics, systems_statistics (the calling thread and its workers) and
 *               sentence_row
 *   ids.c       ids_statistics_flat: integer token ids, counted in place
 *   pairwise.c  pair_matches, unique_rows: every hypothesis against every reference
 *   libm.c      exp, log: the C library's, over vectors (the formula's exp and log)
 *   float32.c   float32_scores, scores: the formula without numpy
 *
 * bleu.h holds what the GIL-free parts (tokenize.c, count.c) share with these.
 */
#ifndef BLEUKIT_BLEU_MODULE_H
#define BLEUKIT_BLEU_MODULE_H

#include "bleu.h"
#include "common/pyhelpers.h"

#include <limits.h>

/* The most systems one systems_statistics call counts against the same references. */
#define MAX_SYSTEMS 1024
/* Code points gathered per release of the GIL: some 40 ms of work. The batch holds references,
 * not copies (32 bytes per segment), and every return to the GIL may wait a switch interval
 * (5 ms) for a thread running Python, so batches are large. A sentence counts as SENTENCE_CHARS
 * code points more than it has, so that a batch of empty sentences is bounded too. */
#define BATCH_CHARS ((int64_t)1 << 22)
#define SENTENCE_CHARS 16
/* Keeps 2 + 2 * order and the row indices within an int. */
#define MAX_ORDER ((INT_MAX - 2) / 2)

typedef struct {
    PyObject *str_lower;   /* str.lower, unbound: a subclass cannot override it */
    PyObject *main_thread; /* threading.main_thread, asked at each call (poll.h) */
    workspace *spare;      /* sentence_row's workspace between calls (NULL: none yet, or in use) */
} module_state;

static inline module_state *state_of(PyObject *module) { return (module_state *)PyModule_GetState(module); }

/* One segment of the batch: the str read without the GIL (a new reference) and where to read it. */
typedef struct {
    PyObject *str;
    segment_src src;
} held_segment;

/* Sentences gathered under the GIL, counted without it. Sentence s has segments first[s] to
 * first[s + 1] - 1 (its hypothesis, then its references) and weighs cum[s + 1] - cum[s] (code
 * points), by which the batch is split between threads. */
typedef struct {
    held_segment *seg;
    size_t *first;
    int64_t *cum;
    size_t n_seg, cap_seg, n_sent, cap_first, cap_cum;
    int64_t chars; /* cum[n_sent]: the weight of the batch */
} batch;

/* Column sums of the rows a thread counted, and the range of their numbers of references. */
typedef struct {
    int64_t *row;   /* the sentence being counted */
    int64_t *total; /* the sums so far */
    int64_t nrefs_lo, nrefs_hi;
} sums;

/* Where counted rows go: sentence s (of the batch) of system j at rows + j * stride + s * width,
 * its number of references at nrefs[j * nrefs_stride + s]; or, with sums, into them. */
typedef struct {
    int64_t *rows, *nrefs;
    Py_ssize_t width, stride, nrefs_stride;
    int systems;
} outrows;

typedef struct {
    Py_buffer rows, nrefs;
    Py_ssize_t width; /* 2 + 2 * order int64 per row */
} outputs;

/* args.c */
/* order in range; rows_out n x (2 + 2 order) and nrefs_out n writable int64, sizes checked
 * without overflow. 0, or -1 with the error and nothing to release. */
int check_outputs(int order, Py_ssize_t n, PyObject *rows, PyObject *nrefs, outputs *o);
void outputs_release(outputs *o);
/* Turn a failure (a KERR_* code) of the work without the GIL into the matching exception. */
void raise_kernel_error(int err);

/* batch.c */
/* Entry i of the private list `refs` checked (common/entries.h); an entry of another type is
 * replaced there by the Python check's list. 0, or -1 with the error. */
int check_entry(PyObject *refs, Py_ssize_t i, PyObject *normalize);
void batch_clear(batch *b);
void batch_free(batch *b);
/* Gather one sentence (i < 0: the one sentence of sentence_row); 0, or -1 with the error. */
int add_sentence(batch *b, PyObject *str_lower, PyObject *const *hyps, int systems, PyObject *entry, int lowercase,
                 Py_ssize_t i);
/* Gather sentences *i, *i + 1, ... into the empty batch `b` until it weighs `limit` code points. */
int gather_batch(batch *b, PyObject *str_lower, PyObject *const *hyps, int systems, PyObject *refs, int lowercase,
                 Py_ssize_t *i, int64_t limit);
/* Tokenize and count sentences lo..hi-1 of the batch without the GIL. */
int count_range(workspace *ws, workspace *refs, const batch *b, size_t lo, size_t hi, const outrows *o,
                sums *acc);
/* The private copy of one system's hypotheses, and text_statistics' list of them (new references). */
PyObject *hypotheses_copy(PyObject *in, Py_ssize_t n, int check);
PyObject *hypotheses_list(PyObject *in);

/* The entry points (module.c's method table) */
PyObject *py_text_statistics(PyObject *module, PyObject *args);       /* text.c */
PyObject *py_systems_statistics(PyObject *module, PyObject *args);    /* text.c */
PyObject *py_sentence_row(PyObject *module, PyObject *const *args, Py_ssize_t nargs); /* text.c */
PyObject *py_ids_statistics_flat(PyObject *module, PyObject *args);   /* ids.c */
PyObject *py_pair_matches(PyObject *module, PyObject *args);          /* pairwise.c */
PyObject *py_unique_rows(PyObject *module, PyObject *args);           /* pairwise.c */
PyObject *py_exp(PyObject *module, PyObject *args);                   /* libm.c */
PyObject *py_log(PyObject *module, PyObject *args);                   /* libm.c */
PyObject *bleu_float32_scores(PyObject *module, PyObject *args);      /* float32.c */
PyObject *bleu_scores(PyObject *module, PyObject *args);              /* float32.c */

#endif
