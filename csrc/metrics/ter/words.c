/*
 * TER's words of one segment, on code points, reproducing bleukit/metrics/ter/tokenizer.py
 * (which documents the rules and why they are in this order):
 *  - lowercasing: ASCII text is lowercased while it is read; other text arrives lowercased by
 *    str.lower() itself (ter.c calls it under the GIL);
 *  - without `normalized`: punctuation is deleted (no_punct) and whitespace splits, in one pass;
 *  - with `normalized`: one pass per rule of tokenizer._normalize, each rewriting the whole text
 *    as re.sub or str.replace does (left to right, matches never overlapping), then the deletion
 *    and the split; a reference goes through the rules twice, as in sacreBLEU;
 *  - whitespace is CPython's own Py_UNICODE_ISSPACE, the predicate of str.split().
 * Then every word of the sentence gets an integer id (equal words, equal ids) for edits.c.
 *
 * Runs without the GIL: no Python object or error state is touched (Python.h is included for
 * the PyUnicode kinds and Py_UNICODE_ISSPACE only); failures set w->err.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include "common/hash.h"
#include "ter.h"

#include <string.h>

typedef uint32_t cp;

#define CPS(b) ((cp *)(b).d)
#define I64(b) ((int64_t *)(b).d)

/* ------------------------------------------------------------------------------------------ */
/* character classes (tokenizer.py's sets, spelled out once)                                  */

/* ASCII classes as tables: 1 in ASCII_SYMBOL for _ASCII_SYMBOLS, in PUNCTUATION for _PUNCTUATION. */
static const unsigned char ASCII_SYMBOL[128] = {
    [' '] = 1, ['!'] = 1, ['"'] = 1, ['#'] = 1, ['$'] = 1, ['%'] = 1, ['&'] = 1, ['('] = 1, [')'] = 1,
    ['*'] = 1, ['+'] = 1, ['/'] = 1, [':'] = 1, [';'] = 1, ['<'] = 1, ['='] = 1, ['>'] = 1, ['?'] = 1,
    ['@'] = 1, ['['] = 1, ['\\'] = 1, [']'] = 1, ['^'] = 1, ['_'] = 1, ['`'] = 1, ['{'] = 1, ['|'] = 1,
    ['}'] = 1, ['~'] = 1};
static const unsigned char PUNCTUATION[128] = {['.'] = 1, [','] = 1, ['?'] = 1, [':'] = 1, [';'] = 1,
                                               ['!'] = 1, ['"'] = 1, ['('] = 1, [')'] = 1};

static int is_ascii_symbol(cp c) { return c < 128 && ASCII_SYMBOL[c]; }

static int is_punctuation(cp c) { return c < 128 && PUNCTUATION[c]; }

static int is_cjk_punctuation(cp c) { /* _CJK_PUNCTUATION + _FULL_WIDTH_PUNCTUATION */
    return c == 0x3001 || c == 0x3002 || (c >= 0x3008 && c <= 0x3011) || (c >= 0x3014 && c <= 0x301f) ||
           (c >= 0xff61 && c <= 0xff65) || c == 0x30fb || c == 0xff0e || c == 0xff0c || c == 0xff1f ||
           c == 0xff1a || c == 0xff1b || c == 0xff01 || c == 0xff02 || c == 0xff08 || c == 0xff09;
}

static int is_cjk_character(cp c) { /* _CJK_CHARACTERS */
    return (c >= 0x4e00 && c <= 0x9fff) || (c >= 0x3400 && c <= 0x4dbf) || (c >= 0x31c0 && c <= 0x31ef) ||
           (c >= 0x2e80 && c <= 0x2eff) || (c >= 0x3300 && c <= 0x33ff) || (c >= 0xf900 && c <= 0xfaff) ||
           (c >= 0xfe30 && c <= 0xfe4f) || (c >= 0x3200 && c <= 0x3f22);
}

static int is_digit(cp c) { return c >= '0' && c <= '9'; }

static int deleted(int flags, cp c) {
    if (!(flags & TER_NO_PUNCT)) return 0;
    return is_punctuation(c) || ((flags & TER_ASIAN) && is_cjk_punctuation(c));
}

/* ------------------------------------------------------------------------------------------ */
/* the word store                                                                              */


/* Append the whitespace-separated words of text[0..n) to the store, deleting what no_punct deletes
 * (a deleted character joins its neighbours, as deleting it from the string does). */
