/*
 * text_statistics, systems_statistics and sentence_row of bleukit.metrics.bleu._kernel (the glue
 * is bleukit.metrics.bleu.kernel; the typed signatures are in src/bleukit/metrics/bleu/_kernel.pyi).
 *
 * Every entry point validates all of its arguments (args.c's check_outputs, pyhelpers.h's
 * int64_buffer, the reference entries) before any work, as strictly as a public function would:
 * the tokenize and count steps then trust them. Under the GIL a batch of sentences is gathered
 * (batch.c), then tokenized and counted without the GIL; with threads, the calling thread
 * gathers the next batch while the others count this one, then joins them. Signals are checked
 * between batches and, in the main thread (the only one where Python runs signal handlers),
 * inside long work every 10 ms (common/poll.h), even within one enormous sentence, so Ctrl-C
 * raises KeyboardInterrupt within some 10 ms.
 *
 * Every call works in its own workspaces, holds references to the str it reads and copies the
 * outer lists, so concurrent calls share nothing.
 */
#include "common/entries.h"
#include "module.h"

#include <stdlib.h>
#include <string.h>

#include "common/pool.h"

/* Counting on several threads, each batch gathered while the last one is counted (common/pool.h;
 * without POSIX threads a call counts on the calling thread alone). */
#define TEXT_THREADS POOL_THREADS
/* With threads, the first batch (gathered while no thread counts yet) is this part of a full one. */
#define FIRST_BATCH_PARTS 16

/* ------------------------------------------------------------------------------------------ */
/* threads                                                                                     */

/* Bytes between two threads' workspaces or sums, each written at every sentence: at least a cache
 * line, so that no line holds both (false sharing made the two-thread call 8% more work). */
#define THREAD_GAP 64

/* One counting thread's workspace, kept off its neighbours' cache lines. */
typedef struct {
    workspace ws;
    char gap[THREAD_GAP];
} lane;

/* A call's counting threads: the calling thread (which polls for signals) and up to
 * MAX_THREADS - 1 workers started per batch, each with its own workspace and sums. */
typedef struct {
    lane *ws;
    lane *refs;        /* with several systems: each thread's references, tokenized once */
    sums *acc;         /* NULL: rows are written out */
    int64_t *acc_rows; /* the sums' rows and totals, THREAD_GAP apart */
    poller idle;     /* the workers' (never polls) */
    volatile int stop;
    int threads;
} counters;

#if TEXT_THREADS
/* Sentences a thread takes from the shared batch at a time: a few hundred microseconds of work, so
 * that the threads finish a batch together, and one lock per take costs nothing. */
#define TAKE_SENTENCES 64

/* A batch counted by the calling thread and its workers (common/pool.h), each taking the next
 * TAKE_SENTENCES sentences not yet taken: a thread that starts late (the calling thread gathers
 * the next batch first) or runs slower simply takes fewer. */
typedef struct {
    pool pool;   /* its lock guards `next` */
    size_t next; /* the first sentence of the batch nobody has taken */
    const batch *b;
    const outrows *o;
} crew;

typedef struct {
    workspace *ws, *refs;
    sums *acc;
    crew *crew;
} part;

/* The next sentences of the batch for one thread: 0 with [*lo, *hi), -1 when all are taken. */
static int crew_take(crew *c, size_t *lo, size_t *hi) {
    pool_lock(&c->pool);
    const size_t n = c->b->n_sent;
    *lo = c->next;
    *hi = n - *lo > TAKE_SENTENCES ? *lo + TAKE_SENTENCES : n;
    c->next = *hi;
    pool_unlock(&c->pool);
    return *lo < *hi ? 0 : -1;
}

/* Count the sentences this thread takes until none are left or another thread asked all to stop. */
static int count_taken(crew *c, workspace *ws, workspace *refs, sums *acc) {
    size_t lo, hi;
    while (crew_take(c, &lo, &hi) == 0) {
        if (ws->stop && *ws->stop) {
            ws->err = KERR_INTERRUPTED;
            return -1;
        }
        if (count_range(ws, refs, c->b, lo, hi, c->o, acc) < 0) return -1;
    }
    return 0;
}

