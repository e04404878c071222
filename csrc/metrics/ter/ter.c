/*
 * bleukit.metrics.ter._kernel: TER statistics of a batch of sentences (the glue is
 * bleukit.metrics.ter.extract; the reference it reproduces is bleukit.metrics.ter.reference).
 *
 * One entry point, statistics(), fills an int64 (n, 3) table: per hypothesis the fewest edits
 * over its references, the sum of their lengths in words, and their number.
 *
 *  - Every argument is checked before any work: the four option flags are bools, threads an int
 *    >= 1, the output a writable C-contiguous aligned int64 buffer of n x 3, every hypothesis a
 *    str, every reference list a non-empty list or tuple of str, no segment longer than the
 *    kernel's limits (OverflowError).
 *  - Then, batch after batch, the segments are gathered under the GIL (each str held by a new
 *    reference; lowercased with str.lower itself when it is not ASCII), and the batch is worked
 *    on without the GIL by `threads` threads taking sentences in small chunks.
 *  - Ctrl-C: Python runs signal handlers in the main thread only. When the call runs there, that
 *    thread checks for signals every TER_POLL_WORK units of its work and, once its chunks are
 *    done, every POLL_INTERVAL_MS while it waits for the other threads (common/pool.h); a signal
 *    stops all threads and the handler's exception (KeyboardInterrupt) is raised.
 *
 * Items are read as their str value: a str subclass's methods (lower() among them) are never
 * called, as in the Python reference.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include "common/buffers.h"
#include "common/moduledef.h"
#include "common/poll.h"
#include "common/pool.h"
#include "common/pyhelpers.h"
#include "ter.h"

#include <stdlib.h>
#include <string.h>

#define TER_THREADS POOL_THREADS

/* Code points gathered per release of the GIL (some 0.1 s of work). */
#define BATCH_CHARS ((int64_t)1 << 22)
/* A sentence (hypothesis and references) holds at most this many code points, so its words
 * (each at least one code point) have int32 ids. */
#define TER_MAX_SENTENCE_CHARS ((int64_t)1 << 30)
/* Sentences a thread takes at a time. */
#define CHUNK 8

/* ------------------------------------------------------------------------------------------ */
/* module state                                                                                */

typedef struct {
    PyObject *str_lower;            /* str.lower, unbound: a subclass cannot override it */
    PyObject *main_thread;          /* threading.main_thread, asked at each call (common/poll.h) */
} module_state;

/* ------------------------------------------------------------------------------------------ */
/* a batch of gathered sentences                                                               */

typedef struct {
    PyObject **held;    /* one new reference per segment */
    ter_segment *seg;
    int64_t *first_seg; /* per sentence of the batch, its first segment; one extra at the end */
    size_t n_seg, cap_held, cap_seg, n_sent, cap_sent;
} batch;

/* common/buffers.h's grow_array under the GIL: MemoryError on failure. */
static int grow(void **p, size_t *cap, size_t need, size_t elem) {
    if (grow_array(p, cap, need, elem) == GROW_OK) return 0;
    PyErr_NoMemory();
    return -1;
}

static void batch_clear(batch *b) {
    for (size_t i = 0; i < b->n_seg; i++) Py_DECREF(b->held[i]);
    b->n_seg = b->n_sent = 0;
}

static void batch_free(batch *b) {
    batch_clear(b);
    free(b->held);
    free(b->seg);
    free(b->first_seg);
}

/* The one check of a segment: a str no longer than the kernel's limit. */
static int check_segment(PyObject *s, Py_ssize_t i, Py_ssize_t j) {
    if (!PyUnicode_Check(s)) {
        if (j < 0)
            PyErr_Format(PyExc_TypeError, "hypotheses[%zd] must be a str, got %.80s", i, Py_TYPE(s)->tp_name);
        else
            PyErr_Format(PyExc_TypeError, "references[%zd][%zd] must be a str, got %.80s", i, j, Py_TYPE(s)->tp_name);
        return -1;
    }
#if PY_VERSION_HEX < 0x030C0000
    if (PyUnicode_READY(s) < 0) return -1;
#endif
    if (PyUnicode_GET_LENGTH(s) > TER_MAX_CHARS) {
        PyErr_Format(PyExc_OverflowError, "sentence %zd has a segment longer than %lld code points, the TER kernel's limit",
                     i, (long long)TER_MAX_CHARS);
        return -1;
    }
    return 0;
}