static int split_words(ter_work *w, const cp *text, size_t n) {
    if (ter_reserve(w, &w->chars, w->chars.n + n, sizeof(cp)) < 0 ||
        ter_reserve(w, &w->word_start, w->word_start.n + n / 2 + 2, sizeof(int64_t)) < 0 ||
        ter_reserve(w, &w->word_hash, w->word_hash.n + n / 2 + 2, sizeof(uint64_t)) < 0)
        return -1;
    cp *chars = CPS(w->chars);
    int64_t *start = I64(w->word_start);
    uint64_t *hash = (uint64_t *)w->word_hash.d;
    size_t k = w->chars.n, words = w->word_hash.n;
    int in_word = 0;
    uint64_t h = HASH_SEED;
    for (size_t i = 0; i < n; i++) {
        const cp c = text[i];
        if (Py_UNICODE_ISSPACE(c)) {
            if (in_word) {
                hash[words] = finish_hash(h, k - (size_t)start[words]);
                words++;
                in_word = 0;
            }
            continue;
        }
        if (deleted(w->flags, c)) continue;
        if (!in_word) {
            start[words] = (int64_t)k;
            h = HASH_SEED;
            in_word = 1;
        }
        chars[k++] = c;
        h = (h ^ c) * HASH_PRIME;
    }
    if (in_word) {
        hash[words] = finish_hash(h, k - (size_t)start[words]);
        words++;
    }
    w->chars.n = k;
    w->word_hash.n = w->word_start.n = words;
    return 0;
}

/* ------------------------------------------------------------------------------------------ */
/* tercom's normalisation: one function per rule, from `in` (n code points) into `out`          */

/* Every rule at most triples the text and adds two: room for that before each pass. */
static cp *room(ter_work *w, ter_buf *out, size_t n) {
    if (n > (SIZE_MAX - 2) / 3 / sizeof(cp) || ter_reserve(w, out, 3 * n + 2, sizeof(cp)) < 0) {
        w->err = TER_NOMEM;
        return NULL;
    }
    return CPS(*out);
}

/* Hyphenated line breaks ("\n-") vanish and other line breaks become spaces. One scan does both
 * passes of tokenizer._JOIN_LINES: "\n-" cannot overlap itself, so the first pass removes every
 * occurrence in the original text, and the second turns the remaining "\n" into spaces. */
static size_t join_lines(const cp *in, size_t n, cp *out) {
    size_t k = 0;
    for (size_t i = 0; i < n; i++) {
        if (in[i] != '\n')
            out[k++] = in[i];
        else if (i + 1 < n && in[i + 1] == '-')
            i++;
        else
            out[k++] = ' ';
    }
    return k;
}

/* Every occurrence of the ASCII literal `name` becomes `c` (one str.replace). */
static size_t replace_entity(const cp *in, size_t n, const char *name, cp c, cp *out) {
    const size_t len = strlen(name);
    size_t k = 0;
    for (size_t i = 0; i < n;) {
        size_t x = 0;
        while (x < len && i + x < n && in[i + x] == (cp)(unsigned char)name[x]) x++;
        if (x == len) {
            out[k++] = c;
            i += len;
        } else {
            out[k++] = in[i++];
        }
    }
    return k;
}

/* " " + text + " ", with spaces around every character of _ASCII_SYMBOLS. */
static size_t pad_and_isolate_symbols(const cp *in, size_t n, cp *out) {
    size_t k = 0;
    out[k++] = ' ';
    for (size_t i = 0; i < n; i++) {
        if (is_ascii_symbol(in[i])) {
            out[k++] = ' ';
            out[k++] = in[i];
            out[k++] = ' ';
        } else {
            out[k++] = in[i];
        }
    }
    out[k++] = ' ';
    return k;
}

/* "'s " -> " 's " (_POSSESSIVE). */
static size_t split_possessive(const cp *in, size_t n, cp *out) {
    size_t k = 0;
    for (size_t i = 0; i < n;) {
        if (in[i] == '\'' && i + 2 < n && in[i + 1] == 's' && in[i + 2] == ' ') {
            out[k++] = ' ';
            out[k++] = '\'';
            out[k++] = 's';
            out[k++] = ' ';
            i += 3;
        } else {
            out[k++] = in[i++];
        }
    }
    return k;
}

