/*
 * bleukit native statistics kernel: text -> per-sentence BLEU statistics in one pass.
 *
 * For each hypothesis and its references it reproduces bleukit.engine.preprocess (lowercase,
 * rstrip, tokenize, split) on code points and counts clipped n-gram matches, writing one int64 row
 * per hypothesis in sacreBLEU's column order. No Python object is created per token.
 *
 * Exactness is by construction where possible:
 *  - whitespace (rstrip/strip/split) is CPython's own Py_UNICODE_ISSPACE, i.e. str.isspace();
 *  - lowercasing of non-ASCII text calls str.lower() itself (full Unicode special casing);
 *  - the character classes (13a punctuation, intl \p{P} \p{S} \p{N}, zh ranges) come in a table
 *    built by the Python glue from the very patterns and ranges the Python tokenizers use.
 * The score formula is not here: it stays in bleukit.scoring.
 *
 * A second entry point, ids_statistics, runs the same counting on integer token ids.
 *
 * Memory: work buffers grow to the longest sentence and are reused; nothing is kept per corpus.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* Bits of the character-class table handed in by the glue (one byte per code point). */
#define CLS_P 1u      /* \p{P} as the regex package sees it */
#define CLS_S 2u      /* \p{S} */
#define CLS_N 4u      /* \p{N} */
#define CLS_ZH 8u     /* tokenizers.CHINESE_RANGES */
#define CLS_13A 16u   /* the first mteval rule's character class */
#define CLS_DIGIT 32u /* [0-9] of the mteval rules */
#define TABLE_SIZE 0x110000

enum { TOK_13A = 0, TOK_INTL = 1, TOK_ZH = 2, TOK_CHAR = 3, TOK_NONE = 4 };

typedef uint32_t cp_t;

#define EMPTY_KEY UINT64_MAX
#define HASH_SEED 0xcbf29ce484222325ULL

static inline uint64_t mix64(uint64_t x) {
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdULL;
    x ^= x >> 33;
    x *= 0xc4ceb9fe1a85ec53ULL;
    x ^= x >> 33;
    return x;
}

/* Token hash: FNV-1a over the code points (accumulated by the caller), then mixed. */
static inline uint64_t finish_hash(uint64_t h, size_t len) {
    h = mix64(h ^ ((uint64_t)len << 40));
    return h == EMPTY_KEY ? h - 1 : h;
}

/* ------------------------------------------------------------------------------------------ */
/* growable arrays                                                                             */

typedef struct {
    cp_t *d;
    size_t n, cap;
} cpbuf;

static int cp_reserve(cpbuf *b, size_t need) {
    if (need <= b->cap) return 0;
    size_t cap = b->cap ? b->cap : 256;
    while (cap < need) cap *= 2;
    cp_t *d = (cp_t *)realloc(b->d, cap * sizeof(cp_t));
    if (!d) {
        PyErr_NoMemory();
        return -1;
    }
    b->d = d;
    b->cap = cap;
    return 0;
}

typedef struct {
    int64_t *d;
    size_t n, cap;
} i64buf;

static int i64_reserve(i64buf *b, size_t need) {
    if (need <= b->cap) return 0;
    size_t cap = b->cap ? b->cap : 256;
    while (cap < need) cap *= 2;
    int64_t *d = (int64_t *)realloc(b->d, cap * sizeof(int64_t));
    if (!d) {
        PyErr_NoMemory();
        return -1;
    }
    b->d = d;
    b->cap = cap;
    return 0;
}

typedef struct {
    const uint8_t *cls; /* character-class table */
    int tokenizer;
    int lowercase;
    int order;
    int direct; /* use mteval_direct where it applies (off only to test it against the rules) */
    /* per-segment scratch */
    cpbuf a, b;
    /* per-sentence token store: code points of all tokens, token spans */
    cpbuf chars;
    i64buf tok_off, tok_len; /* token spans in chars */
    i64buf tok_hash;         /* token hashes, computed while splitting */
    i64buf seg_start;        /* first token of each segment; one extra entry at the end */
    /* counting */
    i64buf ids;  /* per token position: id of the n-gram starting there (current order) */
    i64buf tok_ids;
    i64buf hypcnt, refmax, tmp;
    /* hash tables */
    uint64_t *hkeys;
    int64_t *hvals;
    size_t hcap;      /* allocated slots */
    size_t hmask;     /* slots in use - 1 (a power of two minus one) */
    int hshift;       /* 64 - log2(slots in use) */
    int64_t minus1_id; /* id of the integer token -1 in the current sentence (token-id path) */
    i64buf values;     /* integer tokens of the current sentence (token-id path) */
} kernel;

static void kernel_free(kernel *k) {
    free(k->a.d);
    free(k->b.d);
    free(k->chars.d);
    free(k->tok_off.d);
    free(k->tok_len.d);
    free(k->tok_hash.d);
    free(k->seg_start.d);
    free(k->ids.d);
    free(k->tok_ids.d);
    free(k->hypcnt.d);
    free(k->refmax.d);
    free(k->tmp.d);
    free(k->values.d);
    free(k->hkeys);
    free(k->hvals);
}

/* ------------------------------------------------------------------------------------------ */
/* reading and preprocessing one segment into k->a                                              */

