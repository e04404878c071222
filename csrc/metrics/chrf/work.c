/*
 * A chrF worker's buffers and the threads a call runs on (the accounting of work between polls,
 * work_done, is inline in chrf.h). Runs without the GIL except for the poll itself.
 */
#include "chrf.h"
#include "common/pool.h"

#include <stdlib.h>

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
} part;

static void run_part(void *arg) {
    part *p = (part *)arg;
    p->fn(p->job, p->w, p->lo, p->hi);
}

/* The calling thread's poll while it waits for the workers (pool_finish): a raised handler stops
 * every thread; the wait goes on until they have stopped. */
static int parts_poll(void *arg) {
    worker *self = (worker *)arg;
    if (self->sh->stop) return -1; /* stopping already: nothing to poll for */
    if (poller_check(self->poll) < 0) {
        self->err = ERR_INTERRUPTED;
        self->sh->stop = 1;
        return -1;
    }
    return 0;
}


/* Run fn over [0, n) split at `bounds` (threads + 1 entries) on `threads` threads (common/pool.h),
 * the last part on this thread, and a part whose thread cannot start too; the others are waited
 * for while this thread keeps polling for signals. */
void run_parts(range_fn fn, void *job, worker *ws, const int64_t *bounds, int threads) {
    part parts[MAX_THREADS];
    pool workers;
    worker *self = &ws[threads - 1];
    const int ok = threads > 1 && pool_init(&workers) == 0;
    for (int t = 0; t < threads; t++) {
        parts[t] = (part){fn, job, &ws[t], bounds[t], bounds[t + 1]};
        if (t + 1 < threads && ok && pool_start(&workers, run_part, &parts[t]) == 0) continue;
        fn(job, self, parts[t].lo, parts[t].hi); /* this thread's part, or one that could not start */
    }
    if (ok) pool_finish(&workers, self->poll->enabled ? parts_poll : NULL, self);
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
