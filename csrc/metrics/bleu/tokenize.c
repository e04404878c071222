/*
 * Tokenization of one segment on code points, reproducing bleukit.metrics.bleu.extract.preprocess (lowercase,
 * rstrip, tokenize, split) exactly:
 *  - whitespace (rstrip/strip/split) is CPython's own Py_UNICODE_ISSPACE, i.e. str.isspace();
 *  - lowercasing of non-ASCII text is str.lower() itself, applied by batch.c under the GIL
 *    before the text gets here; ASCII text is lowercased while it is read (A-Z -> a-z is all
 *    str.lower() does to it);
 *  - the character classes (13a punctuation, intl \p{P} \p{S} \p{N}, zh ranges) come in a table
 *    built by bleukit.metrics.bleu.kernel.character_table from the very patterns and ranges the Python
 *    tokenizers use.
 * The mteval rules are named as in bleukit.tokenizers.MtevalRule (PUNCTUATION, DOT_AFTER_NON_DIGIT,
 * DOT_BEFORE_NON_DIGIT, DASH_AFTER_DIGIT: the four patterns of bleukit.tokenizers.mteval.MTEVAL_RULES, in order).
 *
 * Runs without the GIL: no Python object or error state is touched; failures set ws->err. Every
 * pass over a segment reports its work (ws_work, poll.h) at least every POLL_SLICE code points,
 * so Ctrl-C stops even one enormous line within some 10 ms: loops run in slices
 * (poll_slice_end); the scans that jump from one trigger character to the next call ws_progress
 * and scan at most POLL_SLICE at a time; intl cuts a long line into pieces that tokenize
 * independently (intl_cut), which keeps its rules' loops free of any check.
 */
#include "bleu.h"

#include <string.h>

/* Code points lo..hi-1 of a segment into out. */
static void read_code_points(cp_t *out, const segment_src *src, size_t lo, size_t hi) {
    if (src->kind == PyUnicode_1BYTE_KIND) {
        const Py_UCS1 *p = (const Py_UCS1 *)src->data;
        if (src->ascii_lower) {
            for (size_t i = lo; i < hi; i++) {
                const cp_t c = p[i];
                out[i] = (c >= 'A' && c <= 'Z') ? c + 32 : c;
            }
        } else {
            for (size_t i = lo; i < hi; i++) out[i] = p[i];
        }
    } else if (src->kind == PyUnicode_2BYTE_KIND) {
        const Py_UCS2 *p = (const Py_UCS2 *)src->data;
        for (size_t i = lo; i < hi; i++) out[i] = p[i];
    } else {
        const Py_UCS4 *p = (const Py_UCS4 *)src->data;
        for (size_t i = lo; i < hi; i++) out[i] = p[i];
    }
}

/* Read a segment into ws->a as code points, then rstrip() it. */
static int load_segment(workspace *ws, const segment_src *src) {
    const size_t n0 = src->len;
    if (cp_reserve(ws, &ws->a, n0 + 2) < 0) return -1;
    cp_t *out = ws->a.d;
    for (size_t lo = 0, hi; lo < n0; lo = hi) {
        hi = poll_slice_end(lo, n0);
        read_code_points(out, src, lo, hi);
        if (ws_work(ws, hi - lo) < 0) return -1;
    }
    size_t n = n0;
    /* rstrip(): the same whitespace predicate as str.rstrip() */
    while (n > 0 && Py_UNICODE_ISSPACE(out[n - 1])) n--;
    ws->a.n = n;
    return 0;
}

/* What 13a needs to know of a segment's text before its rules run, found while the text is read
 * (one pass instead of a read and two scans): whether it holds '<' ("<skipped>"), '\n', '&' (the
 * entities), and two adjacent '.'/',' (mteval_direct's condition). */
#define SEG_LT 1u
#define SEG_NL 2u
#define SEG_AMP 4u
#define SEG_DOTDOT 16u
#define SEG_SPECIAL (SEG_LT | SEG_NL | SEG_AMP | SEG_DOTDOT)

/* Each flag is an OR of comparisons over the slice, and the dot pair looks back at the source
 * (lowercasing never makes or unmakes a '.' or ','): no table lookup and no value carried from one
 * character to the next but the ORs, so the compiler can vectorize the loop. */