static int load_segment(kernel *k, PyObject *s) {
    PyObject *owned = NULL;
    if (!PyUnicode_Check(s)) {
        PyErr_Format(PyExc_TypeError, "expected str, got %.80s", Py_TYPE(s)->tp_name);
        return -1;
    }
#if PY_VERSION_HEX < 0x030C0000
    if (PyUnicode_READY(s) < 0) return -1;
#endif
    int ascii_lower = 0;
    if (k->lowercase) {
        if (PyUnicode_IS_ASCII(s)) {
            ascii_lower = 1; /* str.lower() on ASCII is exactly A-Z -> a-z */
        } else {
            owned = PyObject_CallMethod(s, "lower", NULL);
            if (!owned) return -1;
            s = owned;
#if PY_VERSION_HEX < 0x030C0000
            if (PyUnicode_READY(s) < 0) {
                Py_DECREF(owned);
                return -1;
            }
#endif
        }
    }
    Py_ssize_t n = PyUnicode_GET_LENGTH(s);
    if (cp_reserve(&k->a, (size_t)n + 2) < 0) {
        Py_XDECREF(owned);
        return -1;
    }
    cp_t *out = k->a.d;
    int kind = PyUnicode_KIND(s);
    const void *data = PyUnicode_DATA(s);
    if (kind == PyUnicode_1BYTE_KIND) {
        const Py_UCS1 *p = (const Py_UCS1 *)data;
        if (ascii_lower) {
            for (Py_ssize_t i = 0; i < n; i++) {
                cp_t c = p[i];
                out[i] = (c >= 'A' && c <= 'Z') ? c + 32 : c;
            }
        } else {
            for (Py_ssize_t i = 0; i < n; i++) out[i] = p[i];
        }
    } else if (kind == PyUnicode_2BYTE_KIND) {
        const Py_UCS2 *p = (const Py_UCS2 *)data;
        for (Py_ssize_t i = 0; i < n; i++) out[i] = p[i];
    } else {
        const Py_UCS4 *p = (const Py_UCS4 *)data;
        for (Py_ssize_t i = 0; i < n; i++) out[i] = p[i];
    }
    Py_XDECREF(owned);
    /* rstrip(): the same whitespace predicate as str.rstrip() */
    while (n > 0 && Py_UNICODE_ISSPACE(out[n - 1])) n--;
    k->a.n = (size_t)n;
    return 0;
}

/* In place: remove/replace every non-overlapping occurrence, scanning left to right like
 * str.replace. The replacement is never longer than the pattern. */
static void replace_all(cpbuf *b, const char *pat, const char *rep) {
    size_t pl = strlen(pat), rl = strlen(rep);
    cp_t *d = b->d;
    size_t n = b->n, r = 0, w = 0;
    while (r < n) {
        if (d[r] == (cp_t)(unsigned char)pat[0] && r + pl <= n) {
            size_t j = 1;
            while (j < pl && d[r + j] == (cp_t)(unsigned char)pat[j]) j++;
            if (j == pl) {
                for (size_t t = 0; t < rl; t++) d[w++] = (cp_t)(unsigned char)rep[t];
                r += pl;
                continue;
            }
        }
        d[w++] = d[r++];
    }
    b->n = w;
}

#define IS_DOT(c) ((c) == '.' || (c) == ',')
#define IS_DIGIT(c) ((c) < TABLE_SIZE && (cls[(c)] & CLS_DIGIT))

static inline void copy_run(cp_t *o, size_t *w, const cp_t *s, size_t from, size_t to) {
    if (to > from) {
        memcpy(o + *w, s + from, (to - from) * sizeof(cp_t));
        *w += to - from;
    }
}

/* The four mteval rules of tokenizers._MTEVAL_RULES, applied one after the other from `in`;
 * the result is in `in` again (it swaps through `tmp`). Each rule is a regex substitution of a
 * two-character pattern, i.e. a left-to-right scan where a match consumes both characters; rules
 * 2-4 jump from one trigger character ('.', ',' or '-') to the next and copy the runs between. */
static int mteval_rules(kernel *k, cpbuf *in, cpbuf *tmp) {
    const uint8_t *cls = k->cls;
    size_t n = in->n;
    int has_dot = 0, has_dash = 0;
    /* rule 1: ([\{-\~\[-\` -\&\(-\+\:-\@\/]) -> " \1 "
     * Whitespace runs are written as one space here. That cannot change a token: rules 2-4 treat
     * every whitespace character alike (not a digit, '.', ',' or '-'), a run of them only ever
     * separates the same two neighbours, and the final split drops them all. The later passes
     * then have less to read. */
    if (cp_reserve(tmp, 3 * n + 1) < 0) return -1;
    {
        const cp_t *s = in->d;
        cp_t *o = tmp->d;
        size_t w = 0;
        size_t space = 0; /* the last character written is a space */
        for (size_t i = 0; i < n; i++) {
            const cp_t c = s[i];
            const size_t ws = Py_UNICODE_ISSPACE(c) ? 1 : 0;
            const size_t cl = (!ws && c < TABLE_SIZE && (cls[c] & CLS_13A)) ? 1 : 0;
            /* branch-free: every slot is written, only the kept ones are advanced over */
            o[w] = ' ';
            w += (ws | cl) & (space ^ 1);
            o[w] = c;
            w += ws ^ 1;
            o[w] = ' ';
            w += cl;
            space = ws | cl;
            has_dot |= IS_DOT(c);
            has_dash |= c == '-';
        }
        tmp->n = w;
    }
    if (!has_dot) goto rule4; /* the text stays in tmp, where rule 4 reads it */
    /* rule 2: ([^0-9])([\.,]) -> "\1 \2 " */
    n = tmp->n;
    if (cp_reserve(in, 2 * n + 1) < 0) return -1;
    {
        const cp_t *s = tmp->d;
        cp_t *o = in->d;
        size_t w = 0, i = 0;
        while (i < n) {
            size_t j = i + 1;
            while (j < n && !IS_DOT(s[j])) j++;
            if (j >= n) {
                copy_run(o, &w, s, i, n);
                break;
            }
            copy_run(o, &w, s, i, j - 1); /* none of these is followed by '.' or ',' */
            const cp_t x = s[j - 1];
            o[w++] = x;
            if (!IS_DIGIT(x)) {
                o[w++] = ' ';
                o[w++] = s[j];
                o[w++] = ' ';
                i = j + 1;
            } else {
                i = j;
            }
        }
        in->n = w;
    }
    /* rule 3: ([\.,])([^0-9]) -> " \1 \2" */
    n = in->n;
    if (cp_reserve(tmp, 2 * n + 1) < 0) return -1;
    {
        const cp_t *s = in->d;
        cp_t *o = tmp->d;
        size_t w = 0, i = 0;
        while (i < n) {
            size_t j = i;
            while (j < n && !IS_DOT(s[j])) j++;
            copy_run(o, &w, s, i, j);
            if (j >= n) break;
            if (j + 1 < n && !IS_DIGIT(s[j + 1])) {
                o[w++] = ' ';
                o[w++] = s[j];
                o[w++] = ' ';
                o[w++] = s[j + 1];
                i = j + 2;
            } else {
                o[w++] = s[j];
                i = j + 1;
            }
        }
        tmp->n = w;
    }
rule4:
    /* rule 4: ([0-9])(-) -> "\1 \2 " */
    if (!has_dash) {
        cpbuf t = *in;
        *in = *tmp;
        *tmp = t;
        return 0;
    }
    n = tmp->n;
    if (cp_reserve(in, 2 * n + 1) < 0) return -1;
    {
        const cp_t *s = tmp->d;
        cp_t *o = in->d;
        size_t w = 0, i = 0;
        while (i < n) {
            size_t j = i + 1;
            while (j < n && s[j] != '-') j++;
            if (j >= n) {
                copy_run(o, &w, s, i, n);
                break;
            }
            copy_run(o, &w, s, i, j - 1);
            const cp_t x = s[j - 1];
            o[w++] = x;
            if (IS_DIGIT(x)) {
                o[w++] = ' ';
                o[w++] = '-';
                o[w++] = ' ';
                i = j + 1;
            } else {
                i = j;
            }
        }
        in->n = w;
    }
    return 0;
}

