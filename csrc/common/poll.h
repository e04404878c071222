/*
 * Ctrl-C while a kernel works without the GIL: the one poller every bleukit kernel uses.
 *
 * Python runs signal handlers only in the main thread of the main interpreter, and only in a
 * thread that holds the GIL. A kernel that releases the GIL for long work therefore reports its
 * progress in units of work (poller_work: one unit is one step of a loop, a code point read, a
 * token hashed, a posting added), and every POLL_INTERVAL_MS the poller takes the GIL back, runs
 * the handlers (PyErr_CheckSignals) and releases it again; a handler that raises (SIGINT's raises
 * KeyboardInterrupt) stops the work, and the exception is already set when the kernel returns.
 *
 * Time, not a count of units, decides when to poll, because a unit costs 1 ns in a pass over code
 * points and 100 ns in a hash table larger than the caches: counting alone would poll either far
 * too rarely there or far too often here, and each poll may wait up to a switch interval (5 ms)
 * for the GIL while another thread runs Python. The clock is read every POLL_SLICE units (some
 * 20 us to 3 ms of work), and loops over more items than that run in slices of POLL_SLICE
 * (poll_slice_end), reporting between slices.
 *
 * In any other thread a poll could only wait for the GIL for nothing, so there the poller is off
 * and costs one test per report.
 *
 * Which thread is the main one is asked at each call, not once at import: a child forked from
 * another thread has that thread as its main thread (threading.main_thread() follows it).
 *
 * Use, in the thread that called the kernel:
 *
 *     poller p;
 *     if (poller_start(&p, main_thread) < 0) goto error;  (with the GIL; main_thread is
 *                                                          threading.main_thread, see poll_main_thread)
 *     poller_release(&p);                                 (Py_BEGIN_ALLOW_THREADS)
 *     ... long loops report poller_work(&p, units) every POLL_SLICE units or so; -1: stop ...
 *     poller_acquire(&p);                                 (Py_END_ALLOW_THREADS)
 *     if (interrupted) goto error;                        (the handler's exception is set)
 *
 * Only the calling thread may poll; worker threads it starts (pool.h) stop when it tells them to,
 * and it polls while it waits for them.
 */
#ifndef BLEUKIT_POLL_H
#define BLEUKIT_POLL_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include <stddef.h>
#include <stdint.h>
#ifdef _WIN32
#include <windows.h>
#else
#include <time.h>
#endif

/* Time between two polls: Ctrl-C raises KeyboardInterrupt within about this. */
#define POLL_INTERVAL_MS 10
/* Units of work between two reads of the clock, and the longest slice of a long loop. */
#define POLL_SLICE ((size_t)1 << 14)

typedef struct {
    PyThreadState *saved; /* this thread's state while the GIL is released */
    int enabled;          /* signal handlers run in this thread */
    size_t work;          /* units since the clock was last read */
    int64_t last_ms;      /* when the last poll was (or the work began) */
} poller;

/* A monotonic clock in milliseconds (no GIL needed). */
static inline int64_t poll_clock_ms(void) {
#ifdef _WIN32
    return (int64_t)GetTickCount64();
#else
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (int64_t)t.tv_sec * 1000 + t.tv_nsec / 1000000;
#endif
}

/* threading.main_thread (a new reference, NULL with an exception), for a module's state. */
static inline PyObject *poll_main_thread(void) {
    PyObject *threading = PyImport_ImportModule("threading");
    if (!threading) return NULL;
    PyObject *fn = PyObject_GetAttrString(threading, "main_thread");
    Py_DECREF(threading);
    return fn;
}

/* With the GIL: whether signal handlers run in this thread (main_thread as poll_main_thread
 * returns it). 1 or 0; -1 with an exception. */
static inline int poll_here(PyObject *main_thread) {
    if (PyInterpreterState_Get() != PyInterpreterState_Main()) return 0;
    PyObject *thread = PyObject_CallNoArgs(main_thread);
    if (!thread) return -1;
    PyObject *ident = PyObject_GetAttrString(thread, "ident");
    Py_DECREF(thread);
    if (!ident) return -1;
    const unsigned long main_ident = PyLong_AsUnsignedLong(ident);
    Py_DECREF(ident);
    if (main_ident == (unsigned long)-1 && PyErr_Occurred()) return -1;
    return main_ident == PyThread_get_thread_ident();
}

/* With the GIL, before the work: 0, or -1 with an exception. */
static inline int poller_start(poller *p, PyObject *main_thread) {
    p->saved = NULL;
    p->work = 0;
    p->last_ms = poll_clock_ms();
    p->enabled = poll_here(main_thread);
    return p->enabled < 0 ? -1 : 0;
}

static inline void poller_release(poller *p) { p->saved = PyEval_SaveThread(); }

static inline void poller_acquire(poller *p) {
    PyEval_RestoreThread(p->saved);
    p->saved = NULL;
}

/* The poll itself is rare: kept out of line, so that the loops that report their work stay small. */
#if defined(__GNUC__) || defined(__clang__)
#define POLL_OUT_OF_LINE __attribute__((noinline, unused))
#else
#define POLL_OUT_OF_LINE
#endif

/* Without the GIL: take it, run the signal handlers, release it. -1 when a handler raised. */
static POLL_OUT_OF_LINE int poller_check(poller *p) {
    if (!p->enabled) return 0;
    PyEval_RestoreThread(p->saved);
    const int r = PyErr_CheckSignals();
    p->saved = PyEval_SaveThread();
    p->last_ms = poll_clock_ms();
    return r < 0 ? -1 : 0;
}

/* Without the GIL: poll when POLL_INTERVAL_MS have passed since the last poll. */
static POLL_OUT_OF_LINE int poller_due(poller *p) {
    if (poll_clock_ms() - p->last_ms < POLL_INTERVAL_MS) return 0;
    return poller_check(p);
}

/* Without the GIL: account for `units` of work; every POLL_SLICE units, poll when
 * POLL_INTERVAL_MS have passed since the last poll. -1: a signal handler raised, stop. */
static inline int poller_work(poller *p, size_t units) {
    if (!p->enabled) return 0;
    p->work += units;
    if (p->work < POLL_SLICE) return 0;
    p->work = 0;
    return poller_due(p);
}

/* End of the slice of a long loop over [lo, n) that starts at lo: at most POLL_SLICE items, so
 * the loop reports its work (and may poll) at least that often. */
static inline size_t poll_slice_end(size_t lo, size_t n) { return n - lo > POLL_SLICE ? lo + POLL_SLICE : n; }

#endif