/* The three two-character rules of re.sub: at each position, if (first, second) match the rule,
 * the pair is rewritten and both are consumed; otherwise one character is copied. */
enum { AFTER_NON_DIGIT, BEFORE_NON_DIGIT, DASH_AFTER_DIGIT };

static size_t pair_rule(int rule, const cp *in, size_t n, cp *out) {
    size_t k = 0, i = 0;
    for (; i + 1 < n;) {
        const cp a = in[i], b = in[i + 1];
        if (rule == AFTER_NON_DIGIT && !is_digit(a) && (b == '.' || b == ',')) { /* \1 \2 + space */
            out[k++] = a;
            out[k++] = ' ';
            out[k++] = b;
            out[k++] = ' ';
            i += 2;
        } else if (rule == BEFORE_NON_DIGIT && (a == '.' || a == ',') && !is_digit(b)) { /* space \1 space \2 */
            out[k++] = ' ';
            out[k++] = a;
            out[k++] = ' ';
            out[k++] = b;
            i += 2;
        } else if (rule == DASH_AFTER_DIGIT && is_digit(a) && b == '-') { /* \1 space \2 space */
            out[k++] = a;
            out[k++] = ' ';
            out[k++] = b;
            out[k++] = ' ';
            i += 2;
        } else {
            out[k++] = in[i++];
        }
    }
    if (i < n) out[k++] = in[i];
    return k;
}

/* Spaces around every CJK character and CJK or full-width punctuation mark (_ISOLATE_CJK). */
static size_t isolate_cjk(const cp *in, size_t n, cp *out) {
    size_t k = 0;
    for (size_t i = 0; i < n; i++) {
        if (is_cjk_character(in[i]) || is_cjk_punctuation(in[i])) {
            out[k++] = ' ';
            out[k++] = in[i];
            out[k++] = ' ';
        } else {
            out[k++] = in[i];
        }
    }
    return k;
}

static int has(const cp *text, size_t n, cp c) {
    for (size_t i = 0; i < n; i++)
        if (text[i] == c) return 1;
    return 0;
}

/* tokenizer._normalize on pass_a[0..*n): the result is left in pass_a, its length in *n. */
static int normalize(ter_work *w, size_t *n) {
    static const struct {
        const char *name;
        cp c;
    } entities[] = {{"&quot;", '"'}, {"&amp;", '&'}, {"&lt;", '<'}, {"&gt;", '>'}};
    ter_buf *a = &w->pass_a, *b = &w->pass_b, *t;
    size_t len = *n;
#define PASS(expr)                                                \
    do {                                                          \
        cp *out = room(w, b, len);                                \
        if (!out) return -1;                                      \
        const cp *in = CPS(*a);                                   \
        (void)in;                                                 \
        len = (expr);                                             \
        t = a;                                                    \
        a = b;                                                    \
        b = t;                                                    \
    } while (0)
    if (has(CPS(*a), len, '\n')) PASS(join_lines(in, len, out));
    for (size_t e = 0; e < sizeof(entities) / sizeof(entities[0]); e++)
        if (has(CPS(*a), len, '&')) PASS(replace_entity(in, len, entities[e].name, entities[e].c, out));
    PASS(pad_and_isolate_symbols(in, len, out));
    PASS(split_possessive(in, len, out));
    PASS(pair_rule(AFTER_NON_DIGIT, in, len, out));
    PASS(pair_rule(BEFORE_NON_DIGIT, in, len, out));
    PASS(pair_rule(DASH_AFTER_DIGIT, in, len, out));
    if (w->flags & TER_ASIAN) PASS(isolate_cjk(in, len, out));
#undef PASS
    if (a != &w->pass_a) { /* an odd number of passes: swap the buffers themselves back */
        const ter_buf keep = w->pass_a;
        w->pass_a = w->pass_b;
        w->pass_b = keep;
    }
    *n = len;
    return 0;
}

/* ------------------------------------------------------------------------------------------ */