static void run_part(void *arg) {
    part *p = (part *)arg;
    if (count_taken(p->crew, p->ws, p->refs, p->acc) < 0 && p->ws->stop)
        *p->ws->stop = 1; /* the others stop at their next report */
}

/* The calling thread's poll while it waits for the workers (pool_finish): a raised handler tells
 * the workers to stop, and the wait goes on until they have (they use the batch). */
static int crew_poll(void *arg) {
    workspace *self = (workspace *)arg;
    if (self->err) return -1; /* stopping already: nothing to poll for */
    if (poller_check(self->poll) < 0) {
        self->err = KERR_INTERRUPTED;
        *self->stop = 1;
        return -1;
    }
    return 0;
}

/* One batch on several threads: started by crew_start (with or without the GIL), its workers
 * count while the calling thread may still gather the next batch under the GIL; crew_finish
 * (without the GIL) adds the calling thread's share and waits for them. */
typedef struct {
    crew c;
    int ok; /* the pool exists (else the calling thread counts the batch alone) */
    int workers;
    part jobs[MAX_THREADS];
} crew_run;


static void crew_start(crew_run *r, counters *k, const batch *b, const outrows *o) {
    int parts = k->threads;
    if ((size_t)parts > b->n_sent) parts = b->n_sent > 0 ? (int)b->n_sent : 1;
    r->workers = parts - 1;
    r->c.next = 0;
    r->c.b = b;
    r->c.o = o;
    r->ok = pool_init(&r->c.pool) == 0;
    for (int t = 1; t <= r->workers && r->ok; t++) {
        r->jobs[t] = (part){&k->ws[t].ws, k->refs ? &k->refs[t].ws : NULL, k->acc ? &k->acc[t] : NULL, &r->c};
        pool_start(&r->c.pool, run_part, &r->jobs[t]); /* one that does not start: the others take its sentences */
    }
}

/* The calling thread's share of the batch (none with `take` 0: the call is stopping), then the
 * wait for the workers. -1 when any thread failed or was stopped. */
static int crew_finish(crew_run *r, counters *k, int take) {
    workspace *self = &k->ws[0].ws, *self_refs = k->refs ? &k->refs[0].ws : NULL;
    sums *own = k->acc ? &k->acc[0] : NULL;
    int rc = 0;
    if (take) {
        rc = r->ok ? count_taken(&r->c, self, self_refs, own)
                   : count_range(self, self_refs, r->c.b, 0, r->c.b->n_sent, r->c.o, own);
        if (rc < 0) *self->stop = 1;
    }
    if (r->ok) pool_finish(&r->c.pool, self->poll->enabled ? crew_poll : NULL, self);
    for (int t = 1; t <= r->workers; t++)
        if (k->ws[t].ws.err) rc = -1;
    return rc < 0 || self->err ? -1 : 0;
}
#endif

/* The failure to report of a call whose threads stopped: a real error before an interruption
 * (a worker stopped by the one that failed reports KERR_INTERRUPTED). */
static int counters_error(const counters *k) {
    int err = KERR_NONE;
    for (int t = 0; t < k->threads; t++)
        if (k->ws[t].ws.err && (err == KERR_NONE || err == KERR_INTERRUPTED)) err = k->ws[t].ws.err;
    return err;
}

/* What text_statistics and systems_statistics share once their arguments are parsed: `hyps` holds
 * one private list of hypotheses per system (checked), `refs` the private list of entries. */
