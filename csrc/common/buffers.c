/* Growable arrays: see buffers.h. */
#include "buffers.h"

#include <stdlib.h>

int grow_array(void **data, size_t *cap, size_t need, size_t elem) {
    if (need <= *cap) return GROW_OK;
    if (need > MAX_BUFFER_BYTES / elem) return GROW_TOO_LONG;
    size_t c = *cap ? *cap : GROW_FIRST;
    while (c < need) c *= 2; /* c < 2 * need <= 2 * MAX_BUFFER_BYTES / elem: no overflow */
    void *p = realloc(*data, c * elem);
    if (!p) return GROW_NOMEM;
    *data = p;
    *cap = c;
    return GROW_OK;
}
