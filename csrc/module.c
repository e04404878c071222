/*
 * The Python entry points of bleukit._native_kernel (the glue is bleukit._native; the typed
 * signatures are in src/bleukit/_native_kernel.pyi).
 *
 * Every entry point validates all of its arguments with the same checks (check_outputs and
 * pyhelpers.h's int64_buffer) before any work, as strictly as a public function would: the
 * tokenize and count steps then trust them. The work runs with the GIL released:
 *  - text: under the GIL a batch of sentences (about BATCH_CHARS code points) is gathered, each
 *    str held by a new reference (lowercased first with str.lower itself when it is not ASCII),
 *    then tokenized and counted without the GIL, reading the strings in place; with threads,
 *    the calling thread gathers the next batch while the others count this one, then joins them;
 *  - ids: the buffers are pinned for the whole call, so they are counted without the GIL at once.
 * Signals are checked between batches and, in the main thread (the only one where Python runs
 * signal handlers), inside long work every 10 ms (poll.h), even within one enormous sentence, so
 * Ctrl-C raises KeyboardInterrupt within some 10 ms.
 *
 * The module keeps no global state (multi-phase init, PEP 489; its state is str.lower and
 * threading.main_thread), so it loads in subinterpreters, and it declares that it does not need
 * the GIL: on a free-threaded build importing it leaves the GIL off. Every call works in its own
 * workspace, holds references to the str it reads and copies the outer lists, so concurrent
 * calls share nothing.
 *
 * Text items are read as their str value: a str subclass's overridden methods (lower() among
 * them) are never called, in this engine as in the Python one (bleukit.engine.preprocess).
 */
#include "entries.h"
#include "kernel.h"
#include "pyhelpers.h"

#include <stdlib.h>
#include <string.h>

#ifndef _WIN32
#include <pthread.h>
#include <time.h>
#define TEXT_THREADS 1
#else
#define TEXT_THREADS 0
#endif
/* The most threads one call counts on (threads= above this is an error). */
#define MAX_THREADS 64
/* The most systems one systems_statistics call counts against the same references. */
#define MAX_SYSTEMS 1024

/* Code points gathered per release of the GIL: some 40 ms of work. The batch holds references,
 * not copies (32 bytes per segment), and every return to the GIL may wait a switch interval
 * (5 ms) for a thread running Python, so batches are large. A sentence counts as SENTENCE_CHARS
 * code points more than it has, so that a batch of empty sentences is bounded too. */
#define BATCH_CHARS ((int64_t)1 << 22)
#define SENTENCE_CHARS 16
/* With threads, the first batch (gathered while no thread counts yet) is this part of a full one. */
#define FIRST_BATCH_PARTS 16
/* Keeps 2 + 2 * order and the row indices within an int. */
#define MAX_ORDER ((INT_MAX - 2) / 2)

typedef struct {
    PyObject *str_lower;   /* str.lower, unbound: a subclass cannot override it */
    PyObject *main_thread; /* threading.main_thread, asked at each call (poll.h) */
    workspace *spare;      /* sentence_row's workspace between calls (NULL: none yet, or in use) */
} module_state;

static module_state *state_of(PyObject *module) { return (module_state *)PyModule_GetState(module); }

/* ------------------------------------------------------------------------------------------ */
/* the one argument check                                                                      */

typedef struct {
    Py_buffer rows, nrefs;
    Py_ssize_t width; /* 2 + 2 * order int64 per row */
} outputs;

static void outputs_release(outputs *o) {
    buffer_release(&o->rows);
    buffer_release(&o->nrefs);
}

/* order in range; rows_out n x (2 + 2 order) and nrefs_out n writable int64, sizes checked
 * without overflow. */