/* A snapshot of references[i] as a tuple (a new reference): another thread may change a list
 * while this one reads it (with the GIL between two batches, or at any time without a GIL). */
static PyObject *reference_items(PyObject *refs, Py_ssize_t i) {
    if (PyTuple_Check(refs)) {
        Py_INCREF(refs);
        return refs;
    }
    if (PyList_Check(refs)) return PyList_AsTuple(refs);
    PyErr_Format(PyExc_TypeError, "references[%zd] must be a list of str, got %.80s", i, Py_TYPE(refs)->tp_name);
    return NULL;
}

/* The one check of sentence i (`items`: its references' snapshot); returns its code points, -1
 * on error. */
static int64_t check_sentence(PyObject *hyp, PyObject *items, Py_ssize_t i) {
    if (check_segment(hyp, i, -1) < 0) return -1;
    int64_t chars = PyUnicode_GET_LENGTH(hyp);
    const Py_ssize_t nr = PyTuple_GET_SIZE(items);
    if (nr < 1) {
        PyErr_Format(PyExc_ValueError, "references[%zd] is empty: every hypothesis needs at least one reference", i);
        return -1;
    }
    for (Py_ssize_t j = 0; j < nr; j++) {
        PyObject *r = PyTuple_GET_ITEM(items, j);
        if (check_segment(r, i, j) < 0) return -1;
        chars += PyUnicode_GET_LENGTH(r); /* each at most 2^28: no overflow before the check */
        if (chars > TER_MAX_SENTENCE_CHARS) {
            PyErr_Format(PyExc_OverflowError, "sentence %zd is longer than %lld code points, the TER kernel's limit", i,
                         (long long)TER_MAX_SENTENCE_CHARS);
            return -1;
        }
    }
    return chars;
}