static PyObject *count_text(PyObject *module, PyObject *const *hyps, int systems, PyObject *refs, int tokenizer,
                            int lowercase, int order, PyObject *table_in, PyObject *rows_in, PyObject *nrefs_in,
                            int threads, int summed, PyObject *normalize) {
    const module_state *st = state_of(module);
    PyObject *result = NULL;
    Py_buffer table = {0};
    outputs out = {0};
    batch b = {0}, b2 = {0};
    counters k = {0};
    poller poll;
    if (tokenizer < TOK_13A || tokenizer > TOK_NONE) {
        PyErr_Format(PyExc_ValueError, "unknown tokenizer code %d", tokenizer);
        goto done;
    }
    if (threads < 1 || threads > MAX_THREADS) {
        PyErr_Format(PyExc_ValueError, "threads must be between 1 and %d, got %d", MAX_THREADS, threads);
        goto done;
    }
    if (normalize != Py_None && !PyCallable_Check(normalize)) {
        PyErr_SetString(PyExc_TypeError, "normalize must be callable or None");
        goto done;
    }
    if (PyObject_GetBuffer(table_in, &table, PyBUF_SIMPLE) < 0) goto done;
    if (table.len != TABLE_SIZE) {
        PyErr_SetString(PyExc_ValueError, "character table must have 0x110000 entries");
        goto done;
    }
    const Py_ssize_t n = PyList_GET_SIZE(hyps[0]);
    if (PyList_GET_SIZE(refs) != n) {
        PyErr_Format(PyExc_ValueError, "got %zd hypotheses but %zd reference entries", n, PyList_GET_SIZE(refs));
        goto done;
    }
    /* rows: n per system, or one row of sums */
    if (n > PY_SSIZE_T_MAX / systems) {
        PyErr_NoMemory();
        goto done;
    }
    if (check_outputs(order, summed ? 1 : n * systems, rows_in, nrefs_in, &out) < 0) goto done;
    for (Py_ssize_t i = 0; i < n; i++)
        if (check_entry(refs, i, normalize) < 0) goto done;
    if (threads > 1 && n < 2 * (Py_ssize_t)threads) threads = n > 1 ? (int)(n / 2) : 1;
    k.threads = threads;
    k.ws = (lane *)PyMem_Calloc((size_t)threads, sizeof(lane));
    k.refs = systems > 1 ? (lane *)PyMem_Calloc((size_t)threads, sizeof(lane)) : NULL;
    if (!k.ws || (systems > 1 && !k.refs)) {
        PyErr_NoMemory();
        goto done;
    }
    if (summed) {
        const size_t stride = 2 * (size_t)out.width + THREAD_GAP / sizeof(int64_t);
        k.acc = (sums *)PyMem_Calloc((size_t)threads, sizeof(sums));
        int64_t *space = k.acc ? (int64_t *)PyMem_Calloc((size_t)threads * stride, sizeof(int64_t)) : NULL;
        k.acc_rows = space;
        if (!space) {
            PyMem_Free(k.acc);
            k.acc = NULL;
            PyErr_NoMemory();
            goto done;
        }
        for (int t = 0; t < threads; t++) {
            k.acc[t].row = space + (size_t)t * stride;
            k.acc[t].total = k.acc[t].row + out.width;
            k.acc[t].nrefs_lo = INT64_MAX;
            k.acc[t].nrefs_hi = -1;
        }
    }
    if (poller_start(&poll, st->main_thread) < 0) goto done;
    k.idle = poll;
    k.idle.enabled = 0;
    for (int t = 0; t < threads; t++) {
        workspace *w[2] = {&k.ws[t].ws, k.refs ? &k.refs[t].ws : NULL};
        for (int r = 0; r < 2 && w[r]; r++) {
            w[r]->cls = (const uint8_t *)table.buf;
            w[r]->tokenizer = tokenizer;
            w[r]->order = order;
            w[r]->poll = t == 0 ? &poll : &k.idle;
            w[r]->stop = threads > 1 ? &k.stop : NULL;
        }
    }
    int64_t *rows = (int64_t *)out.rows.buf, *nrefs = (int64_t *)out.nrefs.buf;
    const int64_t batch_chars = BATCH_CHARS * threads;
#if TEXT_THREADS
    if (threads > 1) {
        /* While the threads count one batch, the calling thread gathers the next under the GIL
         * (and lets go of the one before), then counts with them: only the first, small, batch is
         * gathered while nobody counts. Batches double from batch_chars / FIRST_BATCH_PARTS. */
        batch *cur = &b, *next = &b2;
        int64_t limit = batch_chars / FIRST_BATCH_PARTS;
        Py_ssize_t i = 0, first = 0;
        if (gather_batch(cur, st->str_lower, hyps, systems, refs, lowercase, &i, limit) < 0) goto done;
        while (cur->n_sent > 0) {
            const outrows o = {summed ? NULL : rows + first * out.width, summed ? NULL : nrefs + first, out.width,
                               n * out.width, n, systems};
            crew_run run;
            crew_start(&run, &k, cur, &o);
            batch_clear(next); /* counted in the previous round */
            const Py_ssize_t next_first = i;
            limit = limit < batch_chars / 2 ? 2 * limit : batch_chars;
            const int gathered = i < n ? gather_batch(next, st->str_lower, hyps, systems, refs, lowercase, &i, limit) : 0;
            if (gathered < 0) { /* its exception is set: stop the workers, report it */
                k.ws[0].ws.err = KERR_INTERRUPTED;
                k.stop = 1;
            }
            poller_release(&poll);
            const int rc = crew_finish(&run, &k, gathered == 0);
            poller_acquire(&poll);
            if (gathered < 0) goto done;
            if (rc < 0) {
                raise_kernel_error(counters_error(&k));
                goto done;
            }
            if (PyErr_CheckSignals() < 0) goto done;
            batch *counted = cur;
            cur = next;
            next = counted;
            first = next_first;
        }
    } else
#endif
    {
        workspace *self = &k.ws[0].ws, *self_refs = k.refs ? &k.refs[0].ws : NULL;
        for (Py_ssize_t i = 0; i < n;) {
            const Py_ssize_t first = i;
            if (gather_batch(&b, st->str_lower, hyps, systems, refs, lowercase, &i, batch_chars) < 0) goto done;
            const outrows o = {summed ? NULL : rows + first * out.width, summed ? NULL : nrefs + first, out.width,
                               n * out.width, n, systems};
            poller_release(&poll);
            const int rc = count_range(self, self_refs, &b, 0, b.n_sent, &o, k.acc ? &k.acc[0] : NULL);
            poller_acquire(&poll);
            batch_clear(&b);
            if (rc < 0) {
                raise_kernel_error(counters_error(&k));
                goto done;
            }
            if (PyErr_CheckSignals() < 0) goto done;
        }
    }
    if (summed) {
        int64_t *total = (int64_t *)out.rows.buf, lo = INT64_MAX, hi = -1;
        for (Py_ssize_t c = 0; c < out.width; c++) total[c] = 0;
        for (int t = 0; t < threads; t++) {
            for (Py_ssize_t c = 0; c < out.width; c++) {
                if (k.acc[t].total[c] > INT64_MAX - total[c]) {
                    raise_kernel_error(KERR_SUM_OVERFLOW);
                    goto done;
                }
                total[c] += k.acc[t].total[c];
            }
            if (k.acc[t].nrefs_lo < lo) lo = k.acc[t].nrefs_lo;
            if (k.acc[t].nrefs_hi > hi) hi = k.acc[t].nrefs_hi;
        }
        /* Statistics.summed(): the common number of references, or -1 when they differ */
        *(int64_t *)out.nrefs.buf = lo == hi ? lo : -1;
    }
    result = Py_None;
    Py_INCREF(result);
done:
    batch_free(&b);
    batch_free(&b2);
    for (int t = 0; t < k.threads; t++) {
        if (k.ws) workspace_free(&k.ws[t].ws);
        if (k.refs) workspace_free(&k.refs[t].ws);
    }
    PyMem_Free(k.ws);
    PyMem_Free(k.refs);
    PyMem_Free(k.acc_rows);
    PyMem_Free(k.acc);
    buffer_release(&table);
    outputs_release(&out);
    return result;
}