/* The segment's code points into pass_a (A-Z lowercased while read when asked). */
static int load(ter_work *w, const ter_segment *src) {
    const size_t n = (size_t)src->len;
    if (ter_reserve(w, &w->pass_a, n + 1, sizeof(cp)) < 0) return -1;
    cp *out = CPS(w->pass_a);
    if (src->kind == PyUnicode_1BYTE_KIND) {
        const Py_UCS1 *p = (const Py_UCS1 *)src->data;
        if (src->ascii_lower) {
            for (size_t i = 0; i < n; i++) out[i] = (p[i] >= 'A' && p[i] <= 'Z') ? p[i] + 32u : p[i];
        } else {
            for (size_t i = 0; i < n; i++) out[i] = p[i];
        }
    } else if (src->kind == PyUnicode_2BYTE_KIND) {
        const Py_UCS2 *p = (const Py_UCS2 *)src->data;
        for (size_t i = 0; i < n; i++) out[i] = p[i];
    } else {
        const Py_UCS4 *p = (const Py_UCS4 *)src->data;
        for (size_t i = 0; i < n; i++) out[i] = p[i];
    }
    return 0;
}

/* The words of pass_a[0..n), joined by single spaces, back into pass_a (a reference's first
 * pass becomes the text of its second: sacreBLEU joins the words and tokenizes that). */
static size_t join_words(ter_work *w, size_t n) {
    cp *text = CPS(w->pass_a);
    size_t k = 0;
    int in_word = 0;
    for (size_t i = 0; i < n; i++) {
        const cp c = text[i];
        if (Py_UNICODE_ISSPACE(c) || deleted(w->flags, c)) {
            if (Py_UNICODE_ISSPACE(c)) in_word = 0;
            continue;
        }
        if (!in_word && k > 0) text[k++] = ' ';
        in_word = 1;
        text[k++] = c;
    }
    return k;
}

int ter_segment_words(ter_work *w, const ter_segment *src, int reference) {
    if (ter_reserve(w, &w->seg_first, w->seg_first.n + 2, sizeof(int64_t)) < 0) return -1;
    I64(w->seg_first)[w->seg_first.n++] = (int64_t)w->word_hash.n;
    if (load(w, src) < 0) return -1;
    size_t n = (size_t)src->len;
    /* sacreBLEU strips the right end first; it matters to the rules ("'s" before a final U+0085
     * is followed by the padding space only once the U+0085 is gone) */
    while (n > 0 && Py_UNICODE_ISSPACE(CPS(w->pass_a)[n - 1])) n--;
    if (w->flags & TER_NORMALIZE) {
        if (normalize(w, &n) < 0) return -1;
        if (reference) {
            /* lowercasing again would change nothing: str.lower is idempotent */
            n = join_words(w, n);
            if (normalize(w, &n) < 0) return -1;
        }
    }
    if (split_words(w, CPS(w->pass_a), n) < 0) return -1;
    return ter_tick(w, (uint64_t)n);
}

/* ------------------------------------------------------------------------------------------ */

int ter_intern(ter_work *w) {
    const size_t words = w->word_hash.n;
    size_t slots = 16;
    while (slots < 2 * words) slots *= 2; /* words < 2^31: no overflow */
    if (ter_reserve(w, &w->table, slots, sizeof(int64_t)) < 0 ||
        ter_reserve(w, &w->ids, words + 1, sizeof(int32_t)) < 0 ||
        ter_reserve(w, &w->word_start, words + 1, sizeof(int64_t)) < 0)
        return -1;
    int64_t *table = I64(w->table), *start = I64(w->word_start);
    const uint64_t *hash = (const uint64_t *)w->word_hash.d;
    const cp *chars = CPS(w->chars);
    int32_t *ids = (int32_t *)w->ids.d;
    start[words] = (int64_t)w->chars.n; /* so that every word's end is the next word's start */
    memset(table, 0xff, slots * sizeof(int64_t));
    const size_t mask = slots - 1;
    int32_t next_id = 0;
    for (size_t x = 0; x < words; x++) {
        const int64_t len = start[x + 1] - start[x];
        size_t slot = (size_t)hash[x] & mask;
        for (;;) {
            const int64_t y = table[slot];
            if (y < 0) {
                table[slot] = (int64_t)x;
                ids[x] = next_id++;
                break;
            }
            if (hash[y] == hash[x] && start[y + 1] - start[y] == len &&
                memcmp(chars + start[y], chars + start[x], (size_t)len * sizeof(cp)) == 0) {
                ids[x] = ids[y];
                break;
            }
            slot = (slot + 1) & mask;
        }
    }
    return ter_tick(w, (uint64_t)words);
}