/* Hold one (checked) segment for the batch. */
static int add_segment(batch *b, const module_state *st, PyObject *s, int lowercase) {
    if (grow((void **)&b->held, &b->cap_held, b->n_seg + 1, sizeof(PyObject *)) < 0) return -1;
    if (grow((void **)&b->seg, &b->cap_seg, b->n_seg + 1, sizeof(ter_segment)) < 0) return -1;
    int ascii_lower = 0;
    if (lowercase && PyUnicode_IS_ASCII(s)) {
        ascii_lower = 1; /* str.lower() of ASCII is exactly A-Z -> a-z: done while reading */
        Py_INCREF(s);
    } else if (lowercase) {
        s = PyObject_CallOneArg(st->str_lower, s);
        if (!s) return -1;
        if (!PyUnicode_CheckExact(s)) {
            PyErr_SetString(PyExc_TypeError, "str.lower() did not return a str");
            Py_DECREF(s);
            return -1;
        }
#if PY_VERSION_HEX < 0x030C0000
        if (PyUnicode_READY(s) < 0 || PyUnicode_GET_LENGTH(s) > TER_MAX_CHARS) {
#else
        if (PyUnicode_GET_LENGTH(s) > TER_MAX_CHARS) { /* lowercasing can lengthen a str */
#endif
            if (!PyErr_Occurred()) PyErr_SetString(PyExc_OverflowError, "a lowercased segment is too long for the TER kernel");
            Py_DECREF(s);
            return -1;
        }
    } else {
        Py_INCREF(s);
    }
    ter_segment *seg = &b->seg[b->n_seg];
    seg->data = PyUnicode_DATA(s);
    seg->len = PyUnicode_GET_LENGTH(s);
    seg->kind = PyUnicode_KIND(s);
    seg->ascii_lower = ascii_lower;
    b->held[b->n_seg++] = s;
    return 0;
}

/* Gather sentence i (checked again: another thread may have changed a reference list since). */
static int64_t add_sentence(batch *b, const module_state *st, PyObject *hyp, PyObject *refs, Py_ssize_t i,
                            int lowercase) {
    PyObject *items = reference_items(refs, i);
    if (!items) return -1;
    int64_t chars = check_sentence(hyp, items, i);
    if (chars >= 0 && grow((void **)&b->first_seg, &b->cap_sent, b->n_sent + 2, sizeof(int64_t)) < 0) chars = -1;
    if (chars >= 0) {
        b->first_seg[b->n_sent] = (int64_t)b->n_seg;
        if (add_segment(b, st, hyp, lowercase) < 0) chars = -1;
        for (Py_ssize_t j = 0; chars >= 0 && j < PyTuple_GET_SIZE(items); j++)
            if (add_segment(b, st, PyTuple_GET_ITEM(items, j), lowercase) < 0) chars = -1;
    }
    Py_DECREF(items); /* the batch holds its own references to the str */
    if (chars < 0) return -1;
    b->n_sent++;
    b->first_seg[b->n_sent] = (int64_t)b->n_seg;
    return chars;
}

/* ------------------------------------------------------------------------------------------ */
/* the work: one sentence, then a batch on several threads                                      */

static int sentence_row(ter_work *w, const batch *b, size_t s, int64_t *row) {
    w->chars.n = w->word_start.n = w->word_hash.n = w->seg_first.n = 0;
    const int64_t first = b->first_seg[s], end = b->first_seg[s + 1];
    for (int64_t k = first; k < end; k++)
        if (ter_segment_words(w, &b->seg[k], k > first) < 0) return -1;
    int64_t *seg_first = (int64_t *)w->seg_first.d; /* room for the extra entry: ter_segment_words */
    seg_first[w->seg_first.n] = (int64_t)w->word_hash.n;
    if (ter_intern(w) < 0) return -1;
    const int32_t *ids = (const int32_t *)w->ids.d;
    const int64_t n = seg_first[1] - seg_first[0];
    int64_t best = INT64_MAX, length_sum = 0;
    for (int64_t k = 1; k < end - first; k++) {
        const int64_t m = seg_first[k + 1] - seg_first[k];
        const int64_t e = ter_edits(w, ids + seg_first[0], n, ids + seg_first[k], m);
        if (e < 0) return -1;
        if (e < best) best = e;
        length_sum += m;
    }
    row[0] = best;
    row[1] = length_sum;
    row[2] = end - first - 1;
    return 0;
}

typedef struct {
    const batch *b;
    int64_t *rows; /* the batch's first row */
    size_t next;   /* first sentence not taken yet */
    int stop;      /* set on a failure or a signal: every thread stops */
#if TER_THREADS
    pthread_mutex_t lock;
#endif
} shared_work;

typedef struct {
    shared_work *sh;
    ter_work *w;
    poller *poll;          /* the calling thread's poller (common/poll.h), for its signal checks */
    const module_state *st;
} worker;

static void set_stop(shared_work *sh) {
#if TER_THREADS
    pthread_mutex_lock(&sh->lock);
    sh->stop = 1;
    pthread_mutex_unlock(&sh->lock);
#else
    sh->stop = 1;
#endif
}

static int stopped(shared_work *sh) {
#if TER_THREADS
    pthread_mutex_lock(&sh->lock);
    const int s = sh->stop;
    pthread_mutex_unlock(&sh->lock);
    return s;
#else
    return sh->stop;
#endif
}

/* ter_work.poll of a helper thread: stop when another thread says so. */
static int poll_stop(void *state) { return stopped((shared_work *)((worker *)state)->sh) ? -1 : 0; }

/* ter_work.poll of the main thread: take the GIL, run signal handlers, release it. */
static int poll_signals(void *state) {
    worker *wk = (worker *)state;
    if (poller_check(wk->poll) < 0) {
        wk->w->err = TER_INTERRUPTED;
        set_stop(wk->sh);
        return -1;
    }
    return poll_stop(state);
}

/* Take a chunk of sentences; 0 when none is left or the work stops. */
static int take(shared_work *sh, size_t *lo, size_t *hi) {
#if TER_THREADS
    pthread_mutex_lock(&sh->lock);
#endif
    int ok = !sh->stop && sh->next < sh->b->n_sent;
    if (ok) {
        *lo = sh->next;
        *hi = sh->next + CHUNK < sh->b->n_sent ? sh->next + CHUNK : sh->b->n_sent;
        sh->next = *hi;
    }
#if TER_THREADS
    pthread_mutex_unlock(&sh->lock);
#endif
    return ok;
}

static void work_on(worker *wk) {
    size_t lo, hi;
    while (take(wk->sh, &lo, &hi)) {
        for (size_t s = lo; s < hi; s++) {
            if (sentence_row(wk->w, wk->sh->b, s, wk->sh->rows + 3 * s) < 0) {
                set_stop(wk->sh);
                return;
            }
        }
    }
}

static void helper_main(void *arg) { work_on((worker *)arg); }

/* The main thread's poll while it waits for the helpers (pool_finish): its work's poll, now. */
static int wait_poll(void *arg) {
    worker *main = (worker *)arg;
    main->w->work = TER_POLL_WORK; /* poll now */
    return ter_tick(main->w, 0) < 0 ? -1 : 0;
}


/* Rows of the whole batch, without the GIL (the caller has released it). 0, or -1 with the
 * error in the first failing work's err. */
static int run_batch(const batch *b, int64_t *rows, ter_work *works, int threads, poller *poll,
                     const module_state *st, int on_main_thread) {
    shared_work sh;
    memset(&sh, 0, sizeof(sh));
    sh.b = b;
    sh.rows = rows;
    worker wk[MAX_THREADS];
    const size_t chunks = (b->n_sent + CHUNK - 1) / CHUNK;
    if ((size_t)threads > chunks) threads = chunks > 0 ? (int)chunks : 1;
    for (int t = 0; t < threads; t++) {
        wk[t].sh = &sh;
        wk[t].w = &works[t];
        wk[t].poll = poll;
        wk[t].st = st;
        works[t].err = TER_OK;
        works[t].poll = t == 0 ? (on_main_thread ? poll_signals : (threads > 1 ? poll_stop : NULL)) : poll_stop;
        works[t].poll_state = &wk[t];
        works[t].work = 0;
    }
#if TER_THREADS
    pthread_mutex_init(&sh.lock, NULL); /* also taken by the one-thread path (take, poll) */
#endif
    pool helpers;
    if (threads > 1 && pool_init(&helpers) == 0) {
        for (int t = 1; t < threads; t++)
            if (pool_start(&helpers, helper_main, &wk[t]) < 0) break; /* fewer helpers: the others take its chunks */
        work_on(&wk[0]);
        pool_finish(&helpers, wk[0].w->poll ? wait_poll : NULL, &wk[0]);
    } else {
        work_on(&wk[0]);
    }
#if TER_THREADS
    pthread_mutex_destroy(&sh.lock);
#endif
    if (!sh.stop) return 0;
    /* the error to report: a failure if any thread had one, else the interruption */
    for (int t = 0; t < threads; t++)
        if (works[t].err == TER_NOMEM) {
            works[0].err = TER_NOMEM;
            return -1;
        }
    works[0].err = TER_INTERRUPTED;
    return -1;
}

/* ------------------------------------------------------------------------------------------ */
/* the entry point                                                                             */

static int bool_arg(PyObject *obj, const char *name, int *out) {
    if (!PyBool_Check(obj)) {
        PyErr_Format(PyExc_TypeError, "%s must be a bool, got %.80s", name, Py_TYPE(obj)->tp_name);
        return -1;
    }
    *out = obj == Py_True;
    return 0;
}

static PyObject *py_statistics(PyObject *module, PyObject *args) {
    PyObject *hyps_in, *refs_in, *flag_obj[4], *out_in, *threads_in;
    if (!PyArg_ParseTuple(args, "OOOOOOOO:statistics", &hyps_in, &refs_in, &flag_obj[0], &flag_obj[1], &flag_obj[2],
                          &flag_obj[3], &out_in, &threads_in))
        return NULL;
    const module_state *st = (const module_state *)PyModule_GetState(module);
    PyObject *hyps = NULL, *refs = NULL, *result = NULL;
    Py_buffer out = {0};
    batch b;
    memset(&b, 0, sizeof(b));
    ter_work *works = NULL;
    int threads = 0, normalized, no_punct, asian, case_sensitive;

    static const char *flag_names[4] = {"normalized", "no_punct", "asian_support", "case_sensitive"};
    int *flags_out[4] = {&normalized, &no_punct, &asian, &case_sensitive};
    for (int f = 0; f < 4; f++)
        if (bool_arg(flag_obj[f], flag_names[f], flags_out[f]) < 0) goto done;
    if (!PyLong_Check(threads_in) || PyBool_Check(threads_in)) {
        PyErr_Format(PyExc_TypeError, "threads must be an int, got %.80s", Py_TYPE(threads_in)->tp_name);
        goto done;
    }
    {
        const long t = PyLong_AsLong(threads_in);
        if (t == -1 && PyErr_Occurred()) {
            PyErr_Clear();
            PyErr_SetString(PyExc_ValueError, "threads is out of range");
            goto done;
        }
        if (t < 1) {
            PyErr_Format(PyExc_ValueError, "threads must be >= 1, got %ld", t);
            goto done;
        }
        threads = t > MAX_THREADS ? MAX_THREADS : (int)t;
#if !TER_THREADS
        threads = 1;
#endif
    }
    if (PyUnicode_Check(hyps_in) || PyBytes_Check(hyps_in) || PyUnicode_Check(refs_in) || PyBytes_Check(refs_in)) {
        PyErr_SetString(PyExc_TypeError, "hypotheses and references must be sequences (of str, of lists of str)");
        goto done;
    }
    /* private copies of the outer sequences: no other thread can move an item under us */
    if (!(hyps = PySequence_List(hyps_in)) || !(refs = PySequence_List(refs_in))) {
        if (PyErr_ExceptionMatches(PyExc_TypeError)) {
            PyErr_Clear();
            PyErr_SetString(PyExc_TypeError, "hypotheses and references must be sequences (of str, of lists of str)");
        }
        goto done;
    }
    const Py_ssize_t n = PyList_GET_SIZE(hyps);
    if (PyList_GET_SIZE(refs) != n) {
        PyErr_Format(PyExc_ValueError, "got %zd hypotheses but %zd reference lists", n, PyList_GET_SIZE(refs));
        goto done;
    }
    if (int64_buffer(out_in, &out, 1, "out") < 0) goto done; /* common/pyhelpers.h */
    if (n > PY_SSIZE_T_MAX / 24 || out.len != n * 24) {
        PyErr_Format(PyExc_ValueError, "out must hold %zd rows of 3 int64 values", n);
        goto done;
    }
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *items = reference_items(PyList_GET_ITEM(refs, i), i);
        const int64_t chars = items ? check_sentence(PyList_GET_ITEM(hyps, i), items, i) : -1;
        Py_XDECREF(items);
        if (chars < 0) goto done;
    }

    works = (ter_work *)PyMem_Calloc((size_t)threads, sizeof(ter_work));
    if (!works) {
        PyErr_NoMemory();
        goto done;
    }
    const int option_flags = (case_sensitive ? 0 : TER_LOWERCASE) | (normalized ? TER_NORMALIZE : 0) |
                             (no_punct ? TER_NO_PUNCT : 0) | (asian ? TER_ASIAN : 0);
    for (int t = 0; t < threads; t++) works[t].flags = option_flags;
    poller poll;
    if (poller_start(&poll, st->main_thread) < 0) goto done;
    const int on_main_thread = poll.enabled;
    int64_t *rows = (int64_t *)out.buf;
    for (Py_ssize_t i = 0; i < n;) {
        const Py_ssize_t first = i;
        int64_t chars = 0;
        while (i < n && (i == first || chars < BATCH_CHARS)) {
            const int64_t c = add_sentence(&b, st, PyList_GET_ITEM(hyps, i), PyList_GET_ITEM(refs, i), i, !case_sensitive);
            if (c < 0) goto done;
            chars += c;
            i++;
        }
        poller_release(&poll);
        const int rc = run_batch(&b, rows + 3 * first, works, threads, &poll, st, on_main_thread);
        poller_acquire(&poll);
        batch_clear(&b);
        if (rc < 0) {
            if (!PyErr_Occurred()) {
                if (works[0].err == TER_NOMEM)
                    PyErr_NoMemory();
                else
                    PyErr_SetNone(PyExc_KeyboardInterrupt);
            }
            goto done;
        }
        if (PyErr_CheckSignals() < 0) goto done;
    }
    result = Py_None;
    Py_INCREF(result);
done:
    batch_free(&b);
    if (works) {
        for (int t = 0; t < threads; t++) ter_work_free(&works[t]);
        PyMem_Free(works);
    }
    Py_XDECREF(hyps);
    Py_XDECREF(refs);
    buffer_release(&out);
    return result;
}