/* TokenizerIntl's three regex rules. */
static int intl_rules(kernel *k, cpbuf *in, cpbuf *tmp) {
    const uint8_t *cls = k->cls;
#define CL(c) ((c) < TABLE_SIZE ? cls[(c)] : 0u)
    size_t n = in->n;
    /* (\P{N})(\p{P}) -> "\1 \2 " */
    if (cp_reserve(tmp, 2 * n + 1) < 0) return -1;
    {
        const cp_t *s = in->d;
        cp_t *o = tmp->d;
        size_t w = 0, i = 0;
        while (i < n) {
            cp_t c = s[i];
            if (i + 1 < n && (CL(s[i + 1]) & CLS_P) && !(CL(c) & CLS_N)) {
                o[w++] = c;
                o[w++] = ' ';
                o[w++] = s[i + 1];
                o[w++] = ' ';
                i += 2;
            } else {
                o[w++] = c;
                i++;
            }
        }
        tmp->n = w;
    }
    /* (\p{P})(\P{N}) -> " \1 \2" */
    n = tmp->n;
    if (cp_reserve(in, 2 * n + 1) < 0) return -1;
    {
        const cp_t *s = tmp->d;
        cp_t *o = in->d;
        size_t w = 0, i = 0;
        while (i < n) {
            cp_t c = s[i];
            if ((CL(c) & CLS_P) && i + 1 < n && !(CL(s[i + 1]) & CLS_N)) {
                o[w++] = ' ';
                o[w++] = c;
                o[w++] = ' ';
                o[w++] = s[i + 1];
                i += 2;
            } else {
                o[w++] = c;
                i++;
            }
        }
        in->n = w;
    }
    /* (\p{S}) -> " \1 " */
    n = in->n;
    if (cp_reserve(tmp, 3 * n + 1) < 0) return -1;
    {
        const cp_t *s = in->d;
        cp_t *o = tmp->d;
        size_t w = 0;
        for (size_t i = 0; i < n; i++) {
            cp_t c = s[i];
            if (CL(c) & CLS_S) {
                o[w++] = ' ';
                o[w++] = c;
                o[w++] = ' ';
            } else {
                o[w++] = c;
            }
        }
        tmp->n = w;
    }
#undef CL
    /* result back in `in` */
    cpbuf t = *in;
    *in = *tmp;
    *tmp = t;
    return 0;
}

/* Append the whitespace-separated tokens of buf (str.split()) to the sentence token store.
 * With each_char, every non-space character is a token (" ".join(line).split()). */
static int split_tokens(kernel *k, const cpbuf *buf, int each_char) {
    const cp_t *s = buf->d;
    size_t n = buf->n, i = 0;
    if (cp_reserve(&k->chars, k->chars.n + n) < 0) return -1;
    /* tokens are separated by whitespace unless each character is one */
    const size_t most = each_char ? n : n / 2 + 1;
    if (i64_reserve(&k->tok_off, k->tok_off.n + most) < 0 ||
        i64_reserve(&k->tok_len, k->tok_len.n + most) < 0 ||
        i64_reserve(&k->tok_hash, k->tok_hash.n + most) < 0)
        return -1;
    /* the whole segment is copied once; tokens are spans of it */
    const int64_t base = (int64_t)k->chars.n;
    if (n) memcpy(k->chars.d + k->chars.n, s, n * sizeof(cp_t)); /* (an empty store has no buffer) */
    k->chars.n += n;
    size_t t = k->tok_off.n;
    while (i < n) {
        while (i < n && Py_UNICODE_ISSPACE(s[i])) i++;
        if (i >= n) break;
        uint64_t h = HASH_SEED;
        size_t j = i;
        do {
            h = (h ^ s[j]) * 0x100000001b3ULL;
            j++;
        } while (!each_char && j < n && !Py_UNICODE_ISSPACE(s[j]));
        k->tok_off.d[t] = base + (int64_t)i;
        k->tok_len.d[t] = (int64_t)(j - i);
        k->tok_hash.d[t] = (int64_t)finish_hash(h, j - i);
        t++;
        i = j;
    }
    k->tok_off.n = k->tok_len.n = k->tok_hash.n = t;
    return 0;
}

/* The mteval rules and the split in one pass, for a line where no two of '.' and ',' are
 * adjacent (returns 0 without doing anything otherwise; the caller then runs the rules).
 *
 * Under that condition every substitution of the four rules is decided by a character and its
 * two neighbours alone (no match can consume a character another match needs), which gives:
 * whitespace separates; a character of the `isolate` classes (rule 1's punctuation, and for zh
 * the Chinese characters padded before the rules) is a token of its own; '.' or ',' is a token
 * of its own unless both neighbours are digits (rules 2 and 3); '-' is a token of its own when
 * the character before it is a digit (rule 4); everything else sticks to its neighbours. With
 * `padded` (13a's f" {line} ") a missing neighbour is a space, otherwise (zh) no rule can match
 * across the line's ends. Tokens are spans of the unchanged line. tests/test_native.py checks
 * this against the rules themselves. */
