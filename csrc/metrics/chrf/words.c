/*
 * Text -> code points and words: a str read in place (kinds 1, 2 and 4), ASCII lowercased while it
 * is read, whitespace as str.split() sees it (Py_UNICODE_ISSPACE), punctuation split off the ends
 * of words (bleukit.metrics.chrf.reference's rules). Runs without the GIL.
 */
#include "chrf.h"

/* Split a finished word [off, off + len) by the punctuation rule and record its part(s). */
static int push_word(worker *w, int64_t off, int64_t len, size_t *nw) {
    if (GROW(w, w->w_off, w->w_off_cap, *nw + 2) < 0 || GROW(w, w->w_len, w->w_len_cap, *nw + 2) < 0 ||
        GROW(w, w->w_hash, w->w_hash_cap, *nw + 2) < 0)
        return -1;
    const cp_t *c = w->chars;
    const uint8_t *punct = w->o->punct;
    if (len > 1 && c[off + len - 1] < 128 && punct[c[off + len - 1]]) {
        w->w_off[*nw] = off;
        w->w_len[(*nw)++] = len - 1;
        w->w_off[*nw] = off + len - 1;
        w->w_len[(*nw)++] = 1;
    } else if (len > 1 && c[off] < 128 && punct[c[off]]) {
        w->w_off[*nw] = off;
        w->w_len[(*nw)++] = 1;
        w->w_off[*nw] = off + 1;
        w->w_len[(*nw)++] = len - 1;
    } else {
        w->w_off[*nw] = off;
        w->w_len[(*nw)++] = len;
    }
    return 0;
}

/* Append one segment's code points to chars (whitespace dropped unless kept) and, for chrF++,
 * its words to the word spans. */
int read_segment(worker *w, const text_src *s, size_t *nc, size_t *nw) {
    const int keep_space = w->o->whitespace, words = w->o->word_order > 0, lower = s->ascii_lower;
    if (GROW(w, w->chars, w->chars_cap, *nc + (size_t)s->len + 1) < 0) return -1;
    cp_t *out = w->chars;
    size_t n = *nc;
    int64_t word_start = -1;
    /* one loop per str kind, so the width of a code point is not tested per character */
#define READ_TEXT(TYPE)                                                                            \
    do {                                                                                           \
        const TYPE *d = (const TYPE *)s->data;                                                     \
        for (int64_t i = 0; i < s->len; i++) {                                                     \
            cp_t c = d[i];                                                                         \
            if (lower && c - 'A' < 26u) c += 32;                                                   \
            if (Py_UNICODE_ISSPACE(c)) {                                                           \
                if (words && word_start >= 0 && push_word(w, word_start, (int64_t)n - word_start, nw) < 0) \
                    return -1;                                                                     \
                word_start = -1;                                                                   \
                if (keep_space) out[n++] = c;                                                      \
                continue;                                                                          \
            }                                                                                      \
            if (word_start < 0) word_start = (int64_t)n;                                           \
            out[n++] = c;                                                                          \
        }                                                                                          \
    } while (0)
    if (s->kind == PyUnicode_1BYTE_KIND)
        READ_TEXT(Py_UCS1);
    else if (s->kind == PyUnicode_2BYTE_KIND)
        READ_TEXT(Py_UCS2);
    else
        READ_TEXT(Py_UCS4);
#undef READ_TEXT
    if (words && word_start >= 0 && push_word(w, word_start, (int64_t)n - word_start, nw) < 0) return -1;
    *nc = n;
    return work_done(w, (size_t)s->len + 1);
}
