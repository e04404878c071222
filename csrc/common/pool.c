/* Worker threads of one call: see pool.h. */
#include "pool.h"

#include <string.h>
#if POOL_THREADS
#include <time.h>

static void *pool_main(void *arg) {
    pool_task *t = (pool_task *)arg;
    t->fn(t->arg);
    pthread_mutex_lock(&t->owner->lock);
    t->owner->running--;
    pthread_cond_signal(&t->owner->finished);
    pthread_mutex_unlock(&t->owner->lock);
    return NULL;
}

int pool_init(pool *p) {
    p->started = p->running = 0;
    if (pthread_mutex_init(&p->lock, NULL) != 0) return -1;
    if (pthread_cond_init(&p->finished, NULL) != 0) {
        pthread_mutex_destroy(&p->lock);
        return -1;
    }
    return 0;
}

int pool_start(pool *p, pool_fn fn, void *arg) {
    if (p->started >= MAX_THREADS) return -1;
    pool_task *t = &p->task[p->started];
    t->owner = p;
    t->fn = fn;
    t->arg = arg;
    pthread_mutex_lock(&p->lock);
    p->running++;
    pthread_mutex_unlock(&p->lock);
    if (pthread_create(&p->tid[p->started], NULL, pool_main, t) != 0) {
        pthread_mutex_lock(&p->lock);
        p->running--;
        pthread_mutex_unlock(&p->lock);
        return -1;
    }
    p->started++;
    return 0;
}

void pool_finish(pool *p, pool_poll_fn poll, void *poll_arg) {
    pthread_mutex_lock(&p->lock);
    while (p->running > 0) {
        if (!poll) {
            pthread_cond_wait(&p->finished, &p->lock);
            continue;
        }
        struct timespec deadline;
        clock_gettime(CLOCK_REALTIME, &deadline);
        deadline.tv_nsec += POLL_INTERVAL_MS * 1000000L;
        if (deadline.tv_nsec >= 1000000000L) {
            deadline.tv_sec += 1;
            deadline.tv_nsec -= 1000000000L;
        }
        pthread_cond_timedwait(&p->finished, &p->lock, &deadline);
        if (p->running == 0) break;
        pthread_mutex_unlock(&p->lock); /* never hold the lock while a poll waits for the GIL */
        if (poll(poll_arg) < 0) poll = NULL;
        pthread_mutex_lock(&p->lock);
    }
    pthread_mutex_unlock(&p->lock);
    for (int t = 0; t < p->started; t++) pthread_join(p->tid[t], NULL);
    pthread_cond_destroy(&p->finished);
    pthread_mutex_destroy(&p->lock);
    p->started = 0;
}

void pool_lock(pool *p) { pthread_mutex_lock(&p->lock); }
void pool_unlock(pool *p) { pthread_mutex_unlock(&p->lock); }
#else
int pool_init(pool *p) {
    memset(p, 0, sizeof(*p));
    return -1;
}
int pool_start(pool *p, pool_fn fn, void *arg) {
    (void)p;
    (void)fn;
    (void)arg;
    return -1;
}
void pool_finish(pool *p, pool_poll_fn poll, void *poll_arg) {
    (void)p;
    (void)poll;
    (void)poll_arg;
}
void pool_lock(pool *p) { (void)p; }
void pool_unlock(pool *p) { (void)p; }
#endif