static int mteval_direct(kernel *k, const cp_t *s, size_t n, int padded, unsigned isolate) {
    const uint8_t *cls = k->cls;
    for (size_t i = 1; i < n; i++)
        if (IS_DOT(s[i]) && IS_DOT(s[i - 1])) return 0;
    if (cp_reserve(&k->chars, k->chars.n + n) < 0 || i64_reserve(&k->tok_off, k->tok_off.n + n + 1) < 0 ||
        i64_reserve(&k->tok_len, k->tok_len.n + n + 1) < 0 ||
        i64_reserve(&k->tok_hash, k->tok_hash.n + n + 1) < 0)
        return -1;
    const int64_t base = (int64_t)k->chars.n;
    if (n) memcpy(k->chars.d + k->chars.n, s, n * sizeof(cp_t)); /* (an empty store has no buffer) */
    k->chars.n += n;
    int64_t *off = k->tok_off.d, *len = k->tok_len.d, *hash = k->tok_hash.d;
    size_t t = k->tok_off.n, start = 0;
    int open = 0;
    uint64_t h = HASH_SEED;
    const int edge_digit = !padded;
    for (size_t i = 0; i < n; i++) {
        const cp_t c = s[i];
        int alone;
        if (Py_UNICODE_ISSPACE(c)) {
            if (open) {
                off[t] = base + (int64_t)start, len[t] = (int64_t)(i - start);
                hash[t++] = (int64_t)finish_hash(h, i - start);
                open = 0;
            }
            continue;
        }
        if (c < TABLE_SIZE && (cls[c] & isolate)) {
            alone = 1;
        } else if (IS_DOT(c)) {
            const int prev_digit = i > 0 ? IS_DIGIT(s[i - 1]) != 0 : edge_digit;
            const int next_digit = i + 1 < n ? IS_DIGIT(s[i + 1]) != 0 : edge_digit;
            alone = !(prev_digit && next_digit);
        } else if (c == '-') {
            alone = i > 0 && IS_DIGIT(s[i - 1]);
        } else {
            alone = 0;
        }
        if (alone) {
            if (open) {
                off[t] = base + (int64_t)start, len[t] = (int64_t)(i - start);
                hash[t++] = (int64_t)finish_hash(h, i - start);
                open = 0;
            }
            off[t] = base + (int64_t)i, len[t] = 1;
            hash[t++] = (int64_t)finish_hash((HASH_SEED ^ c) * 0x100000001b3ULL, 1);
        } else {
            if (!open) {
                open = 1;
                start = i;
                h = HASH_SEED;
            }
            h = (h ^ c) * 0x100000001b3ULL;
        }
    }
    if (open) {
        off[t] = base + (int64_t)start, len[t] = (int64_t)(n - start);
        hash[t++] = (int64_t)finish_hash(h, n - start);
    }
    k->tok_off.n = k->tok_len.n = k->tok_hash.n = t;
    return 1;
}

/* preprocess(line, tokenizer, lowercase) of one segment, tokens appended to the store. */
static int tokenize_segment(kernel *k, PyObject *s) {
    if (i64_reserve(&k->seg_start, k->seg_start.n + 2) < 0) return -1;
    k->seg_start.d[k->seg_start.n++] = (int64_t)k->tok_off.n;
    if (load_segment(k, s) < 0) return -1;
    cpbuf *a = &k->a, *b = &k->b;
    switch (k->tokenizer) {
    case TOK_NONE:
        return split_tokens(k, a, 0);
    case TOK_CHAR:
        return split_tokens(k, a, 1);
    case TOK_INTL:
        if (intl_rules(k, a, b) < 0) return -1;
        return split_tokens(k, a, 0);
    case TOK_13A: {
        int lt = 0, nl = 0, amp = 0;
        for (size_t i = 0; i < a->n; i++) {
            const cp_t c = a->d[i];
            lt |= c == '<';
            nl |= c == '\n';
            amp |= c == '&';
        }
        if (lt) replace_all(a, "<skipped>", "");
        if (nl) {
            replace_all(a, "-\n", "");
            replace_all(a, "\n", " ");
        }
        if (amp) {
            replace_all(a, "&quot;", "\"");
            replace_all(a, "&amp;", "&");
            replace_all(a, "&lt;", "<");
            replace_all(a, "&gt;", ">");
        }
        if (k->direct) {
            const int done = mteval_direct(k, a->d, a->n, 1, CLS_13A);
            if (done) return done < 0 ? -1 : 0;
        }
        /* f" {line} " */
        if (cp_reserve(b, a->n + 2) < 0) return -1;
        b->d[0] = ' ';
        memcpy(b->d + 1, a->d, a->n * sizeof(cp_t));
        b->d[a->n + 1] = ' ';
        b->n = a->n + 2;
        if (mteval_rules(k, b, a) < 0) return -1;
        return split_tokens(k, b, 0);
    }
    case TOK_ZH: {
        /* line.strip() (the right end is already stripped), then pad Chinese characters */
        size_t lo = 0;
        while (lo < a->n && Py_UNICODE_ISSPACE(a->d[lo])) lo++;
        if (k->direct) {
            const int done = mteval_direct(k, a->d + lo, a->n - lo, 0, CLS_13A | CLS_ZH);
            if (done) return done < 0 ? -1 : 0;
        }
        if (cp_reserve(b, 3 * (a->n - lo) + 1) < 0) return -1;
        size_t w = 0;
        for (size_t i = lo; i < a->n; i++) {
            cp_t c = a->d[i];
            if (c < TABLE_SIZE && (k->cls[c] & CLS_ZH)) {
                b->d[w++] = ' ';
                b->d[w++] = c;
                b->d[w++] = ' ';
            } else {
                b->d[w++] = c;
            }
        }
        b->n = w;
        if (mteval_rules(k, b, a) < 0) return -1;
        return split_tokens(k, b, 0);
    }
    }
    PyErr_SetString(PyExc_ValueError, "unknown tokenizer code");
    return -1;
}

