/*
 * Growable arrays, one rule for every kernel (free of Python, so usable without the GIL).
 *
 * grow_array doubles a capacity (from GROW_FIRST items) until it holds what is needed, never
 * past MAX_BUFFER_BYTES (limits.h), with plain realloc: the work without the GIL grows its
 * buffers with it and records the failure in its own error field; code under the GIL turns the
 * code into a Python exception (MemoryError, or OverflowError for GROW_TOO_LONG where a kernel
 * says so).
 */
#ifndef BLEUKIT_BUFFERS_H
#define BLEUKIT_BUFFERS_H

#include <stddef.h>

#include "limits.h"

/* What grow_array returns. The kernels' own error enums start with the same two codes. */
enum { GROW_OK = 0, GROW_NOMEM = 1, GROW_TOO_LONG = 2 };

/* The first capacity of an empty array, in items. */
#define GROW_FIRST 64

/* Grow an array of `elem`-byte items to hold at least `need`: GROW_OK, or GROW_NOMEM /
 * GROW_TOO_LONG with the array unchanged. */
int grow_array(void **data, size_t *cap, size_t need, size_t elem);

#endif