#define READ_FLAGGED(T, MAP)                                                                                         \
    do {                                                                                                             \
        const T *p = (const T *)src->data;                                                                           \
        unsigned lt = 0, nl = 0, amp = 0, dots = 0;                                                                  \
        size_t i = lo;                                                                                               \
        if (i == 0 && i < hi) {                                                                                      \
            const cp_t c = MAP(p[0]);                                                                                \
            out[0] = c;                                                                                              \
            lt = c == '<', nl = c == '\n', amp = c == '&';                                                           \
            i = 1;                                                                                                   \
        }                                                                                                            \
        for (; i < hi; i++) {                                                                                        \
            const cp_t c = MAP(p[i]), d = p[i - 1];                                                                  \
            out[i] = c;                                                                                              \
            lt |= c == '<';                                                                                          \
            nl |= c == '\n';                                                                                         \
            amp |= c == '&';                                                                                         \
            dots |= ((c == '.') | (c == ',')) & ((d == '.') | (d == ','));                                           \
        }                                                                                                            \
        acc |= (lt ? SEG_LT : 0u) | (nl ? SEG_NL : 0u) | (amp ? SEG_AMP : 0u) | (dots ? SEG_DOTDOT : 0u);            \
    } while (0)
#define AS_IS(c) ((cp_t)(c))
#define ASCII_LOWER(c) ((cp_t)((c) >= 'A' && (c) <= 'Z' ? (c) + 32 : (c)))

/* load_segment into out (room for src->len code points) with the SEG_* flags of the text; returns
 * the rstripped length, or -1. */
static int64_t load_flagged(workspace *ws, const segment_src *src, cp_t *out, unsigned *flags) {
    const size_t n0 = src->len;
    unsigned acc = 0;
    for (size_t lo = 0, hi; lo < n0; lo = hi) {
        hi = poll_slice_end(lo, n0);
        if (src->kind == PyUnicode_1BYTE_KIND) {
            if (src->ascii_lower)
                READ_FLAGGED(Py_UCS1, ASCII_LOWER);
            else
                READ_FLAGGED(Py_UCS1, AS_IS);
        } else if (src->kind == PyUnicode_2BYTE_KIND) {
            READ_FLAGGED(Py_UCS2, AS_IS);
        } else {
            READ_FLAGGED(Py_UCS4, AS_IS);
        }
        if (ws_work(ws, hi - lo) < 0) return -1;
    }
    size_t n = n0;
    while (n > 0 && Py_UNICODE_ISSPACE(out[n - 1])) n--;
    *flags = acc;
    return (int64_t)n;
}
#undef READ_FLAGGED
#undef AS_IS
#undef ASCII_LOWER

/* In place: remove/replace every non-overlapping occurrence, scanning left to right like
 * str.replace. The replacement is never longer than the pattern. */