static int check_outputs(int order, Py_ssize_t n, PyObject *rows, PyObject *nrefs, outputs *o) {
    memset(o, 0, sizeof(*o));
    if (order < 1 || order > MAX_ORDER) {
        PyErr_Format(PyExc_ValueError, "max_ngram_order must be between 1 and %d, got %d", MAX_ORDER, order);
        return -1;
    }
    if (n < 0) {
        PyErr_SetString(PyExc_ValueError, "the number of rows must be >= 0");
        return -1;
    }
    o->width = 2 + 2 * (Py_ssize_t)order;
    if (int64_buffer(rows, &o->rows, 1, "rows_out") < 0 || int64_buffer(nrefs, &o->nrefs, 1, "nrefs_out") < 0) {
        outputs_release(o);
        return -1;
    }
    const Py_ssize_t row_bytes = o->width * 8;
    if (n > PY_SSIZE_T_MAX / row_bytes || o->rows.len != n * row_bytes || o->nrefs.len != n * 8) {
        PyErr_Format(PyExc_ValueError, "output buffers have the wrong size for %zd rows of max_ngram_order %d", n,
                     order);
        outputs_release(o);
        return -1;
    }
    return 0;
}

/* Turn a failure (a KERR_* code) of the work without the GIL into the matching exception. */
static void raise_kernel_error(int err) {
    if (PyErr_Occurred()) return; /* KERR_INTERRUPTED: the signal handler's exception is set */
    if (err == KERR_TOO_LONG)
        PyErr_SetString(PyExc_OverflowError, "sentence too long for the native kernel");
    else if (err == KERR_INTERRUPTED)
        PyErr_SetString(PyExc_KeyboardInterrupt, "");
    else if (err == KERR_SUM_OVERFLOW)
        PyErr_SetString(PyExc_OverflowError, "the statistics' column sums overflow int64");
    else
        PyErr_NoMemory();
}

/* ------------------------------------------------------------------------------------------ */
/* the caller's references (entries.h checks them as bleukit.inputs does)                      */

/* Entry i of the private list `refs` checked; an entry of another type is replaced there by the
 * Python check's list. 0, or -1 with the error. */
static int check_entry(PyObject *refs, Py_ssize_t i, PyObject *normalize) {
    PyObject *e = PyList_GET_ITEM(refs, i);
    PyObject *readable = readable_entry(e, i, normalize);
    if (!readable) return -1;
#ifdef Py_GIL_DISABLED
    /* without a GIL another thread could change the caller's list while it is read: read a copy */
    if (readable == e && PyList_CheckExact(e)) {
        Py_DECREF(readable);
        readable = PyList_AsTuple(e);
        if (!readable) return -1;
    }
#endif
    if (readable == e)
        Py_DECREF(readable);
    else
        PyList_SetItem(refs, i, readable); /* steals it, releases the entry */
    return 0;
}

/* ------------------------------------------------------------------------------------------ */
/* text                                                                                        */

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

static void batch_clear(batch *b) {
    for (size_t i = 0; i < b->n_seg; i++) Py_DECREF(b->seg[i].str);
    b->n_seg = b->n_sent = 0;
    b->chars = 0;
}

static void batch_free(batch *b) {
    batch_clear(b);
    free(b->seg);
    free(b->first);
    free(b->cum);
}

/* kernel.h's grow_array, raising on failure. */
static int batch_grow(void **data, size_t *cap, size_t need, size_t elem) {
    const int err = grow_array(data, cap, need, elem);
    if (err) raise_kernel_error(err);
    return err ? -1 : 0;
}

static int batch_reserve_segment(batch *b) {
    void *seg = b->seg;
    const int r = batch_grow(&seg, &b->cap_seg, b->n_seg + 1, sizeof(held_segment));
    b->seg = (held_segment *)seg;
    return r;
}

/* Room for one more sentence and the closing entries of first and cum. */
static int batch_reserve_sentence(batch *b) {
    void *first = b->first, *cum = b->cum;
    int r = batch_grow(&first, &b->cap_first, b->n_sent + 2, sizeof(size_t));
    b->first = (size_t *)first;
    if (r == 0) r = batch_grow(&cum, &b->cap_cum, b->n_sent + 2, sizeof(int64_t));
    b->cum = (int64_t *)cum;
    return r;
}

/* Hold one str for the batch (lowercased first when asked and not ASCII); its length in code
 * points, -1 on error. */
