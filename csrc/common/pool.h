/*
 * Worker threads for one call of a kernel: the calling thread starts them, does its own share of
 * the work, then waits for them while it polls for Ctrl-C (it is the only thread where Python
 * runs signal handlers). One pool serves every kernel; how the work is shared out (fixed ranges,
 * or chunks taken from a counter under pool_lock) is the kernel's.
 *
 *     pool p;
 *     if (pool_init(&p) == 0) {                   (no lock: do everything on this thread)
 *         for (...) if (pool_start(&p, fn, &arg[t]) < 0) ...;   (not started: its work is
 *                                                                 the caller's, or the others')
 *         ... this thread's share ...
 *         pool_finish(&p, poll, poll_arg);        (waits, joins, releases the pool)
 *     }
 *
 * pool_finish calls poll(poll_arg) every POLL_INTERVAL_MS while a worker runs, never holding the
 * lock (a poll may wait for the GIL); once poll returns -1 (a signal handler raised: the poll
 * tells the workers to stop its own way) it waits without polling. Without POSIX threads
 * (Windows) pool_init fails, so a kernel runs on the calling thread. The workers never touch a
 * Python object; the header includes poll.h (and so Python.h, which must come first) for the
 * poll's interval.
 */
#ifndef BLEUKIT_POOL_H
#define BLEUKIT_POOL_H

#include "poll.h" /* first: it includes Python.h */
#include "common/limits.h" /* MAX_THREADS */

#ifndef _WIN32
#include <pthread.h>
#define POOL_THREADS 1
#else
#define POOL_THREADS 0
#endif


typedef void (*pool_fn)(void *arg);
/* What pool_finish calls while it waits: 0 to go on polling, -1 to stop polling. */
typedef int (*pool_poll_fn)(void *arg);

typedef struct pool_s pool;

typedef struct {
    pool *owner;
    pool_fn fn;
    void *arg;
} pool_task;

struct pool_s {
#if POOL_THREADS
    pthread_mutex_t lock;
    pthread_cond_t finished; /* signalled when a worker ends */
    pthread_t tid[MAX_THREADS];
#endif
    pool_task task[MAX_THREADS];
    int started; /* workers started */
    int running; /* workers not finished */
};

/* 0, or -1 when the pool cannot be made (no lock, or no threads on this platform). */
int pool_init(pool *p);
/* Start a worker running fn(arg): 0, or -1 when it could not start (or the pool is full). */
int pool_start(pool *p, pool_fn fn, void *arg);
/* Wait for every worker, polling as said above; join them and release the pool. */
void pool_finish(pool *p, pool_poll_fn poll, void *poll_arg);
/* The pool's lock, for what the calling thread and its workers share (a chunk counter, a flag). */
void pool_lock(pool *p);
void pool_unlock(pool *p);

#endif
