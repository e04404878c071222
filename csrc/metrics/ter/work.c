/*
 * The TER kernel's per-thread scratch (ter_work, ter.h): its buffers and the accounting of work
 * between two polls. words.c and edits.c grow their buffers and report their work here; ter.c
 * sets ter_work.poll (which thread polls for signals, which only watches the stop flag).
 *
 * Runs without the GIL: no Python object or error state is touched.
 */
#include "common/buffers.h"
#include "ter.h"

#include <stdlib.h>

int ter_reserve(ter_work *w, ter_buf *b, size_t need, size_t size) {
    if (need <= b->cap) return 0;
    if (grow_array(&b->d, &b->cap, need, size) != GROW_OK) { /* no size here comes near the limit */
        w->err = TER_NOMEM;
        return -1;
    }
    return 0;
}

void ter_work_free(ter_work *w) {
    ter_buf *all[] = {&w->pass_a, &w->pass_b, &w->chars, &w->word_start, &w->word_hash, &w->seg_first,
                      &w->ids, &w->table, &w->lo, &w->hi, &w->off, &w->fwd, &w->bwd, &w->moves, &w->align,
                      &w->hyp_err_sum, &w->ref_err_sum, &w->hyp, &w->cand, &w->row_a, &w->row_b,
                      &w->post_start, &w->post_pos};
    for (size_t i = 0; i < sizeof(all) / sizeof(all[0]); i++) {
        free(all[i]->d);
        all[i]->d = NULL;
        all[i]->n = all[i]->cap = 0;
    }
}

int ter_tick(ter_work *w, uint64_t units) {
    w->work += units;
    if (w->work < TER_POLL_WORK || !w->poll) return 0;
    w->work = 0;
    if (w->poll(w->poll_state) < 0) {
        if (!w->err) w->err = TER_INTERRUPTED;
        return -1;
    }
    return 0;
}