PyObject *py_text_statistics(PyObject *module, PyObject *args) {
    PyObject *hyps_in, *refs_in, *table_in, *rows_in, *nrefs_in, *normalize = Py_None;
    int tokenizer, lowercase, order, threads = 1, summed = 0;
    if (!PyArg_ParseTuple(args, "OOiiiOOO|iiO:text_statistics", &hyps_in, &refs_in, &tokenizer, &lowercase, &order,
                          &table_in, &rows_in, &nrefs_in, &threads, &summed, &normalize))
        return NULL;
    if (PyUnicode_Check(refs_in) || PyBytes_Check(refs_in)) {
        PyErr_SetString(PyExc_TypeError, "hypotheses and references must be sequences (of str, of reference entries)");
        return NULL;
    }
    /* a private copy of the references (their entries may be replaced by checked lists) and of
     * any hypotheses but a list, which is read in place and checked again as it is read: nothing
     * another thread does to the caller's sequences while the GIL is released can move an item
     * under us */
    PyObject *hyps = hypotheses_list(hyps_in), *refs = NULL, *result = NULL;
    if (hyps && (refs = PySequence_List(refs_in)) != NULL)
        result = count_text(module, &hyps, 1, refs, tokenizer, lowercase, order, table_in, rows_in, nrefs_in, threads,
                            summed != 0, normalize);
    Py_XDECREF(hyps);
    Py_XDECREF(refs);
    return result;
}