/* ------------------------------------------------------------------------------------------ */
/* counting                                                                                    */

/* Open addressing table for at least `entries` keys, cleared. Only the slots in use are
 * cleared, so one very long sentence does not slow down the short ones after it. */
static int table_reset(kernel *k, size_t entries) {
    size_t cap = 16;
    while (cap < 2 * entries + 2) cap *= 2;
    if (cap > k->hcap) {
        uint64_t *keys = (uint64_t *)realloc(k->hkeys, cap * sizeof(uint64_t));
        if (!keys) {
            PyErr_NoMemory();
            return -1;
        }
        k->hkeys = keys;
        int64_t *vals = (int64_t *)realloc(k->hvals, cap * sizeof(int64_t));
        if (!vals) {
            PyErr_NoMemory();
            return -1;
        }
        k->hvals = vals;
        k->hcap = cap;
    }
    memset(k->hkeys, 0xff, cap * sizeof(uint64_t));
    k->hmask = cap - 1;
    int bits = 0;
    while (((size_t)1 << bits) < cap) bits++;
    k->hshift = 64 - bits;
    return 0;
}

static inline int same_token(const kernel *k, int64_t a, int64_t b) {
    const int64_t la = k->tok_len.d[a];
    if (la != k->tok_len.d[b]) return 0;
    const cp_t *x = k->chars.d + k->tok_off.d[a], *y = k->chars.d + k->tok_off.d[b];
    for (int64_t i = 0; i < la; i++)
        if (x[i] != y[i]) return 0;
    return 1;
}

/* Id of token t: hypothesis tokens get dense ids 0..V-1 (insert); reference tokens only look up,
 * -1 when the hypothesis does not have them (they can never match). */
static int64_t token_id(kernel *k, int64_t t, int insert, int64_t *next_id) {
    const uint64_t h = (uint64_t)k->tok_hash.d[t];
    size_t slot = (size_t)h & k->hmask;
    for (;;) {
        uint64_t key = k->hkeys[slot];
        if (key == EMPTY_KEY) break;
        if (key == h && same_token(k, t, k->hvals[slot])) return k->tok_ids.d[k->hvals[slot]];
        slot = (slot + 1) & k->hmask;
    }
    if (!insert) return -1;
    k->hkeys[slot] = h;
    k->hvals[slot] = t;
    return (*next_id)++;
}

/* Id of the n-gram (prefix (n-1)-gram id, last token id), dense per order; -1 as above. */
static inline int64_t pair_id(kernel *k, int64_t prev, int64_t tok, int insert, int64_t *next_id) {
    if (prev < 0 || tok < 0) return -1;
    uint64_t key = ((uint64_t)prev << 32) | (uint64_t)tok;
    /* Fibonacci hashing: the multiply spreads (prefix, token) pairs over the top bits */
    size_t slot = (size_t)((key * 0x9E3779B97F4A7C15ULL) >> k->hshift);
    for (;;) {
        uint64_t kk = k->hkeys[slot];
        if (kk == EMPTY_KEY) break;
        if (kk == key) return k->hvals[slot];
        slot = (slot + 1) & k->hmask;
    }
    if (!insert) return -1;
    k->hkeys[slot] = key;
    k->hvals[slot] = *next_id;
    return (*next_id)++;
}

/* Statistics row of the sentence in the token store (segment 0 the hypothesis, then refs). */
/* Id of an integer token (the token-id path), dense for the hypothesis, -1 as for text. */
static int64_t value_id(kernel *k, int64_t v, int insert, int64_t *next_id) {
    const uint64_t key = (uint64_t)v;
    if (key == EMPTY_KEY) { /* the value -1 is the table's empty marker: kept aside */
        if (k->minus1_id >= 0 || !insert) return k->minus1_id;
        return k->minus1_id = (*next_id)++;
    }
    size_t slot = (size_t)((key * 0x9E3779B97F4A7C15ULL) >> k->hshift);
    for (;;) {
        const uint64_t kk = k->hkeys[slot];
        if (kk == EMPTY_KEY) break;
        if (kk == key) return k->hvals[slot];
        slot = (slot + 1) & k->hmask;
    }
    if (!insert) return -1;
    k->hkeys[slot] = key;
    k->hvals[slot] = *next_id;
    return (*next_id)++;
}

/* Statistics row of the sentence whose segments are delimited by seg_start (segment 0 the
 * hypothesis, then the references). Tokens are the text tokens of the store, or, when `values`
 * is given, the integers values[seg_start[0]..] (the token-id path). */
