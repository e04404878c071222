/*
 * A chrF worker's buffers and the threads a call runs on (the accounting of work between polls,
 * work_done, is inline in chrf.h). Runs without the GIL except for the poll itself.
 */
#include "chrf.h"

#include <stdlib.h>

#ifndef _WIN32
#include <pthread.h>
#include <time.h>
#define CHRF_THREADS 1
#else
#define CHRF_THREADS 0
#endif

void worker_free(worker *w) {
    free(w->chars);
    free(w->seg);
    free(w->w_off);
    free(w->w_len);
    free(w->w_hash);
    free(w->wseg);
    free(w->uni);
    free(w->ids);
    free(w->hypcnt);
    free(w->tmp);
    free(w->seen);
    free(w->hkeys);
    free(w->hvals);
    free(w->cand);
    free(w->cpmap);
    free(w->direct);
    free(w->touched);
    memset(w, 0, sizeof(*w));
}

/* ------------------------------------------------------------------------------------------ */
/* threads                                                                                     */


typedef struct {
    range_fn fn;
    void *job;
    worker *w;
    int64_t lo, hi;
    volatile int done;
} part;

#if CHRF_THREADS
static void *run_part(void *arg) {
    part *p = (part *)arg;
    p->fn(p->job, p->w, p->lo, p->hi);
    p->done = 1;
    return NULL;
}
#endif

/* Run fn over [0, n) split at `bounds` (threads + 1 entries) on `threads` threads, the last part
 * on this thread; the others are waited for while this thread keeps polling for signals. */
void run_parts(range_fn fn, void *job, worker *ws, const int64_t *bounds, int threads) {
#if CHRF_THREADS
    part parts[MAX_THREADS];
    pthread_t tid[MAX_THREADS];
    int created[MAX_THREADS];
    for (int t = 0; t < threads; t++) {
        parts[t].fn = fn;
        parts[t].job = job;
        parts[t].w = &ws[t];
        parts[t].lo = bounds[t];
        parts[t].hi = bounds[t + 1];
        parts[t].done = 0;
        created[t] = 0;
    }
    for (int t = 0; t + 1 < threads; t++) {
        created[t] = pthread_create(&tid[t], NULL, run_part, &parts[t]) == 0;
        if (!created[t]) { /* could not start one: its part runs here */
            fn(job, &ws[threads - 1], parts[t].lo, parts[t].hi);
            parts[t].done = 1;
        }
    }
    worker *self = &ws[threads - 1];
    fn(job, self, parts[threads - 1].lo, parts[threads - 1].hi);
    for (int t = 0; t + 1 < threads; t++) {
        while (created[t] && !parts[t].done) {
            const struct timespec nap = {0, 2000000}; /* 2 ms */
            nanosleep(&nap, NULL);
            if (!self->sh->stop && poller_check(self->poll) < 0) {
                self->err = ERR_INTERRUPTED;
                self->sh->stop = 1;
            }
        }
        if (created[t]) pthread_join(tid[t], NULL);
    }
#else
    for (int t = 0; t < threads; t++) fn(job, &ws[threads - 1], bounds[t], bounds[t + 1]);
#endif
}

/* Split [0, n) into `threads` parts of about equal weight (cum[i]: weight of items before i). */
void split_weights(const int64_t *cum, int64_t n, int threads, int64_t *bounds) {
    bounds[0] = 0;
    int64_t i = 0;
    for (int t = 1; t < threads; t++) {
        const int64_t goal = cum[n] / threads * t + cum[n] % threads * t / threads;
        while (i < n && cum[i] < goal) i++;
        bounds[t] = i;
    }
    bounds[threads] = n;
}