PyObject *py_systems_statistics(PyObject *module, PyObject *args) {
    PyObject *systems_in, *refs_in, *table_in, *rows_in, *nrefs_in, *normalize = Py_None;
    int tokenizer, lowercase, order, threads = 1;
    if (!PyArg_ParseTuple(args, "OOiiiOOO|iO:systems_statistics", &systems_in, &refs_in, &tokenizer, &lowercase,
                          &order, &table_in, &rows_in, &nrefs_in, &threads, &normalize))
        return NULL;
    if (PyUnicode_Check(refs_in) || PyBytes_Check(refs_in) || PyUnicode_Check(systems_in) ||
        PyBytes_Check(systems_in)) {
        PyErr_SetString(PyExc_TypeError, "systems and references must be sequences");
        return NULL;
    }
    PyObject *systems = PySequence_List(systems_in), *refs = NULL, *result = NULL;
    PyObject *hyps[MAX_SYSTEMS];
    Py_ssize_t made = 0, count = 0;
    if (!systems) return NULL;
    count = PyList_GET_SIZE(systems);
    if (count < 1 || count > MAX_SYSTEMS) {
        PyErr_Format(PyExc_ValueError, "systems_statistics takes 1 to %d systems, got %zd", MAX_SYSTEMS, count);
        goto done;
    }
    for (; made < count; made++) {
        hyps[made] = hypotheses_copy(PyList_GET_ITEM(systems, made), made ? PyList_GET_SIZE(hyps[0]) : -1, 1);
        if (!hyps[made]) goto done;
    }
    refs = PySequence_List(refs_in);
    if (refs)
        result = count_text(module, hyps, (int)count, refs, tokenizer, lowercase, order, table_in, rows_in, nrefs_in,
                            threads, 0, normalize);
done:
    for (Py_ssize_t j = 0; j < made; j++) Py_DECREF(hyps[j]);
    Py_DECREF(systems);
    Py_XDECREF(refs);
    return result;
}


/* ------------------------------------------------------------------------------------------ */
/* one sentence                                                                                */

/* Code points up to which one sentence is counted without releasing the GIL: a few tens of
 * microseconds of work, less than releasing and taking the GIL back would cost a busy process. */
#define SHORT_SENTENCE_CHARS ((int64_t)1 << 14)

/* An int from a fast-call argument; -1 with the error (every code is >= 0 here). */
static int int_arg(PyObject *o, const char *what) {
    const long v = PyLong_AsLong(o);
    if (v == -1 && PyErr_Occurred()) return -1;
    if (v < 0 || v > INT_MAX) {
        PyErr_Format(PyExc_ValueError, "%s out of range", what);
        return -1;
    }
    return (int)v;
}

/* sentence_row(hyp, references, tokenizer, lowercase, order, table, normalize): the statistics
 * row of one hypothesis against its references entry, as a tuple of ints (the row, then the
 * number of references). No outputs to allocate, no batch of one: what sentence_bleu calls. A
 * short sentence is counted holding the GIL, in a workspace the module keeps for the next call
 * (its buffers stay small: a long sentence gets a workspace of its own, released). */