static int count_sentence(kernel *k, int64_t *row, const int64_t *values) {
    const int N = k->order;
    const int64_t *seg = k->seg_start.d;
    const size_t nseg = k->seg_start.n - 1; /* seg_start has a closing entry */
    const int64_t T = seg[nseg];
    const int64_t L0 = seg[1] - seg[0];
    if (L0 > INT32_MAX || T > ((int64_t)1 << 40)) {
        PyErr_SetString(PyExc_OverflowError, "sentence too long for the native kernel");
        return -1;
    }
    if (i64_reserve(&k->tok_ids, (size_t)T + 1) < 0 || i64_reserve(&k->ids, (size_t)T + 1) < 0 ||
        i64_reserve(&k->hypcnt, (size_t)L0 + 2) < 0 || i64_reserve(&k->refmax, (size_t)L0 + 2) < 0 ||
        i64_reserve(&k->tmp, (size_t)L0 + 2) < 0)
        return -1;
    int64_t *tok_ids = k->tok_ids.d, *ids = k->ids.d;
    int64_t *hypcnt = k->hypcnt.d, *refmax = k->refmax.d, *tmp = k->tmp.d;

    /* closest reference length, ties to the shorter one */
    int64_t best = -1;
    for (size_t r = 1; r < nseg; r++) {
        int64_t len = seg[r + 1] - seg[r];
        int64_t d = len > L0 ? len - L0 : L0 - len;
        int64_t db = best > L0 ? best - L0 : L0 - best;
        if (best < 0 || d < db || (d == db && len < best)) best = len;
    }
    row[0] = L0;
    row[1] = best;
    for (int n = 0; n < N; n++) row[2 + n] = row[2 + N + n] = 0;
    if (L0 == 0) return 0;

    int64_t V = 0;
    if (table_reset(k, (size_t)L0) < 0) return -1;
    if (values) {
        k->minus1_id = -1;
        for (int64_t t = 0; t < T; t++) tok_ids[t] = ids[t] = value_id(k, values[t], t < L0, &V);
    } else {
        for (int64_t t = 0; t < T; t++) tok_ids[t] = ids[t] = token_id(k, t, t < L0, &V);
    }

    /* ids[] holds, per position, the id of the n-gram starting there, or -1 when it cannot
     * match. An n-gram can only match if both of its (n-1)-grams occur in some reference, so
     * hypothesis positions whose shorter n-gram found no reference copy drop out early. */
    for (int n = 1; n <= N; n++) {
        const int64_t hyp_positions = L0 - n + 1;
        if (hyp_positions <= 0) break;
        int64_t K = V;
        if (n > 1) {
            K = 0;
            if (table_reset(k, (size_t)hyp_positions) < 0) return -1;
            for (size_t s = 0; s < nseg; s++) {
                const int64_t start = seg[s], positions = seg[s + 1] - seg[s] - n + 1;
                int64_t *p = ids + start;
                const int64_t *last = tok_ids + start + n - 1;
                for (int64_t i = 0; i < positions; i++)
                    p[i] = (p[i] >= 0 && p[i + 1] >= 0) ? pair_id(k, p[i], last[i], s == 0, &K) : -1;
            }
        }
        /* counts are indexed by id + 1: slot 0 collects the -1s, so the loops need no branch */
        memset(hypcnt, 0, (size_t)(K + 1) * sizeof(int64_t));
        memset(refmax, 0, (size_t)(K + 1) * sizeof(int64_t));
        for (int64_t i = 0; i < hyp_positions; i++) hypcnt[ids[i] + 1]++;
        if (nseg == 2) {
            /* one reference: its counts are the maxima */
            const int64_t start = seg[1], positions = seg[2] - seg[1] - n + 1;
            for (int64_t i = 0; i < positions; i++) refmax[ids[start + i] + 1]++;
        } else {
            memset(tmp, 0, (size_t)(K + 1) * sizeof(int64_t));
            for (size_t s = 1; s < nseg; s++) {
                const int64_t start = seg[s], positions = seg[s + 1] - seg[s] - n + 1;
                for (int64_t i = 0; i < positions; i++) tmp[ids[start + i] + 1]++;
                for (int64_t i = 0; i < positions; i++) {
                    const int64_t x = ids[start + i] + 1;
                    refmax[x] = tmp[x] > refmax[x] ? tmp[x] : refmax[x];
                    tmp[x] = 0;
                }
            }
        }
        int64_t correct = 0;
        for (int64_t i = 0; i < hyp_positions; i++) {
            const int64_t x = ids[i] + 1;
            if (x == 0) continue;
            const int64_t c = hypcnt[x], r = refmax[x];
            correct += c < r ? c : r;
            hypcnt[x] = 0; /* counted once per distinct n-gram */
            if (!r) ids[i] = -1; /* in no reference: no longer n-gram from here matches */
        }
        row[2 + n - 1] = correct;
        row[2 + N + n - 1] = hyp_positions;
        if (correct == 0) {
            /* no n-gram matched, so no longer one can: only the totals are left */
            for (int m = n + 1; m <= N && L0 - m + 1 > 0; m++) row[2 + N + m - 1] = L0 - m + 1;
            break;
        }
    }
    return 0;
}

/* ------------------------------------------------------------------------------------------ */
/* Python entry point                                                                          */

static PyObject *py_text_statistics(PyObject *self, PyObject *args) {
    (void)self;
    PyObject *hyps_in, *refs_in;
    int tokenizer, lowercase, order, direct = 1;
    Py_buffer table = {0}, out = {0}, nrefs_out = {0};
    if (!PyArg_ParseTuple(args, "OOiiiy*w*w*|i", &hyps_in, &refs_in, &tokenizer, &lowercase, &order,
                          &table, &out, &nrefs_out, &direct))
        return NULL;
    PyObject *hyps = NULL, *refs = NULL, *result = NULL;
    kernel k;
    memset(&k, 0, sizeof(k));
    if (table.len != TABLE_SIZE) {
        PyErr_SetString(PyExc_ValueError, "character table must have 0x110000 entries");
        goto done;
    }
    if (tokenizer < TOK_13A || tokenizer > TOK_NONE || order < 1) {
        PyErr_SetString(PyExc_ValueError, "bad tokenizer code or max_ngram_order");
        goto done;
    }
    hyps = PySequence_Fast(hyps_in, "hypotheses must be a sequence");
    if (!hyps) goto done;
    refs = PySequence_Fast(refs_in, "references must be a sequence");
    if (!refs) goto done;
    Py_ssize_t n = PySequence_Fast_GET_SIZE(hyps);
    if (PySequence_Fast_GET_SIZE(refs) != n) {
        PyErr_SetString(PyExc_ValueError, "hypotheses and references differ in length");
        goto done;
    }
    const Py_ssize_t width = 2 + 2 * (Py_ssize_t)order;
    if (out.len != n * width * (Py_ssize_t)sizeof(int64_t) ||
        nrefs_out.len != n * (Py_ssize_t)sizeof(int64_t)) {
        PyErr_SetString(PyExc_ValueError, "output buffers have the wrong size");
        goto done;
    }
    k.cls = (const uint8_t *)table.buf;
    k.tokenizer = tokenizer;
    k.lowercase = lowercase;
    k.order = order;
    k.direct = direct;
    int64_t *rows = (int64_t *)out.buf, *nrefs = (int64_t *)nrefs_out.buf;
    PyObject **hyp_items = PySequence_Fast_ITEMS(hyps);
    PyObject **ref_items = PySequence_Fast_ITEMS(refs);
    for (Py_ssize_t i = 0; i < n; i++) {
        k.chars.n = k.tok_off.n = k.tok_len.n = k.tok_hash.n = k.seg_start.n = 0;
        if (tokenize_segment(&k, hyp_items[i]) < 0) goto done;
        PyObject *r = ref_items[i];
        Py_ssize_t nr;
        if (PyList_Check(r)) {
            nr = PyList_GET_SIZE(r);
            for (Py_ssize_t j = 0; j < nr; j++)
                if (tokenize_segment(&k, PyList_GET_ITEM(r, j)) < 0) goto done;
        } else {
            PyObject *rf = PySequence_Fast(r, "references[i] must be a list of str");
            if (!rf) goto done;
            nr = PySequence_Fast_GET_SIZE(rf);
            for (Py_ssize_t j = 0; j < nr; j++)
                if (tokenize_segment(&k, PySequence_Fast_GET_ITEM(rf, j)) < 0) {
                    Py_DECREF(rf);
                    goto done;
                }
            Py_DECREF(rf);
        }
        if (nr < 1) {
            PyErr_Format(PyExc_ValueError, "references[%zd] is empty", i);
            goto done;
        }
        if (i64_reserve(&k.seg_start, k.seg_start.n + 1) < 0) goto done;
        k.seg_start.d[k.seg_start.n++] = (int64_t)k.tok_off.n;
        if (count_sentence(&k, rows + i * width, NULL) < 0) goto done;
        nrefs[i] = nr;
    }
    result = Py_None;
    Py_INCREF(result);
done:
    kernel_free(&k);
    Py_XDECREF(hyps);
    Py_XDECREF(refs);
    if (table.obj) PyBuffer_Release(&table);
    if (out.obj) PyBuffer_Release(&out);
    if (nrefs_out.obj) PyBuffer_Release(&nrefs_out);
    return result;
}