/* words(text, normalized, no_punct, asian_support, case_sensitive, reference): the kernel's words
 * of one segment as a list of str, for tests against the Python tokenizer. */
static PyObject *py_words(PyObject *module, PyObject *args) {
    PyObject *text, *flag_obj[5];
    if (!PyArg_ParseTuple(args, "OOOOOO:words", &text, &flag_obj[0], &flag_obj[1], &flag_obj[2], &flag_obj[3],
                          &flag_obj[4]))
        return NULL;
    static const char *flag_names[5] = {"normalized", "no_punct", "asian_support", "case_sensitive", "reference"};
    int flag[5];
    for (int f = 0; f < 5; f++)
        if (bool_arg(flag_obj[f], flag_names[f], &flag[f]) < 0) return NULL;
    if (!PyUnicode_Check(text)) {
        PyErr_Format(PyExc_TypeError, "text must be a str, got %.80s", Py_TYPE(text)->tp_name);
        return NULL;
    }
    if (check_segment(text, 0, -1) < 0) return NULL;
    const module_state *st = (const module_state *)PyModule_GetState(module);
    batch b;
    memset(&b, 0, sizeof(b));
    ter_work w;
    memset(&w, 0, sizeof(w));
    PyObject *result = NULL;
    w.flags = (flag[3] ? 0 : TER_LOWERCASE) | (flag[0] ? TER_NORMALIZE : 0) | (flag[1] ? TER_NO_PUNCT : 0) |
              (flag[2] ? TER_ASIAN : 0);
    if (add_segment(&b, st, text, !flag[3]) < 0) goto done;
    if (ter_segment_words(&w, &b.seg[0], flag[4]) < 0 || ter_reserve(&w, &w.word_start, w.word_hash.n + 1, 8) < 0) {
        PyErr_NoMemory();
        goto done;
    }
    {
        const size_t words = w.word_hash.n;
        int64_t *start = (int64_t *)w.word_start.d;
        start[words] = (int64_t)w.chars.n;
        result = PyList_New((Py_ssize_t)words);
        for (size_t x = 0; result && x < words; x++) {
            PyObject *word = PyUnicode_FromKindAndData(PyUnicode_4BYTE_KIND, (const uint32_t *)w.chars.d + start[x],
                                                       (Py_ssize_t)(start[x + 1] - start[x]));
            if (!word) Py_CLEAR(result);
            else PyList_SET_ITEM(result, (Py_ssize_t)x, word);
        }
    }
done:
    batch_free(&b);
    ter_work_free(&w);
    return result;
}