PyObject *py_sentence_row(PyObject *module, PyObject *const *args, Py_ssize_t nargs) {
    if (nargs != 7) {
        PyErr_Format(PyExc_TypeError, "sentence_row takes 7 arguments, got %zd", nargs);
        return NULL;
    }
    module_state *st = state_of(module);
    PyObject *hyp = args[0], *entry = args[1], *normalize = args[6], *fixed = NULL, *result = NULL;
    const int tokenizer = int_arg(args[2], "tokenizer code"), lowercase = PyObject_IsTrue(args[3]);
    const int order = int_arg(args[4], "max_ngram_order");
    if (tokenizer < 0 || lowercase < 0 || order < 0) return NULL;
    if (tokenizer < TOK_13A || tokenizer > TOK_NONE) {
        PyErr_Format(PyExc_ValueError, "unknown tokenizer code %d", tokenizer);
        return NULL;
    }
    if (order < 1 || order > MAX_ORDER) {
        PyErr_Format(PyExc_ValueError, "max_ngram_order must be between 1 and %d, got %d", MAX_ORDER, order);
        return NULL;
    }
    if (!PyUnicode_Check(hyp)) {
        PyObject *name = PyObject_GetAttrString((PyObject *)Py_TYPE(hyp), "__name__");
        if (name) PyErr_Format(PyExc_TypeError, "hypothesis must be a str, got %U", name);
        Py_XDECREF(name);
        return NULL;
    }
    Py_buffer table = {0};
    batch b = {0};
    workspace *ws = NULL;
    int64_t small_row[2 + 2 * 8], *row = small_row;
    int keep = 0; /* the workspace goes back to the module for the next call */
    poller poll;
    if (PyObject_GetBuffer(args[5], &table, PyBUF_SIMPLE) < 0) return NULL;
    if (table.len != TABLE_SIZE) {
        PyErr_SetString(PyExc_ValueError, "character table must have 0x110000 entries");
        goto done;
    }
    fixed = readable_entry(entry, -1, normalize);
    if (!fixed) goto done;
#ifdef Py_GIL_DISABLED
    if (PyList_CheckExact(fixed)) { /* another thread could change the caller's list while it is read */
        PyObject *copy = PyList_AsTuple(fixed);
        Py_DECREF(fixed);
        fixed = copy;
        if (!fixed) goto done;
    }
#endif
    entry = fixed;
    if (add_sentence(&b, st->str_lower, &hyp, 1, entry, lowercase, -1) < 0) goto done;
    const Py_ssize_t width = 2 + 2 * (Py_ssize_t)order;
    if (order > 8) {
        row = (int64_t *)PyMem_Malloc((size_t)width * sizeof(int64_t));
        if (!row) {
            PyErr_NoMemory();
            goto done;
        }
    }
    const int short_one = b.chars <= SHORT_SENTENCE_CHARS;
#ifndef Py_GIL_DISABLED
    if (short_one && st->spare) { /* the GIL is held throughout: nobody else can take it */
        ws = st->spare;
        st->spare = NULL;
    }
#endif
    if (!ws) {
        ws = (workspace *)PyMem_Calloc(1, sizeof(workspace));
        if (!ws) {
            PyErr_NoMemory();
            goto done;
        }
    }
    ws->cls = (const uint8_t *)table.buf;
    ws->tokenizer = tokenizer;
    ws->order = order;
    ws->poll = &poll;
    ws->stop = NULL;
    ws->err = KERR_NONE;
    int64_t nrefs = 0;
    const outrows o = {row, &nrefs, width, 0, 0, 1};
    int rc;
    if (short_one) {
        poll.enabled = 0; /* the GIL is not released: nothing to poll */
        poll.work = 0;
        rc = count_range(ws, NULL, &b, 0, 1, &o, NULL);
    } else {
        if (poller_start(&poll, st->main_thread) < 0) goto done;
        poller_release(&poll);
        rc = count_range(ws, NULL, &b, 0, 1, &o, NULL);
        poller_acquire(&poll);
    }
    if (rc < 0) {
        raise_kernel_error(ws->err);
        goto done;
    }
    keep = short_one;
    result = PyTuple_New(width + 1);
    if (!result) goto done;
    for (Py_ssize_t c = 0; c <= width; c++) {
        PyObject *v = PyLong_FromLongLong(c < width ? row[c] : nrefs);
        if (!v) {
            Py_CLEAR(result);
            goto done;
        }
        PyTuple_SET_ITEM(result, c, v);
    }
done:
    if (ws) {
#ifndef Py_GIL_DISABLED
        if (keep && !st->spare) {
            st->spare = ws;
            ws = NULL;
        }
#endif
        if (ws) {
            workspace_free(ws);
            PyMem_Free(ws);
        }
    }
    if (row != small_row) PyMem_Free(row);
    batch_free(&b);
    Py_XDECREF(fixed);
    buffer_release(&table);
    return result;
}