static int replace_all(workspace *ws, cpbuf *b, const char *pat, const char *rep) {
    size_t pl = strlen(pat), rl = strlen(rep);
    cp_t *d = b->d;
    size_t n = b->n, r = 0, w = 0;
    while (r < n) {
        const size_t lo = r, hi = poll_slice_end(lo, n); /* a match may end beyond hi */
        while (r < hi) {
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
        if (ws_work(ws, r - lo) < 0) return -1;
    }
    b->n = w;
    return 0;
}

#define IS_DOT(c) ((c) == '.' || (c) == ',')
#define IS_DIGIT(c) ((c) < TABLE_SIZE && (cls[(c)] & CLS_DIGIT))

static inline void copy_run(cp_t *o, size_t *w, const cp_t *s, size_t from, size_t to) {
    if (to > from) {
        memcpy(o + *w, s + from, (to - from) * sizeof(cp_t));
        *w += to - from;
    }
}

/* The four mteval rules of tokenizers.mteval.MTEVAL_RULES, applied one after the other from `in`;
 * the result is in `in` again (it swaps through `tmp`). Each rule is a regex substitution of a
 * two-character pattern, i.e. a left-to-right scan where a match consumes both characters; all
 * but PUNCTUATION jump from one trigger character ('.', ',' or '-') to the next and copy the runs between. */
static int mteval_rules(workspace *ws, cpbuf *in, cpbuf *tmp) {
    const uint8_t *cls = ws->cls;
    size_t n = in->n;
    int has_dot = 0, has_dash = 0;
    /* PUNCTUATION: ([\{-\~\[-\` -\&\(-\+\:-\@\/]) -> " \1 "
     * Whitespace runs are written as one space here. That cannot change a token: the other rules
     * treat every whitespace character alike (not a digit, '.', ',' or '-'), a run of them only ever
     * separates the same two neighbours, and the final split drops them all. The later passes
     * then have less to read. */
    if (cp_reserve(ws, tmp, 3 * n + 1) < 0) return -1;
    {
        const cp_t *s = in->d;
        cp_t *o = tmp->d;
        size_t w = 0;
        size_t space = 0; /* the last character written is a space */
        for (size_t lo = 0, hi; lo < n; lo = hi) {
            hi = poll_slice_end(lo, n);
            for (size_t i = lo; i < hi; i++) {
                const cp_t c = s[i];
                const size_t sp = Py_UNICODE_ISSPACE(c) ? 1 : 0;
                const size_t cl = (!sp && c < TABLE_SIZE && (cls[c] & CLS_13A)) ? 1 : 0;
                /* branch-free: every slot is written, only the kept ones are advanced over */
                o[w] = ' ';
                w += (sp | cl) & (space ^ 1);
                o[w] = c;
                w += sp ^ 1;
                o[w] = ' ';
                w += cl;
                space = sp | cl;
                has_dot |= IS_DOT(c);
                has_dash |= c == '-';
            }
            if (ws_work(ws, hi - lo) < 0) return -1;
        }
        tmp->n = w;
    }
    if (!has_dot) goto dash_after_digit; /* the text stays in tmp, where DASH_AFTER_DIGIT reads it */
    /* DOT_AFTER_NON_DIGIT: ([^0-9])([\.,]) -> "\1 \2 " */
    n = tmp->n;
    if (cp_reserve(ws, in, 2 * n + 1) < 0) return -1;
    {
        const cp_t *s = tmp->d;
        cp_t *o = in->d;
        size_t w = 0, i = 0, mark = 0;
        while (i < n) {
            if (ws_progress(ws, &mark, i) < 0) return -1;
            const size_t stop = poll_slice_end(i + 1, n); /* scan at most POLL_SLICE */
            size_t j = i + 1;
            while (j < stop && !IS_DOT(s[j])) j++;
            if (j >= n) {
                copy_run(o, &w, s, i, n);
                break;
            }
            copy_run(o, &w, s, i, j - 1); /* none of these is followed by '.' or ',' */
            if (j == stop) { /* no '.' or ',' yet: s[j - 1] is the next scan's left neighbour */
                i = j - 1;
                continue;
            }
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
    /* DOT_BEFORE_NON_DIGIT: ([\.,])([^0-9]) -> " \1 \2" */
    n = in->n;
    if (cp_reserve(ws, tmp, 2 * n + 1) < 0) return -1;
    {
        const cp_t *s = in->d;
        cp_t *o = tmp->d;
        size_t w = 0, i = 0, mark = 0;
        while (i < n) {
            if (ws_progress(ws, &mark, i) < 0) return -1;
            const size_t stop = poll_slice_end(i, n); /* scan at most POLL_SLICE */
            size_t j = i;
            while (j < stop && !IS_DOT(s[j])) j++;
            copy_run(o, &w, s, i, j);
            if (j >= n) break;
            if (j == stop) { /* no '.' or ',' yet */
                i = j;
                continue;
            }
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
dash_after_digit:
    /* DASH_AFTER_DIGIT: ([0-9])(-) -> "\1 \2 " */
    if (!has_dash) {
        cpbuf t = *in;
        *in = *tmp;
        *tmp = t;
        return 0;
    }
    n = tmp->n;
    if (cp_reserve(ws, in, 2 * n + 1) < 0) return -1;
    {
        const cp_t *s = tmp->d;
        cp_t *o = in->d;
        size_t w = 0, i = 0, mark = 0;
        while (i < n) {
            if (ws_progress(ws, &mark, i) < 0) return -1;
            const size_t stop = poll_slice_end(i + 1, n); /* scan at most POLL_SLICE */
            size_t j = i + 1;
            while (j < stop && s[j] != '-') j++;
            if (j >= n) {
                copy_run(o, &w, s, i, n);
                break;
            }
            copy_run(o, &w, s, i, j - 1);
            if (j == stop) { /* no '-' yet: s[j - 1] is the next scan's left neighbour */
                i = j - 1;
                continue;
            }
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

/* TokenizerIntl's three regex rules on src[0..n), the result in `out` (`tmp` is scratch). */
static int intl_rules(workspace *ws, const cp_t *src, size_t n, cpbuf *out, cpbuf *tmp) {
    const uint8_t *cls = ws->cls;
#define CL(c) ((c) < TABLE_SIZE ? cls[(c)] : 0u)
    /* (\P{N})(\p{P}) -> "\1 \2 " */
    if (cp_reserve(ws, out, 2 * n + 1) < 0) return -1;
    {
        const cp_t *s = src;
        cp_t *o = out->d;
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
        out->n = w;
    }
    /* (\p{P})(\P{N}) -> " \1 \2" */
    n = out->n;
    if (cp_reserve(ws, tmp, 2 * n + 1) < 0) return -1;
    {
        const cp_t *s = out->d;
        cp_t *o = tmp->d;
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
        tmp->n = w;
    }
    /* (\p{S}) -> " \1 " */
    n = tmp->n;
    if (cp_reserve(ws, out, 3 * n + 1) < 0) return -1;
    {
        const cp_t *s = tmp->d;
        cp_t *o = out->d;
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
        out->n = w;
    }
    return 0;
}

/* End of the piece of a line that starts at lo, for intl: at least POLL_SLICE code points on, at
 * a space whose left neighbour is not \p{P} (or the end of the line). No rule matches across
 * such a cut (each needs \p{P} on one side of it, and the rules before it leave both neighbours
 * in place), and no token spans it, so the pieces can be tokenized one at a time: a long line
 * reports its work (and may poll) between pieces, without a check in the rules' loops. */
static size_t intl_cut(const uint8_t *cls, const cp_t *s, size_t lo, size_t n) {
    size_t k = poll_slice_end(lo, n);
    while (k < n && !(Py_UNICODE_ISSPACE(s[k]) && !(CL(s[k - 1]) & CLS_P))) k++;
    return k;
}
#undef CL

/* The tokens of s[lo..hi) into the store from token index t on (hi is the end of the text or a
 * space, so no token crosses it); returns the next token index. */
static size_t split_range(workspace *ws, const cp_t *s, size_t lo, size_t hi, int64_t base, size_t t,
                          int each_char) {
    size_t i = lo;
    while (i < hi) {
        while (i < hi && Py_UNICODE_ISSPACE(s[i])) i++;
        if (i >= hi) break;
        uint64_t h = HASH_SEED;
        size_t j = i;
        do {
            h = (h ^ s[j]) * HASH_PRIME;
            j++;
        } while (!each_char && j < hi && !Py_UNICODE_ISSPACE(s[j]));
        ws->tok_off.d[t] = base + (int64_t)i;
        ws->tok_len.d[t] = (int64_t)(j - i);
        ws->tok_hash.d[t] = (int64_t)finish_hash(h, j - i);
        t++;
        i = j;
    }
    return t;
}

/* Append the whitespace-separated tokens of buf (str.split()) to the sentence token store.
 * With each_char, every non-space character is a token (" ".join(line).split()). */
static int split_tokens(workspace *ws, const cpbuf *buf, int each_char) {
    const cp_t *s = buf->d;
    const size_t n = buf->n;
    if (cp_reserve(ws, &ws->chars, ws->chars.n + n) < 0) return -1;
    /* tokens are separated by whitespace unless each character is one */
    const size_t most = each_char ? n : n / 2 + 1;
    if (i64_reserve(ws, &ws->tok_off, ws->tok_off.n + most) < 0 ||
        i64_reserve(ws, &ws->tok_len, ws->tok_len.n + most) < 0 ||
        i64_reserve(ws, &ws->tok_hash, ws->tok_hash.n + most) < 0)
        return -1;
    /* the whole segment is copied once (slice by slice); tokens are spans of it */
    const int64_t base = (int64_t)ws->chars.n;
    ws->chars.n += n;
    size_t t = ws->tok_off.n;
    for (size_t lo = 0, hi; lo < n; lo = hi) {
        hi = poll_slice_end(lo, n);
        while (hi < n && !Py_UNICODE_ISSPACE(s[hi])) hi++; /* a slice ends at a space */
        memcpy(ws->chars.d + base + lo, s + lo, (hi - lo) * sizeof(cp_t));
        t = split_range(ws, s, lo, hi, base, t, each_char);
        if (ws_work(ws, hi - lo) < 0) return -1;
    }
    ws->tok_off.n = ws->tok_len.n = ws->tok_hash.n = t;
    return 0;
}

/* Whether s[0..n) holds one of the entities 13a replaces ("&quot;", "&amp;", "&lt;", "&gt;"):
 * without one, its four replacements change nothing. 1, 0, or -1 when interrupted. */
static int has_entity(workspace *ws, const cp_t *s, size_t n) {
    static const char *const entities[] = {"quot;", "amp;", "lt;", "gt;"};
    for (size_t lo = 0, hi; lo < n; lo = hi) {
        hi = poll_slice_end(lo, n);
        for (size_t i = lo; i < hi; i++) {
            if (s[i] != '&') continue;
            for (size_t e = 0; e < sizeof entities / sizeof *entities; e++) {
                const char *m = entities[e];
                size_t j = 0;
                while (m[j] && i + 1 + j < n && s[i + 1 + j] == (cp_t)(unsigned char)m[j]) j++;
                if (!m[j]) return 1;
            }
        }
        if (ws_work(ws, hi - lo) < 0) return -1;
    }
    return 0;
}

/* Whether every run of two or more '.'/',' in s[0..n) has no digit on either side (13a's padded
 * line, so a missing neighbour is a space). Then the rules still leave each character's fate to
 * its neighbours, as mteval_direct assumes: every dot of such a run ends up a token of its own
 * (each has a non-digit dot beside it), which is what mteval_split gives it. A digit beside a run
 * ("1..2", "x,.9") makes the rules' left-to-right consumption matter, and the rules run. 1, 0, or
 * -1 when interrupted. */
static int dot_runs_apart(workspace *ws, const cp_t *s, size_t n) {
    const uint8_t *cls = ws->cls;
    size_t run = 0;       /* length of the run of dots ending at i - 1 */
    int after_digit = 0; /* the character before that run is a digit */
    for (size_t lo = 0, hi; lo < n; lo = hi) {
        hi = poll_slice_end(lo, n);
        for (size_t i = lo; i < hi; i++) {
            const cp_t c = s[i];
            if (IS_DOT(c)) {
                if (run == 0) after_digit = i > 0 && IS_DIGIT(s[i - 1]);
                if (++run >= 2 && after_digit) return 0;
            } else {
                if (run >= 2 && IS_DIGIT(c)) return 0;
                run = 0;
            }
        }
        if (ws_work(ws, hi - lo) < 0) return -1;
    }
    return 1;
}

/* The ASCII characters that mteval_split's rules leave inside a token whatever their neighbours
 * (not whitespace, not of the `isolate` classes, not '.', ',' or '-'), one byte each. Worked out
 * again only when the classes differ from the last ones (the table's ASCII part is compared, not
 * its address: a workspace can outlive the call whose table it was given). */
static const uint8_t *word_chars(workspace *ws, unsigned isolate) {
    if (!ws->word_ready || ws->word_isolate != isolate || memcmp(ws->word_cls, ws->cls, sizeof ws->word_cls) != 0) {
        memcpy(ws->word_cls, ws->cls, sizeof ws->word_cls);
        for (cp_t c = 0; c < 128; c++)
            ws->word[c] = !Py_UNICODE_ISSPACE(c) && !(ws->cls[c] & isolate) && !IS_DOT(c) && c != '-';
        ws->word_isolate = isolate;
        ws->word_ready = 1;
    }
    return ws->word;
}

/* The mteval rules and the split in one pass, for a line where no two of '.' and ',' are
 * adjacent (returns 0 without doing anything otherwise; the caller then runs the rules).
 *
 * Under that condition every substitution of the four rules is decided by a character and its
 * two neighbours alone (no match can consume a character another match needs), which gives:
 * whitespace separates; a character of the `isolate` classes (PUNCTUATION's class, and for zh
 * the Chinese characters padded before the rules) is a token of its own; '.' or ',' is a token
 * of its own unless both neighbours are digits (DOT_AFTER_NON_DIGIT, DOT_BEFORE_NON_DIGIT); '-' is a token of its own when
 * the character before it is a digit (DASH_AFTER_DIGIT); everything else sticks to its neighbours. With
 * `padded` (13a's f" {line} ") a missing neighbour is a space, otherwise (zh) no rule can match
 * across the line's ends. Tokens are spans of the unchanged line. tests/metrics/bleu/test_bleu_kernel.py
 * and the fuzz target check the kernel against the Python engine, which applies the rules one by one,
 * on lines of both kinds. */
static int mteval_split(workspace *ws, const cp_t *s, size_t n, int padded, unsigned isolate, int in_store);

static int mteval_direct(workspace *ws, const cp_t *s, size_t n, int padded, unsigned isolate) {
    for (size_t lo = 1, hi; lo < n; lo = hi) {
        hi = poll_slice_end(lo, n);
        for (size_t i = lo; i < hi; i++)
            if (IS_DOT(s[i]) && IS_DOT(s[i - 1])) return 0;
        if (ws_work(ws, hi - lo) < 0) return -1;
    }
    return mteval_split(ws, s, n, padded, isolate, 0);
}

/* mteval_direct's tokens of a line known to meet its condition. With in_store, s is the free end
 * of the store (the line was read there: ws->chars.d + ws->chars.n, room reserved) and stays in
 * place; otherwise it is copied to the store slice by slice. */
static int mteval_split(workspace *ws, const cp_t *s, size_t n, int padded, unsigned isolate, int in_store) {
    const uint8_t *cls = ws->cls;
    const uint8_t *word = word_chars(ws, isolate);
    if ((!in_store && cp_reserve(ws, &ws->chars, ws->chars.n + n) < 0) ||
        i64_reserve(ws, &ws->tok_off, ws->tok_off.n + n + 1) < 0 ||
        i64_reserve(ws, &ws->tok_len, ws->tok_len.n + n + 1) < 0 ||
        i64_reserve(ws, &ws->tok_hash, ws->tok_hash.n + n + 1) < 0)
        return -1;
    const int64_t base = (int64_t)ws->chars.n;
    ws->chars.n += n;
    int64_t *off = ws->tok_off.d, *len = ws->tok_len.d, *hash = ws->tok_hash.d;
    size_t t = ws->tok_off.n, start = 0;
    int open = 0;
    uint64_t h = HASH_SEED;
    const int edge_digit = !padded;
    for (size_t lo = 0, hi; lo < n; lo = hi) {
        hi = poll_slice_end(lo, n);
        if (!in_store) memcpy(ws->chars.d + base + lo, s + lo, (hi - lo) * sizeof(cp_t));
        for (size_t i = lo; i < hi; i++) {
            cp_t c = s[i];
            if (c < 128 && word[c]) {
                /* a run of ASCII characters that only ever continue a token: the common case,
                 * in a loop of its own that tests one table entry per character */
                if (!open) {
                    open = 1;
                    start = i;
                    h = HASH_SEED;
                }
                for (;;) {
                    h = (h ^ c) * HASH_PRIME;
                    if (i + 1 >= hi) break;
                    c = s[i + 1];
                    if (c >= 128 || !word[c]) break;
                    i++;
                }
                continue;
            }
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
                hash[t++] = (int64_t)finish_hash((HASH_SEED ^ c) * HASH_PRIME, 1);
            } else {
                if (!open) {
                    open = 1;
                    start = i;
                    h = HASH_SEED;
                }
                h = (h ^ c) * HASH_PRIME;
            }
        }
        if (ws_work(ws, hi - lo) < 0) return -1;
    }
    if (open) {
        off[t] = base + (int64_t)start, len[t] = (int64_t)(n - start);
        hash[t++] = (int64_t)finish_hash(h, n - start);
    }
    ws->tok_off.n = ws->tok_len.n = ws->tok_hash.n = t;
    return 1;
}

/* preprocess(line, tokenizer, lowercase) of one segment, tokens appended to the store. */
int tokenize_segment(workspace *ws, const segment_src *s) {
    if (i64_reserve(ws, &ws->seg_start, ws->seg_start.n + 2) < 0) return -1;
    ws->seg_start.d[ws->seg_start.n++] = (int64_t)ws->tok_off.n;
    cpbuf *a = &ws->a, *b = &ws->b;
    if (ws->tokenizer == TOK_13A) {
        /* Read straight to the free end of the store, noting what the text holds: a line without
         * '<', '\n', '&' or adjacent '.'/',' (most lines) is split where it lies, in one more pass. */
        if (cp_reserve(ws, &ws->chars, ws->chars.n + s->len) < 0) return -1;
        cp_t *line = ws->chars.d + ws->chars.n;
        unsigned flags;
        const int64_t n = load_flagged(ws, s, line, &flags);
        if (n < 0) return -1;
        unsigned special = flags & SEG_SPECIAL;
        if ((special & SEG_AMP) && !(special & (SEG_LT | SEG_NL))) { /* else replacements may make entities */
            const int found = has_entity(ws, line, (size_t)n);
            if (found < 0) return -1;
            if (!found) special &= ~SEG_AMP;
        }
        if (special == SEG_DOTDOT) {
            const int apart = dot_runs_apart(ws, line, (size_t)n);
            if (apart < 0) return -1;
            if (apart) special = 0;
        }
        if (!special) return mteval_split(ws, line, (size_t)n, 1, CLS_13A, 1) < 0 ? -1 : 0;
        if (cp_reserve(ws, a, (size_t)n + 2) < 0) return -1;
        for (size_t lo = 0, hi; lo < (size_t)n; lo = hi) {
            hi = poll_slice_end(lo, (size_t)n);
            memcpy(a->d + lo, line + lo, (hi - lo) * sizeof(cp_t));
            if (ws_work(ws, hi - lo) < 0) return -1;
        }
        a->n = (size_t)n;
        if ((special & SEG_LT) && replace_all(ws, a, "<skipped>", "") < 0) return -1;
        if ((special & SEG_NL) && (replace_all(ws, a, "-\n", "") < 0 || replace_all(ws, a, "\n", " ") < 0)) return -1;
        if ((special & SEG_AMP) &&
            (replace_all(ws, a, "&quot;", "\"") < 0 || replace_all(ws, a, "&amp;", "&") < 0 ||
             replace_all(ws, a, "&lt;", "<") < 0 || replace_all(ws, a, "&gt;", ">") < 0))
            return -1;
        const int done = mteval_direct(ws, a->d, a->n, 1, CLS_13A);
        if (done) return done < 0 ? -1 : 0;
        /* f" {line} " */
        if (cp_reserve(ws, b, a->n + 2) < 0) return -1;
        b->d[0] = ' ';
        memcpy(b->d + 1, a->d, a->n * sizeof(cp_t));
        b->d[a->n + 1] = ' ';
        b->n = a->n + 2;
        if (mteval_rules(ws, b, a) < 0) return -1;
        return split_tokens(ws, b, 0);
    }
    if (load_segment(ws, s) < 0) return -1;
    switch (ws->tokenizer) {
    case TOK_NONE:
        return split_tokens(ws, a, 0);
    case TOK_CHAR:
        return split_tokens(ws, a, 1);
    case TOK_INTL:
        for (size_t lo = 0, hi; lo < a->n; lo = hi) {
            hi = intl_cut(ws->cls, a->d, lo, a->n);
            if (intl_rules(ws, a->d + lo, hi - lo, b, &ws->c) < 0 || split_tokens(ws, b, 0) < 0) return -1;
        }
        return 0;
    case TOK_ZH: {
        /* line.strip() (the right end is already stripped), then pad Chinese characters */
        size_t lo = 0;
        while (lo < a->n && Py_UNICODE_ISSPACE(a->d[lo])) lo++;
        const int done = mteval_direct(ws, a->d + lo, a->n - lo, 0, CLS_13A | CLS_ZH);
        if (done) return done < 0 ? -1 : 0;
        if (cp_reserve(ws, b, 3 * (a->n - lo) + 1) < 0) return -1;
        size_t w = 0;
        for (size_t from = lo, to; from < a->n; from = to) {
            to = poll_slice_end(from, a->n);
            for (size_t i = from; i < to; i++) {
                cp_t c = a->d[i];
                if (c < TABLE_SIZE && (ws->cls[c] & CLS_ZH)) {
                    b->d[w++] = ' ';
                    b->d[w++] = c;
                    b->d[w++] = ' ';
                } else {
                    b->d[w++] = c;
                }
            }
            if (ws_work(ws, to - from) < 0) return -1;
        }
        b->n = w;
        if (mteval_rules(ws, b, a) < 0) return -1;
        return split_tokens(ws, b, 0);
    }
    }
    return -1; /* unknown tokenizer code: text.c checks it before any work */
}