/* ------------------------------------------------------------------------------------------ */
/* module                                                                                      */

static PyMethodDef methods[] = {
    {"statistics", py_statistics, METH_VARARGS,
     "statistics(hypotheses, references, normalized, no_punct, asian_support, case_sensitive, out, threads)\n\n"
     "Fill out (int64, n x 3) with the TER statistics of hypotheses[i] (a str) against references[i]\n"
     "(a non-empty list of str): fewest edits, sum of reference lengths, number of references.\n"
     "The four options are bools (bleukit.metrics.ter.TerOptions); threads >= 1.\n"
     "Releases the GIL while it works."},
    {"words", py_words, METH_VARARGS,
     "words(text, normalized, no_punct, asian_support, case_sensitive, reference) -> list of str\n\n"
     "The kernel's TER words of one segment (a reference is tokenized twice, as in sacreBLEU); for tests."},
    {NULL, NULL, 0, NULL}};

static int module_exec(PyObject *m) {
    module_state *st = (module_state *)PyModule_GetState(m);
    st->main_thread = poll_main_thread();
    if (!st->main_thread) return -1;
    st->str_lower = str_lower_method();
    if (!st->str_lower) return -1;
    if (PyModule_AddIntConstant(m, "MAX_SEGMENT_CHARS", (long)TER_MAX_CHARS) < 0) return -1;
    return 0;
}

static int module_traverse(PyObject *m, visitproc visit, void *arg) {
    module_state *st = (module_state *)PyModule_GetState(m);
    if (st) {
        Py_VISIT(st->str_lower);
        Py_VISIT(st->main_thread);
    }
    return 0;
}

static int module_clear(PyObject *m) {
    module_state *st = (module_state *)PyModule_GetState(m);
    if (st) {
        Py_CLEAR(st->str_lower);
        Py_CLEAR(st->main_thread);
    }
    return 0;
}

static void module_free(void *m) { module_clear((PyObject *)m); }

static PyModuleDef_Slot slots[] = {KERNEL_SLOTS(module_exec)};

static struct PyModuleDef moduledef = {
    PyModuleDef_HEAD_INIT,
    "bleukit.metrics.ter._kernel",
    "bleukit's compiled TER statistics (see bleukit.metrics.ter.extract).",
    sizeof(module_state),
    methods,
    slots,
    module_traverse,
    module_clear,
    module_free,
};

PyMODINIT_FUNC PyInit__kernel(void) { return PyModuleDef_Init(&moduledef); }