static Py_ssize_t add_segment(batch *b, PyObject *str_lower, PyObject *s, int lowercase) {
    if (batch_reserve_segment(b) < 0) return -1;
#if PY_VERSION_HEX < 0x030C0000
    if (PyUnicode_READY(s) < 0) return -1;
#endif
    int ascii_lower = 0;
    if (lowercase && PyUnicode_IS_ASCII(s)) {
        ascii_lower = 1; /* str.lower() on ASCII is exactly A-Z -> a-z: done while reading */
        Py_INCREF(s);
    } else if (lowercase) {
        s = PyObject_CallOneArg(str_lower, s);
        if (!s) return -1;
        if (!PyUnicode_CheckExact(s)) { /* str.lower always returns a str; never trust, though */
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
    held_segment *h = &b->seg[b->n_seg++];
    h->str = s;
    h->src.data = PyUnicode_DATA(s);
    h->src.len = (size_t)PyUnicode_GET_LENGTH(s);
    h->src.kind = PyUnicode_KIND(s);
    h->src.ascii_lower = ascii_lower;
    return PyUnicode_GET_LENGTH(s);
}

/* Room for a segment of `len` code points in a sentence that has `chars` so far; -1 with an
 * OverflowError past the kernel's limit. */
static int sentence_room(int64_t chars, Py_ssize_t len, Py_ssize_t i) {
    if ((int64_t)len <= MAX_SENTENCE_CHARS - chars) return 0; /* chars <= MAX_SENTENCE_CHARS: no overflow */
    if (i >= 0)
        PyErr_Format(PyExc_OverflowError, "sentence %zd is too long for the native kernel", i);
    else
        PyErr_SetString(PyExc_OverflowError, "sentence too long for the native kernel");
    return -1;
}

/* Gather sentence i: its hypothesis (one per system: paired tests count every system against the
 * references tokenized once) and the references of its checked entry (i < 0: the one sentence of
 * sentence_row). The entry's list may have changed since it was checked (the GIL is released
 * between batches), so its items are checked again as they are read. */
static int add_sentence(batch *b, PyObject *str_lower, PyObject *const *hyps, int systems, PyObject *entry,
                        int lowercase, Py_ssize_t i) {
    if (batch_reserve_sentence(b) < 0) return -1;
    const size_t first = b->n_seg;
    int64_t chars = 0;
    Py_ssize_t len = 0;
    for (int j = 0; j < systems; j++) {
        len = add_segment(b, str_lower, hyps[j], lowercase);
        if (len < 0 || sentence_room(chars, len, i) < 0) return -1;
        chars += len;
    }
    if (PyUnicode_Check(entry)) {
        len = add_segment(b, str_lower, entry, lowercase);
        if (len < 0 || sentence_room(chars, len, i) < 0) return -1;
        chars += len;
    } else if (PyList_CheckExact(entry) || PyTuple_CheckExact(entry)) {
        Py_ssize_t found = 0;
        for (Py_ssize_t k = 0; k < PySequence_Fast_GET_SIZE(entry); k++) {
            PyObject *x = PySequence_Fast_GET_ITEM(entry, k);
            if (x == Py_None) continue;
            if (!PyUnicode_Check(x)) {
                entry_error(ENTRY_ITEM, i, k, x);
                return -1;
            }
            len = add_segment(b, str_lower, x, lowercase);
            if (len < 0 || sentence_room(chars, len, i) < 0) return -1;
            chars += len;
            found++;
        }
        if (!found) {
            entry_error(ENTRY_EMPTY, i, 0, NULL);
            return -1;
        }
    } else {
        entry_error(entry == Py_None ? ENTRY_NONE : ENTRY_TYPE, i, 0, entry == Py_None ? NULL : entry);
        return -1;
    }
    b->first[b->n_sent] = first;
    b->cum[b->n_sent] = b->chars;
    b->chars += chars + SENTENCE_CHARS;
    b->n_sent++;
    b->first[b->n_sent] = b->n_seg;
    b->cum[b->n_sent] = b->chars;
    return 0;
}

/* Column sums of the rows a thread counted, and the range of their numbers of references. */
typedef struct {
    int64_t *row;   /* the sentence being counted */
    int64_t *total; /* the sums so far */
    int64_t nrefs_lo, nrefs_hi;
} sums;

/* Add a counted row to the sums; -1 when a sum would overflow int64 (counts are never negative). */
static int sums_add(sums *acc, int64_t nrefs, Py_ssize_t width) {
    for (Py_ssize_t c = 0; c < width; c++) {
        if (acc->row[c] > INT64_MAX - acc->total[c]) return -1;
        acc->total[c] += acc->row[c];
    }
    if (nrefs < acc->nrefs_lo) acc->nrefs_lo = nrefs;
    if (nrefs > acc->nrefs_hi) acc->nrefs_hi = nrefs;
    return 0;
}

/* Where counted rows go: sentence s (of the batch) of system j at rows + j * stride + s * width,
 * its number of references at nrefs[j * nrefs_stride + s]; or, with sums, into them. */
typedef struct {
    int64_t *rows, *nrefs;
    Py_ssize_t width, stride, nrefs_stride;
    int systems;
} outrows;

/* Append the tokens of refs' store (its segments) to ws' store: a paired test's references,
 * tokenized once per sentence, after each system's hypothesis. */
static int append_tokens(workspace *ws, const workspace *refs) {
    const size_t base = ws->chars.n, t0 = ws->tok_off.n, nt = refs->tok_off.n, ns = refs->seg_start.n;
    if (cp_reserve(ws, &ws->chars, base + refs->chars.n) < 0 || i64_reserve(ws, &ws->tok_off, t0 + nt) < 0 ||
        i64_reserve(ws, &ws->tok_len, t0 + nt) < 0 || i64_reserve(ws, &ws->tok_hash, t0 + nt) < 0 ||
        i64_reserve(ws, &ws->seg_start, ws->seg_start.n + ns + 1) < 0)
        return -1;
    if (refs->chars.n) memcpy(ws->chars.d + base, refs->chars.d, refs->chars.n * sizeof(cp_t));
    for (size_t t = 0; t < nt; t++) ws->tok_off.d[t0 + t] = refs->tok_off.d[t] + (int64_t)base;
    if (nt) {
        memcpy(ws->tok_len.d + t0, refs->tok_len.d, nt * sizeof(int64_t));
        memcpy(ws->tok_hash.d + t0, refs->tok_hash.d, nt * sizeof(int64_t));
    }
    for (size_t e = 0; e < ns; e++) ws->seg_start.d[ws->seg_start.n++] = refs->seg_start.d[e] + (int64_t)t0;
    ws->chars.n += refs->chars.n;
    ws->tok_off.n = ws->tok_len.n = ws->tok_hash.n = t0 + nt;
    return ws_work(ws, refs->chars.n + nt);
}

static void store_clear(workspace *ws) {
    ws->chars.n = ws->tok_off.n = ws->tok_len.n = ws->tok_hash.n = ws->seg_start.n = 0;
}

/* Tokenize and count sentences lo..hi-1 of the batch (no GIL needed) into `o`, or with `acc` into
 * its sums. With several systems, the references are tokenized once into `refs` (a second
 * workspace) and copied after each system's hypothesis. */
static int count_range(workspace *ws, workspace *refs, const batch *b, size_t lo, size_t hi, const outrows *o,
                       sums *acc) {
    const int systems = o->systems;
    for (size_t s = lo; s < hi; s++) {
        const size_t g0 = b->first[s], g1 = b->first[s + 1];
        const int64_t nr = (int64_t)(g1 - g0) - systems;
        if (systems > 1) {
            store_clear(refs);
            for (size_t g = g0 + (size_t)systems; g < g1; g++)
                if (tokenize_segment(refs, &b->seg[g].src) < 0) {
                    ws->err = refs->err;
                    return -1;
                }
        }
        for (int j = 0; j < systems; j++) {
            store_clear(ws);
            if (systems > 1) {
                if (tokenize_segment(ws, &b->seg[g0 + (size_t)j].src) < 0 || append_tokens(ws, refs) < 0) return -1;
            } else {
                for (size_t g = g0; g < g1; g++)
                    if (tokenize_segment(ws, &b->seg[g].src) < 0) return -1; /* opens its segment in seg_start */
            }
            ws->seg_start.d[ws->seg_start.n++] = (int64_t)ws->tok_off.n; /* room left by tokenize_segment */
            if (acc) {
                if (count_sentence(ws, acc->row, NULL) < 0) return -1;
                if (sums_add(acc, nr, o->width) < 0) {
                    ws->err = KERR_SUM_OVERFLOW;
                    return -1;
                }
            } else if (count_sentence(ws, o->rows + j * o->stride + (Py_ssize_t)s * o->width, NULL) < 0) {
                return -1;
            }
        }
        for (int j = 0; j < systems && !acc; j++) o->nrefs[j * o->nrefs_stride + (Py_ssize_t)s] = nr;
        if (ws_work(ws, SENTENCE_CHARS) < 0) return -1;
    }
    return 0;
}

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

/* A batch counted by the calling thread and its workers, each taking the next TAKE_SENTENCES
 * sentences not yet taken: a thread that starts late (the calling thread gathers the next batch
 * first) or runs slower simply takes fewer. */
typedef struct {
    pthread_mutex_t lock;
    pthread_cond_t finished; /* signalled when a worker ends */
    int running;             /* workers not finished */
    size_t next;             /* the first sentence of the batch nobody has taken */
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
    pthread_mutex_lock(&c->lock);
    const size_t n = c->b->n_sent;
    *lo = c->next;
    *hi = n - *lo > TAKE_SENTENCES ? *lo + TAKE_SENTENCES : n;
    c->next = *hi;
    pthread_mutex_unlock(&c->lock);
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

static void *run_part(void *arg) {
    part *p = (part *)arg;
    if (count_taken(p->crew, p->ws, p->refs, p->acc) < 0 && p->ws->stop)
        *p->ws->stop = 1; /* the others stop at their next report */
    pthread_mutex_lock(&p->crew->lock);
    p->crew->running--;
    pthread_cond_signal(&p->crew->finished);
    pthread_mutex_unlock(&p->crew->lock);
    return NULL;
}

/* The calling thread, its own share done: wait for the workers, polling for signals every
 * POLL_INTERVAL_MS where handlers run; a raised handler tells the workers to stop, and the wait
 * goes on until they have (they use the batch). */
static void crew_wait(crew *c, workspace *self) {
    poller *p = self->poll;
    pthread_mutex_lock(&c->lock);
    while (c->running > 0) {
        if (!p->enabled || self->err) {
            pthread_cond_wait(&c->finished, &c->lock);
            continue;
        }
        struct timespec deadline;
        clock_gettime(CLOCK_REALTIME, &deadline);
        deadline.tv_nsec += POLL_INTERVAL_MS * 1000000L;
        if (deadline.tv_nsec >= 1000000000L) {
            deadline.tv_sec += 1;
            deadline.tv_nsec -= 1000000000L;
        }
        pthread_cond_timedwait(&c->finished, &c->lock, &deadline);
        if (c->running == 0) break;
        pthread_mutex_unlock(&c->lock); /* never hold the lock while waiting for the GIL */
        if (poller_check(p) < 0) {
            self->err = KERR_INTERRUPTED;
            *self->stop = 1;
        }
        pthread_mutex_lock(&c->lock);
    }
    pthread_mutex_unlock(&c->lock);
}

/* One batch on several threads: started by crew_start (with or without the GIL), its workers
 * count while the calling thread may still gather the next batch under the GIL; crew_finish
 * (without the GIL) adds the calling thread's share and waits for them. */
typedef struct {
    crew c;
    int ok; /* the lock and condition exist (else the calling thread counts the batch alone) */
    int workers;
    pthread_t tid[MAX_THREADS];
    part jobs[MAX_THREADS];
    int created[MAX_THREADS];
} crew_run;

static void crew_start(crew_run *r, counters *k, const batch *b, const outrows *o) {
    int parts = k->threads;
    if ((size_t)parts > b->n_sent) parts = b->n_sent > 0 ? (int)b->n_sent : 1;
    r->workers = parts - 1;
    r->c.running = 0;
    r->c.next = 0;
    r->c.b = b;
    r->c.o = o;
    r->ok = pthread_mutex_init(&r->c.lock, NULL) == 0;
    if (r->ok && pthread_cond_init(&r->c.finished, NULL) != 0) {
        pthread_mutex_destroy(&r->c.lock);
        r->ok = 0;
    }
    for (int t = 1; t <= r->workers; t++) {
        r->jobs[t] = (part){&k->ws[t].ws, k->refs ? &k->refs[t].ws : NULL, k->acc ? &k->acc[t] : NULL, &r->c};
        r->created[t] = 0;
        if (!r->ok) continue;
        pthread_mutex_lock(&r->c.lock);
        r->c.running++;
        pthread_mutex_unlock(&r->c.lock);
        r->created[t] = pthread_create(&r->tid[t], NULL, run_part, &r->jobs[t]) == 0;
        if (!r->created[t]) { /* its sentences are taken by the others */
            pthread_mutex_lock(&r->c.lock);
            r->c.running--;
            pthread_mutex_unlock(&r->c.lock);
        }
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
    if (r->ok) {
        crew_wait(&r->c, self);
        for (int t = 1; t <= r->workers; t++)
            if (r->created[t]) pthread_join(r->tid[t], NULL);
        pthread_cond_destroy(&r->c.finished);
        pthread_mutex_destroy(&r->c.lock);
    }
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

/* Gather sentences *i, *i + 1, ... into the empty batch `b` until it weighs `limit` code points
 * (at least one sentence), advancing *i. 0, or -1 with the error. */
static int gather_batch(batch *b, PyObject *str_lower, PyObject *const *hyps, int systems, PyObject *refs,
                        int lowercase, Py_ssize_t *i, int64_t limit) {
    PyObject *hyp_i[MAX_SYSTEMS];
    const Py_ssize_t n = PyList_GET_SIZE(refs), start = *i;
    while (*i < n && (*i == start || b->chars < limit)) {
        /* A list of hypotheses may be the caller's own (hypotheses_list): Python code (another
         * thread between batches, a finaliser run by an allocation) may have changed it since
         * it was checked, so each item is checked again and held while it is gathered. */
        int held = 0, bad = 0;
        for (; held < systems; held++) {
            if (*i >= PyList_GET_SIZE(hyps[held])) {
                PyErr_SetString(PyExc_RuntimeError, "the list of hypotheses changed size during the call");
                bad = 1;
                break;
            }
            hyp_i[held] = PyList_GET_ITEM(hyps[held], *i);
            if (!PyUnicode_Check(hyp_i[held])) {
                PyErr_Format(PyExc_TypeError, "hypotheses[%zd] must be a str, got %s", *i, Py_TYPE(hyp_i[held])->tp_name);
                bad = 1;
                break;
            }
            Py_INCREF(hyp_i[held]);
        }
        const int rc = bad ? -1 : add_sentence(b, str_lower, hyp_i, systems, PyList_GET_ITEM(refs, *i), lowercase, *i);
        for (int j = 0; j < held; j++) Py_DECREF(hyp_i[j]);
        if (rc < 0) return -1;
        (*i)++;
    }
    return 0;
}

/* The private copy of the hypotheses of one system: a list of n items (checked: str). */
static PyObject *hypotheses_copy(PyObject *in, Py_ssize_t n, int check) {
    if (PyUnicode_Check(in) || PyBytes_Check(in)) {
        PyErr_SetString(PyExc_TypeError, "hypotheses and references must be sequences (of str, of reference entries)");
        return NULL;
    }
    PyObject *list = PySequence_List(in);
    if (!list) return NULL;
    if (n >= 0 && PyList_GET_SIZE(list) != n) {
        PyErr_Format(PyExc_ValueError, "every system needs %zd hypotheses, one has %zd", n, PyList_GET_SIZE(list));
        Py_DECREF(list);
        return NULL;
    }
    for (Py_ssize_t i = 0; check && i < PyList_GET_SIZE(list); i++) {
        PyObject *h = PyList_GET_ITEM(list, i);
        if (!PyUnicode_Check(h)) {
            PyObject *name = PyObject_GetAttrString((PyObject *)Py_TYPE(h), "__name__");
            if (name) PyErr_Format(PyExc_TypeError, "hypotheses[%zd] must be a str, got %U", i, name);
            Py_XDECREF(name);
            Py_DECREF(list);
            return NULL;
        }
    }
    return list;
}

/* The hypotheses of text_statistics: a list is read in place (checked here, and again item by
 * item as count_text gathers it), saving a copy of 8 bytes a sentence; any other sequence, and
 * every list on a build without the GIL (another thread could change it under a reader), is
 * copied by hypotheses_copy. A new reference. */
static PyObject *hypotheses_list(PyObject *in) {
#ifndef Py_GIL_DISABLED
    if (PyList_CheckExact(in)) {
        for (Py_ssize_t i = 0; i < PyList_GET_SIZE(in); i++) {
            PyObject *h = PyList_GET_ITEM(in, i);
            if (!PyUnicode_Check(h)) {
                PyObject *name = PyObject_GetAttrString((PyObject *)Py_TYPE(h), "__name__");
                if (name) PyErr_Format(PyExc_TypeError, "hypotheses[%zd] must be a str, got %U", i, name);
                Py_XDECREF(name);
                return NULL;
            }
        }
        Py_INCREF(in);
        return in;
    }
#endif
    return hypotheses_copy(in, -1, 1);
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

static PyObject *py_text_statistics(PyObject *module, PyObject *args) {
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

static PyObject *py_systems_statistics(PyObject *module, PyObject *args) {
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
static PyObject *py_sentence_row(PyObject *module, PyObject *const *args, Py_ssize_t nargs) {
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

/* ------------------------------------------------------------------------------------------ */
/* token ids                                                                                   */

/* The statistics of one flat batch: sequence j has lengths[j] ids (consecutive in tokens) and
 * belongs to row owner[j]; sequences are ordered by row, the hypothesis first. The ids of a row
 * are contiguous, so they are counted in place without a copy. The layout (lengths, owner) is
 * copied before it is checked: the work without the GIL follows the checked copy, so another
 * thread writing to the caller's arrays meanwhile can change ids (and so the counts) but never
 * send a read outside the buffers. */
static PyObject *py_ids_statistics_flat(PyObject *module, PyObject *args) {
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
     "bleukit._native.character_table(). Counts on `threads` threads, without the GIL."},
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
    {NULL, NULL, 0, NULL}};

static int module_exec(PyObject *m) {
    module_state *st = state_of(m);
    st->str_lower = PyObject_GetAttrString((PyObject *)&PyUnicode_Type, "lower");
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

static PyModuleDef_Slot slots[] = {
    {Py_mod_exec, (void *)module_exec},
#ifdef Py_mod_multiple_interpreters /* 3.12+: no global state, so each interpreter may have its own GIL */
    {Py_mod_multiple_interpreters, Py_MOD_PER_INTERPRETER_GIL_SUPPORTED},
#endif
#ifdef Py_mod_gil /* 3.13+: safe without the GIL (see the top of this file) */
    {Py_mod_gil, Py_MOD_GIL_NOT_USED},
#endif
    {0, NULL}};

static struct PyModuleDef moduledef = {
    .m_base = PyModuleDef_HEAD_INIT,
    .m_name = "_native_kernel",
    .m_doc = "bleukit's compiled statistics kernel (see bleukit._native).",
    .m_size = sizeof(module_state),
    .m_methods = methods,
    .m_slots = slots,
    .m_traverse = module_traverse,
    .m_clear = module_clear,
    .m_free = module_free,
};

PyMODINIT_FUNC PyInit__native_kernel(void) { return PyModuleDef_Init(&moduledef); }