/* Append the int64 items of one 1-D buffer (a numpy int64 array) as a segment. */
static int append_ids(kernel *k, PyObject *obj) {
    Py_buffer view;
    if (PyObject_GetBuffer(obj, &view, PyBUF_C_CONTIGUOUS | PyBUF_FORMAT) < 0) return -1;
    int ok = view.ndim == 1 && view.itemsize == 8 && view.format &&
             (strcmp(view.format, "l") == 0 || strcmp(view.format, "q") == 0 ||
              strcmp(view.format, "<l") == 0 || strcmp(view.format, "<q") == 0 ||
              strcmp(view.format, "=l") == 0 || strcmp(view.format, "=q") == 0);
    if (!ok) {
        PyBuffer_Release(&view);
        PyErr_SetString(PyExc_TypeError, "token ids must be 1-D C-contiguous int64 arrays");
        return -1;
    }
    const size_t n = (size_t)(view.len / 8);
    if (i64_reserve(&k->seg_start, k->seg_start.n + 2) < 0 ||
        i64_reserve(&k->values, k->values.n + n + 1) < 0) {
        PyBuffer_Release(&view);
        return -1;
    }
    k->seg_start.d[k->seg_start.n++] = (int64_t)k->values.n;
    if (n) memcpy(k->values.d + k->values.n, view.buf, n * sizeof(int64_t));
    k->values.n += n;
    PyBuffer_Release(&view);
    return 0;
}

static PyObject *py_ids_statistics(PyObject *self, PyObject *args) {
    PyObject *hyps_in, *refs_in;
    int order;
    Py_buffer out = {0}, nrefs_out = {0};
    (void)self;
    if (!PyArg_ParseTuple(args, "OOiw*w*", &hyps_in, &refs_in, &order, &out, &nrefs_out)) return NULL;
    PyObject *hyps = NULL, *refs = NULL, *result = NULL;
    kernel k;
    memset(&k, 0, sizeof(k));
    if (order < 1) {
        PyErr_SetString(PyExc_ValueError, "max_ngram_order must be >= 1");
        goto done;
    }
    hyps = PySequence_Fast(hyps_in, "hypotheses must be a sequence");
    if (!hyps) goto done;
    refs = PySequence_Fast(refs_in, "references must be a sequence");
    if (!refs) goto done;
    Py_ssize_t n = PySequence_Fast_GET_SIZE(hyps);
    if (PySequence_Fast_GET_SIZE(refs) != n) {
        PyErr_SetString(PyExc_ValueError, "hypotheses and references differ in length");
        goto done;
    }
    const Py_ssize_t width = 2 + 2 * (Py_ssize_t)order;
    if (out.len != n * width * (Py_ssize_t)sizeof(int64_t) ||
        nrefs_out.len != n * (Py_ssize_t)sizeof(int64_t)) {
        PyErr_SetString(PyExc_ValueError, "output buffers have the wrong size");
        goto done;
    }
    k.order = order;
    int64_t *rows = (int64_t *)out.buf, *nrefs = (int64_t *)nrefs_out.buf;
    for (Py_ssize_t i = 0; i < n; i++) {
        k.seg_start.n = k.values.n = 0;
        if (append_ids(&k, PySequence_Fast_GET_ITEM(hyps, i)) < 0) goto done;
        PyObject *rf = PySequence_Fast(PySequence_Fast_GET_ITEM(refs, i), "references[i] must be a list");
        if (!rf) goto done;
        const Py_ssize_t nr = PySequence_Fast_GET_SIZE(rf);
        for (Py_ssize_t j = 0; j < nr; j++)
            if (append_ids(&k, PySequence_Fast_GET_ITEM(rf, j)) < 0) {
                Py_DECREF(rf);
                goto done;
            }
        Py_DECREF(rf);
        if (nr < 1) {
            PyErr_Format(PyExc_ValueError, "references[%zd] is empty", i);
            goto done;
        }
        k.seg_start.d[k.seg_start.n++] = (int64_t)k.values.n;
        if (count_sentence(&k, rows + i * width, k.values.d) < 0) goto done;
        nrefs[i] = nr;
    }
    result = Py_None;
    Py_INCREF(result);
done:
    kernel_free(&k);
    Py_XDECREF(hyps);
    Py_XDECREF(refs);
    if (out.obj) PyBuffer_Release(&out);
    if (nrefs_out.obj) PyBuffer_Release(&nrefs_out);
    return result;
}

/* The same statistics from one flat batch: sequence j has lengths[j] ids (consecutive in tokens)
 * and belongs to row owner[j]; sequences are ordered by row, the hypothesis first. The ids of a
 * row are contiguous, so they are counted in place without a copy. */
static PyObject *py_ids_statistics_flat(PyObject *self, PyObject *args) {
    Py_buffer tok = {0}, len = {0}, own = {0}, out = {0}, nrefs_out = {0};
    Py_ssize_t n;
    int order;
    (void)self;
    if (!PyArg_ParseTuple(args, "y*y*y*niw*w*", &tok, &len, &own, &n, &order, &out, &nrefs_out)) return NULL;
    PyObject *result = NULL;
    kernel k;
    memset(&k, 0, sizeof(k));
    const Py_ssize_t width = 2 + 2 * (Py_ssize_t)order;
    const Py_ssize_t nseq = len.len / (Py_ssize_t)sizeof(int64_t);
    const int64_t *tokens = (const int64_t *)tok.buf, *lengths = (const int64_t *)len.buf;
    const int64_t *owner = (const int64_t *)own.buf;
    if (order < 1) {
        PyErr_SetString(PyExc_ValueError, "max_ngram_order must be >= 1");
        goto done;
    }
    if (own.len != len.len || n < 0 || out.len != n * width * (Py_ssize_t)sizeof(int64_t) ||
        nrefs_out.len != n * (Py_ssize_t)sizeof(int64_t)) {
        PyErr_SetString(PyExc_ValueError, "flat ids: buffers have inconsistent sizes");
        goto done;
    }
    k.order = order;
    int64_t *rows = (int64_t *)out.buf, *nrefs = (int64_t *)nrefs_out.buf;
    int64_t offset = 0;
    Py_ssize_t j = 0;
    for (Py_ssize_t i = 0; i < n; i++) {
        const int64_t row_start = offset;
        k.seg_start.n = 0;
        Py_ssize_t first = j;
        for (; j < nseq && owner[j] == i; j++) {
            if (lengths[j] < 0 || i64_reserve(&k.seg_start, k.seg_start.n + 2) < 0) {
                if (lengths[j] < 0) PyErr_SetString(PyExc_ValueError, "flat ids: negative length");
                goto done;
            }
            k.seg_start.d[k.seg_start.n++] = offset - row_start;
            offset += lengths[j];
        }
        if (j - first < 2) {
            PyErr_Format(PyExc_ValueError, "flat ids: row %zd needs a hypothesis and at least one reference", i);
            goto done;
        }
        if (offset * (int64_t)sizeof(int64_t) > (int64_t)tok.len) {
            PyErr_SetString(PyExc_ValueError, "flat ids: lengths exceed the ids");
            goto done;
        }
        k.seg_start.d[k.seg_start.n++] = offset - row_start;
        if (count_sentence(&k, rows + i * width, tokens + row_start) < 0) goto done;
        nrefs[i] = (int64_t)(j - first - 1);
    }
    if (j != nseq || offset * (int64_t)sizeof(int64_t) != (int64_t)tok.len) {
        PyErr_SetString(PyExc_ValueError, "flat ids: sequences are not ordered by row or do not cover the ids");
        goto done;
    }
    result = Py_None;
    Py_INCREF(result);
done:
    kernel_free(&k);
    PyBuffer_Release(&tok);
    PyBuffer_Release(&len);
    PyBuffer_Release(&own);
    if (out.obj) PyBuffer_Release(&out);
    if (nrefs_out.obj) PyBuffer_Release(&nrefs_out);
    return result;
}

static PyMethodDef methods[] = {
    {"text_statistics", py_text_statistics, METH_VARARGS,
     "text_statistics(hyps, refs, tokenizer, lowercase, order, table, rows_out, nrefs_out, direct=1)\n\n"
     "Fill rows_out (int64, n x (2 + 2 order)) and nrefs_out (int64, n) with the statistics of\n"
     "checked input. Tokenizer codes: 0 13a, 1 intl, 2 zh, 3 char, 4 none. direct=0 applies the\n"
     "mteval rules one by one even where the one-pass form is exact (for tests)."},
    {"ids_statistics", py_ids_statistics, METH_VARARGS,
     "ids_statistics(hyps, refs, order, rows_out, nrefs_out)\n\n"
     "The same statistics for token ids: hyps[i] and each of refs[i] are 1-D int64 arrays."},
    {"ids_statistics_flat", py_ids_statistics_flat, METH_VARARGS,
     "ids_statistics_flat(tokens, lengths, owner, n_rows, order, rows_out, nrefs_out)\n\n"
     "The same statistics from a flat batch: int64 ids, one length and owner row per sequence,\n"
     "sequences ordered by row with the hypothesis first."},
    {NULL, NULL, 0, NULL}};

static struct PyModuleDef moduledef = {PyModuleDef_HEAD_INIT, "_native_kernel",
                                       "bleukit's compiled statistics kernel (see bleukit._native).",
                                       -1, methods, NULL, NULL, NULL, NULL};

PyMODINIT_FUNC PyInit__native_kernel(void) {
    PyObject *m = PyModule_Create(&moduledef);
    if (!m) return NULL;
    if (PyModule_AddIntConstant(m, "TABLE_SIZE", TABLE_SIZE) < 0 ||
        PyModule_AddIntConstant(m, "CLS_P", CLS_P) < 0 || PyModule_AddIntConstant(m, "CLS_S", CLS_S) < 0 ||
        PyModule_AddIntConstant(m, "CLS_N", CLS_N) < 0 || PyModule_AddIntConstant(m, "CLS_ZH", CLS_ZH) < 0 ||
        PyModule_AddIntConstant(m, "CLS_13A", CLS_13A) < 0 ||
        PyModule_AddIntConstant(m, "CLS_DIGIT", CLS_DIGIT) < 0) {
        Py_DECREF(m);
        return NULL;
    }
    return m;
}
