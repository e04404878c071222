/*
 * bleukit._resample_kernel: bootstrap resampling and approximate randomization without numpy (the glue is
 * bleukit.resampling).
 *
 * Why: sacreBLEU draws its bootstrap resamples with numpy's default_rng(seed); a command such as
 * `bleukit REF -i SYS... --paired-bs` spent more time importing numpy than resampling. This module
 * draws the very same numbers in C, so the command line can resample without importing numpy:
 *
 * - Generator(entropy): numpy's default_rng(seed) for an integer seed: SeedSequence(seed) hashes the
 *   seed's 32-bit words (`entropy`, least significant first) into a pool of four words, which seeds
 *   PCG64 (128-bit LCG, XSL-RR output). Its integers(high, out) are numpy's
 *   rng.integers(0, high, size=len(out), dtype=np.int64) for high <= 2**32 (Lemire's bounded draws
 *   on 32-bit halves of the 64-bit outputs, the unused half kept for the next call, as numpy does).
 *   Tests compare them with numpy draw for draw, across calls.
 * - gather_sums(table, systems, width, indices, out): out[s, j] = the sum of the rows indices[s, :]
 *   of system j's table (exact: summed in 32 bits where every sum provably fits, refused
 *   otherwise), a resample's corpus statistics; largest_item(table) bounds those sums before any draw;
 * - Generator.resample_sums(table, systems, width, out): integers(rows, indices) and then
 *   gather_sums(..., indices, out) in one call, the table packed once and the draws made and summed
 *   a cache-sized block at a time (the bootstrap's route: a call per block had cost the command
 *   line's --paired-bs a tenth of its bootstrap in packing the table again);
 * - Generator.randomization_sums(table, systems, width, pairs, out): approximate randomization's trials
 *   (--paired-ar): numpy's bool coin flips integers(2, size=...) drawn as the bits of 32-bit words,
 *   and for each trial and pair of systems their corpus sums after swapping the flipped rows, from
 *   precomputed sums of every subset of each group of four rows;
 * - pairwise_sum(values): numpy's sum of float64 values (its pairwise summation), for the means.
 *
 * Every argument is checked before any work. The sums run without the GIL; the draws keep it (or
 * the Generator's lock in a free-threaded build: its state is the object's). Callers draw and sum a
 * million elements or so per call (a few ms), so Ctrl-C is seen between calls.
 *
 * 128-bit arithmetic uses the compiler's unsigned __int128 (GCC, Clang); where there is none the
 * module still builds but Generator refuses to start, and bleukit.resampling falls back to numpy.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include <stdint.h>
#include <string.h>

#include "common/moduledef.h"
#include "common/pyhelpers.h"

#if defined(__SIZEOF_INT128__)
#define HAVE_UINT128 1
typedef unsigned __int128 u128;
#else
#define HAVE_UINT128 0
#endif

/* In a free-threaded build (3.13t) a Generator's methods hold its lock: two threads sharing one
 * draw one after the other, as with the GIL. */
#ifdef Py_GIL_DISABLED
#define LOCKED(obj) Py_BEGIN_CRITICAL_SECTION(obj)
#define UNLOCKED() Py_END_CRITICAL_SECTION()
#else
#define LOCKED(obj) {
#define UNLOCKED() }
#endif

/* ---- numpy's SeedSequence (pool of 4 words) -------------------------------------------------- */

#define POOL_SIZE 4
#define INIT_A 0x43b0d7e5u
#define MULT_A 0x931e8875u
#define INIT_B 0x8b51f9ddu
#define MULT_B 0x58f38dedu
#define MIX_MULT_L 0xca01f9ddu
#define MIX_MULT_R 0x4973f715u
#define XSHIFT 16

static uint32_t hashmix(uint32_t value, uint32_t *hash_const) {
    value ^= *hash_const;
    *hash_const *= MULT_A;
    value *= *hash_const;
    value ^= value >> XSHIFT;
    return value;
}

static uint32_t mix(uint32_t x, uint32_t y) {
    uint32_t result = MIX_MULT_L * x - MIX_MULT_R * y;
    result ^= result >> XSHIFT;
    return result;
}

/* The pool SeedSequence mixes from its entropy words. */
static void mix_entropy(const uint32_t *entropy, Py_ssize_t n, uint32_t pool[POOL_SIZE]) {
    uint32_t hash_const = INIT_A;
    for (int i = 0; i < POOL_SIZE; i++) pool[i] = hashmix(i < n ? entropy[i] : 0u, &hash_const);
    for (int src = 0; src < POOL_SIZE; src++)
        for (int dst = 0; dst < POOL_SIZE; dst++)
            if (src != dst) pool[dst] = mix(pool[dst], hashmix(pool[src], &hash_const));
    for (Py_ssize_t src = POOL_SIZE; src < n; src++)
        for (int dst = 0; dst < POOL_SIZE; dst++) pool[dst] = mix(pool[dst], hashmix(entropy[src], &hash_const));
}

/* SeedSequence.generate_state(n_words, np.uint32). */
static void generate_state(const uint32_t pool[POOL_SIZE], uint32_t *out, int n_words) {
    uint32_t hash_const = INIT_B;
    for (int i = 0; i < n_words; i++) {
        uint32_t v = pool[i % POOL_SIZE];
        v ^= hash_const;
        hash_const *= MULT_B;
        v *= hash_const;
        v ^= v >> XSHIFT;
        out[i] = v;
    }
}

/* ---- PCG64 as numpy's bit generator ------------------------------------------------------------ */

/* numpy's pcg64_state: the LCG's state and stream, and the unused upper half of the last 64-bit
 * output (numpy's has_uint32 / uinteger). */
typedef struct {
#if HAVE_UINT128
    u128 state;
    u128 inc;
#endif
    int has_half;
    uint32_t half;
} pcg64;

typedef struct {
    PyObject_HEAD
    pcg64 rng;
} Generator;

#if HAVE_UINT128
#define PCG_MULT (((u128)2549297995355413924ULL << 64) + 4865540595714422341ULL)

static inline void pcg_step(pcg64 *g) { g->state = g->state * PCG_MULT + g->inc; }

/* PCG64's output of a state (XSL-RR). */
static inline uint64_t pcg_output(u128 state) {
    const uint64_t x = (uint64_t)(state >> 64) ^ (uint64_t)state;
    const unsigned rot = (unsigned)(state >> 122);
    return (x >> rot) | (x << ((64u - rot) & 63u));
}

static inline uint64_t pcg_next64(pcg64 *g) {
    pcg_step(g);
    return pcg_output(g->state);
}

/* numpy's next_uint32 for PCG64: the low half of a 64-bit output, then its high half. */
static inline uint32_t next32(pcg64 *g) {
    if (g->has_half) {
        g->has_half = 0;
        return g->half;
    }
    const uint64_t next = pcg_next64(g);
    g->has_half = 1;
    g->half = (uint32_t)(next >> 32);
    return (uint32_t)next;
}

/* numpy's buffered_bounded_lemire_uint32: a draw in [0, rng] for rng < 2**32 - 1. */
static inline uint32_t bounded32(pcg64 *g, uint32_t rng) {
    const uint32_t rng_excl = rng + 1u;
    uint64_t m = (uint64_t)next32(g) * rng_excl;
    uint32_t leftover = (uint32_t)m;
    if (leftover < rng_excl) {
        const uint32_t threshold = (UINT32_MAX - rng) % rng_excl;
        while (leftover < threshold) {
            m = (uint64_t)next32(g) * rng_excl;
            leftover = (uint32_t)m;
        }
    }
    return (uint32_t)(m >> 32);
}
#endif

/* n of numpy's bounded draws in [0, rng] into o. The state advances by one multiply-add per
 * 64-bit output, each waiting for the one before; two outputs ahead of each other are computed
 * from two interleaved chains instead (s[t+2] = s[t] * M^2 + inc * (M + 1)), which the CPU runs side
 * by side. Four draws (two outputs, low half then high half) are written at a time while none
 * of them is rejected; around a rejection (rare for small ranges) numpy's own steps run. */
static void draw_bounded(pcg64 *state, uint32_t rng, int64_t *o, Py_ssize_t n) {
    pcg64 g = *state; /* in locals: stores to o cannot alias it */
    const uint32_t rng_excl = rng + 1u, threshold = (UINT32_MAX - rng) % rng_excl;
    const u128 mult2 = PCG_MULT * PCG_MULT, inc2 = g.inc * (PCG_MULT + 1u);
    Py_ssize_t i = 0, single = 0;
    while (i < n) {
        if (single > 0 || g.has_half || n - i < 4) {
            o[i++] = (int64_t)bounded32(&g, rng);
            if (single > 0) single--;
            continue;
        }
        u128 a = g.state * PCG_MULT + g.inc, b = a * PCG_MULT + g.inc;
        while (n - i >= 4) {
            const uint64_t xa = pcg_output(a), xb = pcg_output(b);
            const uint64_t m0 = (uint64_t)(uint32_t)xa * rng_excl, m1 = (xa >> 32) * rng_excl;
            const uint64_t m2 = (uint64_t)(uint32_t)xb * rng_excl, m3 = (xb >> 32) * rng_excl;
            if ((uint32_t)m0 < threshold || (uint32_t)m1 < threshold || (uint32_t)m2 < threshold ||
                (uint32_t)m3 < threshold) {
                single = 4; /* g.state is still the state before a: numpy's steps for these */
                break;
            }
            o[i] = (int64_t)(m0 >> 32);
            o[i + 1] = (int64_t)(m1 >> 32);
            o[i + 2] = (int64_t)(m2 >> 32);
            o[i + 3] = (int64_t)(m3 >> 32);
            i += 4;
            g.state = b;
            a = a * mult2 + inc2;
            b = b * mult2 + inc2;
        }
    }
    *state = g;
}

static int Generator_init(PyObject *self_obj, PyObject *args, PyObject *kwds) {
    Generator *self = (Generator *)self_obj;
    PyObject *entropy_obj;
    static char *kwlist[] = {"entropy", NULL};
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "O:Generator", kwlist, &entropy_obj)) return -1;
#if !HAVE_UINT128
    (void)entropy_obj;
    PyErr_SetString(PyExc_NotImplementedError, "this build has no 128-bit integers for PCG64");
    return -1;
#else
    PyObject *seq = PySequence_Fast(entropy_obj, "entropy must be a sequence of 32-bit words");
    if (!seq) return -1;
    const Py_ssize_t n = PySequence_Fast_GET_SIZE(seq);
    if (n < 1 || n > 1024) {
        Py_DECREF(seq);
        PyErr_Format(PyExc_ValueError, "entropy must hold 1 to 1024 words, got %zd", n);
        return -1;
    }
    uint32_t *words = PyMem_Malloc((size_t)n * sizeof(uint32_t));
    if (!words) {
        Py_DECREF(seq);
        PyErr_NoMemory();
        return -1;
    }
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *item = PySequence_Fast_GET_ITEM(seq, i);
        const unsigned long long v = PyLong_Check(item) ? PyLong_AsUnsignedLongLong(item) : (unsigned long long)-1;
        if ((v == (unsigned long long)-1 && PyErr_Occurred()) || !PyLong_Check(item) || v > UINT32_MAX) {
            PyErr_Clear();
            PyErr_Format(PyExc_ValueError, "entropy word %zd must be an int in [0, 2**32)", i);
            PyMem_Free(words);
            Py_DECREF(seq);
            return -1;
        }
        words[i] = (uint32_t)v;
    }
    Py_DECREF(seq);
    uint32_t pool[POOL_SIZE], state[8];
    mix_entropy(words, n, pool);
    PyMem_Free(words);
    /* generate_state(4, np.uint64): eight words read as four little-endian 64-bit ones; PCG64 takes
     * the first two as the state's (high, low) and the last two as the stream's. */
    generate_state(pool, state, 8);
    uint64_t v64[4];
    for (int i = 0; i < 4; i++) v64[i] = (uint64_t)state[2 * i] | ((uint64_t)state[2 * i + 1] << 32);
    const u128 initstate = ((u128)v64[0] << 64) | v64[1];
    const u128 initseq = ((u128)v64[2] << 64) | v64[3];
    LOCKED(self)
    pcg64 *g = &self->rng;
    g->state = 0;
    g->inc = (initseq << 1) | 1u;
    pcg_step(g);
    g->state += initstate;
    pcg_step(g);
    g->has_half = 0;
    g->half = 0;
    UNLOCKED()
    return 0;
#endif
}

static PyObject *Generator_integers(Generator *self, PyObject *args) {
    unsigned long long high;
    PyObject *out_obj;
    if (!PyArg_ParseTuple(args, "KO:integers", &high, &out_obj)) return NULL;
    if (high < 1 || high > 0xFFFFFFFFull) {
        PyErr_Format(PyExc_ValueError, "high must lie in [1, 2**32 - 1], got %llu", high);
        return NULL;
    }
    Py_buffer out;
    if (int64_buffer(out_obj, &out, 1, "out") < 0) return NULL;
    int64_t *o = (int64_t *)out.buf;
    const Py_ssize_t n = int64_items(&out);
#if HAVE_UINT128
    /* The GIL stays held: the generator's state is the object's, and a call is a chunk of ~1 ms. */
    const uint32_t rng = (uint32_t)(high - 1);
    LOCKED(self)
    if (rng == 0) {
        memset(o, 0, (size_t)n * sizeof(int64_t)); /* numpy draws nothing for a range of one */
    } else {
        draw_bounded(&self->rng, rng, o, n);
    }
    UNLOCKED()
#else
    (void)self;
    (void)o;
    (void)n;
#endif
    buffer_release(&out);
    Py_RETURN_NONE;
}

static void Generator_dealloc(PyObject *self) {
    PyTypeObject *type = Py_TYPE(self);
    type->tp_free(self);
    Py_DECREF(type); /* a heap type: its instances own a reference */
}

static PyObject *Generator_resample_sums(Generator *self, PyObject *args);       /* after the sums below */
static PyObject *Generator_randomization_sums(Generator *self, PyObject *args); /* likewise */

static PyMethodDef Generator_methods[] = {
    {"integers", (PyCFunction)Generator_integers, METH_VARARGS,
     "integers($self, high, out, /)\n--\n\n"
     "Fill the int64 buffer out with numpy's rng.integers(0, high, size=len(out), dtype=np.int64),\n"
     "1 <= high < 2**32."},
    {"resample_sums", (PyCFunction)Generator_resample_sums, METH_VARARGS,
     "resample_sums($self, table, systems, width, out, /)\n--\n\n"
     "gather_sums(table, systems, width, indices, out) of the next k * rows draws integers(rows, indices)\n"
     "would make (k resamples: out holds k * systems * width items), drawn and summed a few hundred KB at a\n"
     "time, the table packed once. Releases the GIL while it sums."},
    {"randomization_sums", (PyCFunction)Generator_randomization_sums, METH_VARARGS,
     "randomization_sums($self, table, systems, width, pairs, out, /)\n--\n\n"
     "The statistics of k approximate-randomization trials of the system pairs (a, b) listed in pairs\n"
     "(int64, 2 * P items): out (k, P, 2, width) holds, for trial s and pair q, a's and b's corpus sums after\n"
     "swapping the rows whose coin flip is set, the flips being the k * rows that numpy's\n"
     "integers(2, size=k * rows, dtype=bool) would draw next. Releases the GIL while it sums."},
    {NULL, NULL, 0, NULL}};

static PyType_Slot Generator_slots[] = {
    {Py_tp_doc, (void *)"Generator(entropy)\n--\n\n"
                        "numpy's default_rng(seed) for the seed whose 32-bit words (least significant first) are\n"
                        "entropy (bleukit.resampling.seed_words)."},
    {Py_tp_init, (void *)Generator_init},
    {Py_tp_new, (void *)PyType_GenericNew},
    {Py_tp_dealloc, (void *)Generator_dealloc},
    {Py_tp_methods, Generator_methods},
    {0, NULL}};

static PyType_Spec Generator_spec = {
    .name = "bleukit._resample_kernel.Generator",
    .basicsize = sizeof(Generator),
    .flags = Py_TPFLAGS_DEFAULT,
    .slots = Generator_slots,
};

/* ---- resampled sums ------------------------------------------------------------------------------ */

/* acc[0..padded) = the sum of the rows t32[draw[j] * padded ..] for j < per. */
static void sum_rows(const int32_t *t32, Py_ssize_t padded, const int64_t *draw, Py_ssize_t per, int32_t *acc) {
    for (Py_ssize_t c = 0; c < padded; c++) acc[c] = 0;
    Py_ssize_t j = 0;
    /* Four rows per pass over the accumulator: a quarter of its loads and stores. */
    for (; j + 4 <= per; j += 4) {
        const int32_t *a = t32 + draw[j] * padded, *b = t32 + draw[j + 1] * padded;
        const int32_t *c2 = t32 + draw[j + 2] * padded, *d = t32 + draw[j + 3] * padded;
        for (Py_ssize_t c = 0; c < padded; c++) acc[c] += (a[c] + b[c]) + (c2[c] + d[c]);
    }
    for (; j < per; j++) {
        const int32_t *a = t32 + draw[j] * padded;
        for (Py_ssize_t c = 0; c < padded; c++) acc[c] += a[c];
    }
}

/* sum_rows for small items (every item at most `largest` <= 65535): 16-bit rows, half the memory
 * and twice the lanes of a vector add, summed in 16-bit lanes a run of `run` rows at a time (so
 * that no 16-bit sum passes 65535) and each run's sums added into the 32-bit accumulator. */
static void sum_rows16(const uint16_t *t16, Py_ssize_t padded, const int64_t *draw, Py_ssize_t per, Py_ssize_t run,
                       uint16_t *acc16, int32_t *acc) {
    for (Py_ssize_t c = 0; c < padded; c++) acc[c] = 0;
    Py_ssize_t j = 0;
    while (j < per) {
        const Py_ssize_t end = per - j < run ? per : j + run;
        for (Py_ssize_t c = 0; c < padded; c++) acc16[c] = 0;
        for (; j + 4 <= end; j += 4) {
            const uint16_t *a = t16 + draw[j] * padded, *b = t16 + draw[j + 1] * padded;
            const uint16_t *c2 = t16 + draw[j + 2] * padded, *d = t16 + draw[j + 3] * padded;
            for (Py_ssize_t c = 0; c < padded; c++) acc16[c] = (uint16_t)(acc16[c] + ((a[c] + b[c]) + (c2[c] + d[c])));
        }
        for (; j < end; j++) {
            const uint16_t *a = t16 + draw[j] * padded;
            for (Py_ssize_t c = 0; c < padded; c++) acc16[c] = (uint16_t)(acc16[c] + a[c]);
        }
        for (Py_ssize_t c = 0; c < padded; c++) acc[c] += acc16[c];
    }
}

/* The systems' tables packed for summing: row r holds row r of every system's table side by side,
 * padded to whole vectors (8 16-bit or 4 32-bit lanes), in 16-bit lanes when every item is small,
 * followed by the accumulators. */
typedef struct {
    void *copy; /* the one allocation: rows, then the 16-bit and 32-bit accumulators */
    Py_ssize_t n_rows, systems, system_width, width, padded, run;
    int small;
} packed;

/* With the GIL: the largest of the table's items, after checking that none is negative and that
 * sums of `per` rows stay below 2**31; or -1 with an exception. */
static int64_t checked_largest(const int64_t *t, Py_ssize_t cells, Py_ssize_t per) {
    int64_t largest = 0;
    for (Py_ssize_t i = 0; i < cells; i++) {
        if (t[i] < 0) {
            PyErr_Format(PyExc_ValueError, "table item %zd is negative (%lld)", i, (long long)t[i]);
            return -1;
        }
        if (t[i] > largest) largest = t[i];
    }
    /* The rows are summed as 32-bit integers (half the memory traffic, twice the lanes per vector
     * instruction), so every sum must stay below 2**31: the number of draws per resample times the
     * largest item bounds them. Bootstrap tables are far below (sacreBLEU's float32 sums are exact
     * only below 2**24, and bleukit.resampling asks for this route only then). */
    if (largest > 0 && per > (INT32_MAX / largest)) {
        PyErr_Format(PyExc_ValueError, "sums of %zd rows with items up to %lld may reach 2**31; sum these in numpy",
                     per, (long long)largest);
        return -1;
    }
    return largest;
}

/* With the GIL: checks the table's items (checked_largest) and allocates the packed copy (pack_rows
 * fills it). 0, or -1 with an exception. */
static int packed_alloc(packed *p, const int64_t *t, Py_ssize_t n_rows, Py_ssize_t systems, Py_ssize_t system_width,
                        Py_ssize_t per) {
    const Py_ssize_t width = systems * system_width, cells = n_rows * width;
    const int64_t largest = checked_largest(t, cells, per);
    if (largest < 0) return -1;
    p->n_rows = n_rows;
    p->systems = systems;
    p->system_width = system_width;
    p->width = width;
    /* Items up to 16383 (a sentence's statistics nearly always) are summed in 16-bit lanes, runs of
     * at least four rows at a time. */
    p->small = largest <= 0xFFFF / 4;
    p->padded = (width + 7) & ~(Py_ssize_t)7;
    p->run = largest > 0 ? (Py_ssize_t)(0xFFFF / largest) / 4 * 4 : per;
    const size_t item = p->small ? sizeof(uint16_t) : sizeof(int32_t);
    p->copy = PyMem_Malloc((size_t)(n_rows * p->padded + p->padded) * item + (size_t)p->padded * sizeof(int32_t));
    if (!p->copy) {
        PyErr_NoMemory();
        return -1;
    }
    return 0;
}

/* Without the GIL: row r of the copy = row r of every system's table, side by side. */
static void pack_rows(const packed *p, const int64_t *t) {
    int32_t *t32 = (int32_t *)p->copy;
    uint16_t *t16 = (uint16_t *)p->copy;
    for (Py_ssize_t r = 0; r < p->n_rows; r++) {
        for (Py_ssize_t j = 0; j < p->systems; j++)
            for (Py_ssize_t c = 0; c < p->system_width; c++) {
                const int64_t v = t[(j * p->n_rows + r) * p->system_width + c];
                if (p->small)
                    t16[r * p->padded + j * p->system_width + c] = (uint16_t)v;
                else
                    t32[r * p->padded + j * p->system_width + c] = (int32_t)v;
            }
        for (Py_ssize_t c = p->width; c < p->padded; c++) {
            if (p->small)
                t16[r * p->padded + c] = 0;
            else
                t32[r * p->padded + c] = 0;
        }
    }
}

/* Without the GIL: o[s, :] = the sums of the packed rows idx[s * per .. (s + 1) * per) for s < k. */
static void sum_resamples(const packed *p, const int64_t *idx, Py_ssize_t per, Py_ssize_t k, int64_t *o) {
    const size_t item = p->small ? sizeof(uint16_t) : sizeof(int32_t);
    int32_t *acc = (int32_t *)((char *)p->copy + (size_t)(p->n_rows * p->padded + p->padded) * item);
    for (Py_ssize_t s = 0; s < k; s++) {
        if (p->small)
            sum_rows16((const uint16_t *)p->copy, p->padded, idx + s * per, per, p->run,
                       (uint16_t *)p->copy + p->n_rows * p->padded, acc);
        else
            sum_rows((const int32_t *)p->copy, p->padded, idx + s * per, per, acc);
        for (Py_ssize_t c = 0; c < p->width; c++) o[s * p->width + c] = acc[c];
    }
}

/* The shared checks of gather_sums, resample_sums and randomization_sums: the shape, and the table
 * and out buffers (filled; released by the caller; out holds whole trials or resamples of `out_rows`
 * rows of a system's width). The number of rows, or -1 with an exception. */
static Py_ssize_t sums_buffers(PyObject *table_obj, Py_ssize_t systems, Py_ssize_t system_width, PyObject *out_obj,
                               Py_ssize_t out_rows, Py_buffer *table, Py_buffer *out) {
    if (systems < 1 || system_width < 1 || systems > PY_SSIZE_T_MAX / 4 / system_width) {
        PyErr_Format(PyExc_ValueError, "systems (%zd) and width (%zd) must be positive", systems, system_width);
        return -1;
    }
    const Py_ssize_t width = systems * system_width, out_width = out_rows * system_width;
    if (int64_buffer(table_obj, table, 0, "table") < 0 || int64_buffer(out_obj, out, 1, "out") < 0) return -1;
    const Py_ssize_t cells = int64_items(table), n_out = int64_items(out);
    if (cells % width != 0) {
        PyErr_Format(PyExc_ValueError, "table holds %zd items, not %zd tables of rows of width %zd", cells, systems,
                     system_width);
        return -1;
    }
    if (n_out % out_width != 0 || n_out == 0) {
        PyErr_Format(PyExc_ValueError, "out must hold whole rows of width %zd, it holds %zd items", out_width, n_out);
        return -1;
    }
    /* The output must not overlap the table (it is written while the table is read). */
    const char *ob = (const char *)out->buf;
    if (ob < (const char *)table->buf + table->len && (const char *)table->buf < ob + out->len) {
        PyErr_SetString(PyExc_ValueError, "out must not overlap table or indices");
        return -1;
    }
    return cells / width;
}

static PyObject *gather_sums(PyObject *self, PyObject *args) {
    (void)self;
    PyObject *table_obj, *indices_obj, *out_obj;
    Py_ssize_t systems, system_width;
    if (!PyArg_ParseTuple(args, "OnnOO:gather_sums", &table_obj, &systems, &system_width, &indices_obj, &out_obj))
        return NULL;
    Py_buffer table = {0}, indices = {0}, out = {0};
    PyObject *result = NULL;
    packed p = {0};
    const Py_ssize_t n_rows = sums_buffers(table_obj, systems, system_width, out_obj, systems, &table, &out);
    if (n_rows < 0 || int64_buffer(indices_obj, &indices, 0, "indices") < 0) goto done;
    const Py_ssize_t width = systems * system_width, n_idx = int64_items(&indices), k = int64_items(&out) / width;
    if (n_idx % k != 0) {
        PyErr_Format(PyExc_ValueError, "indices (%zd) must split into %zd resamples of equal size", n_idx, k);
        goto done;
    }
    const char *ob = (const char *)out.buf;
    if (ob < (const char *)indices.buf + indices.len && (const char *)indices.buf < ob + out.len) {
        PyErr_SetString(PyExc_ValueError, "out must not overlap table or indices");
        goto done;
    }
    const int64_t *t = (const int64_t *)table.buf, *idx = (const int64_t *)indices.buf;
    for (Py_ssize_t i = 0; i < n_idx; i++) {
        if (idx[i] < 0 || idx[i] >= n_rows) {
            PyErr_Format(PyExc_ValueError, "index %lld at position %zd is outside the table's %zd rows",
                         (long long)idx[i], i, n_rows);
            goto done;
        }
    }
    const Py_ssize_t per = n_idx / k;
    if (packed_alloc(&p, t, n_rows, systems, system_width, per) < 0) goto done;
    Py_BEGIN_ALLOW_THREADS
    pack_rows(&p, t);
    sum_resamples(&p, idx, per, k, (int64_t *)out.buf);
    Py_END_ALLOW_THREADS
    Py_INCREF(Py_None);
    result = Py_None;
done:
    PyMem_Free(p.copy);
    buffer_release(&table);
    buffer_release(&indices);
    buffer_release(&out);
    return result;
}

/* Draws per block of resample_sums: whole resamples of about this many draws (at least one), so
 * that a block's draws are still in the cache when they are summed (256 KB of int64). */
#define BLOCK_DRAWS ((Py_ssize_t)1 << 15)

static PyObject *Generator_resample_sums(Generator *self, PyObject *args) {
    PyObject *table_obj, *out_obj;
    Py_ssize_t systems, system_width;
    if (!PyArg_ParseTuple(args, "OnnO:resample_sums", &table_obj, &systems, &system_width, &out_obj)) return NULL;
    Py_buffer table = {0}, out = {0};
    PyObject *result = NULL;
    packed p = {0};
    int64_t *draws = NULL;
    const Py_ssize_t n_rows = sums_buffers(table_obj, systems, system_width, out_obj, systems, &table, &out);
    if (n_rows < 0) goto done;
    if (n_rows < 1 || (unsigned long long)n_rows > 0xFFFFFFFFull) {
        PyErr_Format(PyExc_ValueError, "the tables must have 1 to 2**32 - 1 rows, they have %zd", n_rows);
        goto done;
    }
    const int64_t *t = (const int64_t *)table.buf;
    if (packed_alloc(&p, t, n_rows, systems, system_width, n_rows) < 0) goto done;
    const Py_ssize_t width = systems * system_width, k = int64_items(&out) / width;
    const Py_ssize_t block = n_rows >= BLOCK_DRAWS ? 1 : (k < BLOCK_DRAWS / n_rows ? k : BLOCK_DRAWS / n_rows);
    draws = PyMem_Malloc((size_t)(block * n_rows) * sizeof(int64_t));
    if (!draws) {
        PyErr_NoMemory();
        goto done;
    }
    Py_BEGIN_ALLOW_THREADS
    pack_rows(&p, t);
    Py_END_ALLOW_THREADS
#if HAVE_UINT128
    const uint32_t rng = (uint32_t)(n_rows - 1);
    int64_t *o = (int64_t *)out.buf;
    for (Py_ssize_t s = 0; s < k; s += block) {
        const Py_ssize_t m = k - s < block ? k - s : block;
        /* The draws hold the GIL (or the generator's lock): its state is the object's. */
        LOCKED(self)
        if (rng == 0)
            memset(draws, 0, (size_t)(m * n_rows) * sizeof(int64_t)); /* numpy draws nothing for a range of one */
        else
            draw_bounded(&self->rng, rng, draws, m * n_rows);
        UNLOCKED()
        Py_BEGIN_ALLOW_THREADS
        sum_resamples(&p, draws, n_rows, m, o + s * width);
        Py_END_ALLOW_THREADS
    }
#else
    (void)self;
#endif
    Py_INCREF(Py_None);
    result = Py_None;
done:
    PyMem_Free(draws);
    PyMem_Free(p.copy);
    buffer_release(&table);
    buffer_release(&out);
    return result;
}

/* ---- approximate randomization ------------------------------------------------------------------ */

/* A trial's coin flips of GROUP consecutive rows (GROUP bits) pick one of the group's 2**GROUP
 * precomputed subset sums: a quarter of the additions of summing the flipped rows one by one. */
#define GROUP 4
#define SUBSETS (1 << GROUP)

/* Without the GIL: sub[(g * SUBSETS + m) * padded + c] = the sum of column c of the rows g * GROUP + b
 * (every system's, side by side) for the bits b set in m; rows past the table count as zeros. */
static void subset_sums(const int64_t *t, Py_ssize_t n_rows, Py_ssize_t systems, Py_ssize_t system_width,
                        Py_ssize_t padded, int small, void *sub) {
    uint16_t *s16 = (uint16_t *)sub;
    int32_t *s32 = (int32_t *)sub;
    const Py_ssize_t groups = (n_rows + GROUP - 1) / GROUP;
    memset(sub, 0, (size_t)(groups * SUBSETS * padded) * (small ? sizeof(uint16_t) : sizeof(int32_t)));
    for (Py_ssize_t g = 0; g < groups; g++) {
        const Py_ssize_t base = g * SUBSETS * padded;
        for (int m = 1; m < SUBSETS; m++) {
            int bit = 0;
            while (!(m & (1 << bit))) bit++;
            const Py_ssize_t r = g * GROUP + bit, from = base + (Py_ssize_t)(m & (m - 1)) * padded,
                             to = base + (Py_ssize_t)m * padded;
            /* the subset without its lowest row, plus that row (none past the table) */
            for (Py_ssize_t c = 0; c < padded; c++) {
                if (small)
                    s16[to + c] = s16[from + c];
                else
                    s32[to + c] = s32[from + c];
            }
            if (r >= n_rows) continue;
            for (Py_ssize_t j = 0; j < systems; j++) {
                const int64_t *row = t + (j * n_rows + r) * system_width;
                for (Py_ssize_t c = 0; c < system_width; c++) {
                    if (small)
                        s16[to + j * system_width + c] = (uint16_t)(s16[to + j * system_width + c] + row[c]);
                    else
                        s32[to + j * system_width + c] = (int32_t)(s32[to + j * system_width + c] + row[c]);
                }
            }
        }
    }
}

/* Trials summed together: each group's subset sums (16 rows) are read once for all of them while
 * they are in the L1 cache, instead of once per trial from the whole table (~1.4 MB for five
 * systems of 3,000 sentences): 3.0 instead of 3.4 us a trial there. */
#define TRIAL_BLOCK 16

/* Without the GIL: for t < m, acc[t * padded ..] = the sums of trial t's rows whose flip is set,
 * bits[b0 + t * n_rows + r] for row r (bits: 32-bit words, lowest bit first, readable one word past
 * the last flip). */
static void flipped_sums(const void *sub, Py_ssize_t n_rows, Py_ssize_t padded, int small, Py_ssize_t run,
                         const uint32_t *bits, Py_ssize_t b0, Py_ssize_t m, uint16_t *acc16, int32_t *acc) {
    const Py_ssize_t groups = (n_rows + GROUP - 1) / GROUP, tail = n_rows - (groups - 1) * GROUP;
    for (Py_ssize_t c = 0; c < m * padded; c++) acc[c] = 0;
    if (small) {
        for (Py_ssize_t c = 0; c < m * padded; c++) acc16[c] = 0;
    }
    Py_ssize_t pending = 0;
    for (Py_ssize_t g = 0; g < groups; g++) {
        const unsigned keep = g == groups - 1 ? (1u << tail) - 1u : SUBSETS - 1u; /* past the rows: the next trial's */
        for (Py_ssize_t t = 0; t < m; t++) {
            const Py_ssize_t pos = b0 + t * n_rows + g * GROUP, w = pos >> 5;
            const unsigned set = (unsigned)((((uint64_t)bits[w] | ((uint64_t)bits[w + 1] << 32)) >> (pos & 31)) & keep);
            if (small) {
                const uint16_t *row = (const uint16_t *)sub + ((Py_ssize_t)g * SUBSETS + set) * padded;
                uint16_t *a16 = acc16 + t * padded;
                for (Py_ssize_t c = 0; c < padded; c++) a16[c] = (uint16_t)(a16[c] + row[c]);
            } else {
                const int32_t *row = (const int32_t *)sub + ((Py_ssize_t)g * SUBSETS + set) * padded;
                int32_t *a32 = acc + t * padded;
                for (Py_ssize_t c = 0; c < padded; c++) a32[c] += row[c];
            }
        }
        if (small && ++pending == run) {
            for (Py_ssize_t c = 0; c < m * padded; c++) {
                acc[c] += acc16[c];
                acc16[c] = 0;
            }
            pending = 0;
        }
    }
    if (small) {
        for (Py_ssize_t c = 0; c < m * padded; c++) acc[c] += acc16[c];
    }
}

static PyObject *Generator_randomization_sums(Generator *self, PyObject *args) {
    PyObject *table_obj, *pairs_obj, *out_obj;
    Py_ssize_t systems, system_width;
    if (!PyArg_ParseTuple(args, "OnnOO:randomization_sums", &table_obj, &systems, &system_width, &pairs_obj, &out_obj))
        return NULL;
    Py_buffer table = {0}, pairs = {0}, out = {0};
    PyObject *result = NULL;
    void *work = NULL;
    uint32_t *bits = NULL;
    int64_t *totals = NULL;
    if (int64_buffer(pairs_obj, &pairs, 0, "pairs") < 0) goto done;
    const Py_ssize_t n_pairs = int64_items(&pairs) / 2;
    if (n_pairs < 1 || int64_items(&pairs) % 2) {
        PyErr_Format(PyExc_ValueError, "pairs must hold one or more pairs of system numbers, it holds %zd items",
                     int64_items(&pairs));
        goto done;
    }
    const Py_ssize_t n_rows = sums_buffers(table_obj, systems, system_width, out_obj, 2 * n_pairs, &table, &out);
    if (n_rows < 0) goto done;
    if (n_rows < 1) {
        PyErr_SetString(PyExc_ValueError, "the tables must have rows");
        goto done;
    }
    /* The output must not overlap the pairs either (they are read while it is written). */
    const char *ob = (const char *)out.buf;
    if (ob < (const char *)pairs.buf + pairs.len && (const char *)pairs.buf < ob + out.len) {
        PyErr_SetString(PyExc_ValueError, "out must not overlap table or pairs");
        goto done;
    }
    const int64_t *pr = (const int64_t *)pairs.buf;
    for (Py_ssize_t i = 0; i < 2 * n_pairs; i++) {
        if (pr[i] < 0 || pr[i] >= systems) {
            PyErr_Format(PyExc_ValueError, "pairs item %zd is %lld, not a system in [0, %zd)", i, (long long)pr[i],
                         systems);
            goto done;
        }
    }
    const int64_t *t = (const int64_t *)table.buf;
    const Py_ssize_t width = systems * system_width, padded = (width + 7) & ~(Py_ssize_t)7;
    const int64_t largest = checked_largest(t, n_rows * width, n_rows);
    if (largest < 0) goto done;
    /* Subset sums of GROUP items up to 16383 fit 16 bits; runs of `run` groups keep the 16-bit sums
     * below 2**16 before they are added into the 32-bit ones. */
    const int small = largest <= 0xFFFF / GROUP;
    const Py_ssize_t run = largest > 0 ? (Py_ssize_t)(0xFFFF / (GROUP * largest)) : PY_SSIZE_T_MAX;
    const Py_ssize_t groups = (n_rows + GROUP - 1) / GROUP, k = int64_items(&out) / (2 * n_pairs * system_width);
    const size_t item = small ? sizeof(uint16_t) : sizeof(int32_t);
    if ((size_t)groups > (size_t)PY_SSIZE_T_MAX / SUBSETS / item / (size_t)padded / 2) {
        PyErr_NoMemory();
        goto done;
    }
    /* One allocation: the subset sums, then the 16-bit and 32-bit accumulators of a block of trials. */
    work = PyMem_Malloc((size_t)(groups * SUBSETS + TRIAL_BLOCK) * (size_t)padded * item +
                        (size_t)(TRIAL_BLOCK * padded) * sizeof(int32_t));
    totals = PyMem_Malloc((size_t)width * sizeof(int64_t));
    if ((unsigned long long)k * (unsigned long long)n_rows / 32u + 2u > (unsigned long long)(PY_SSIZE_T_MAX / 4)) {
        PyErr_NoMemory();
        goto done;
    }
    const Py_ssize_t n_words = (k * n_rows + 31) / 32;
    bits = PyMem_Malloc((size_t)(n_words + 1) * sizeof(uint32_t));
    if (!work || !totals || !bits) {
        PyErr_NoMemory();
        goto done;
    }
    uint16_t *acc16 = (uint16_t *)((char *)work + (size_t)(groups * SUBSETS) * (size_t)padded * item);
    int32_t *acc = (int32_t *)((char *)work + (size_t)(groups * SUBSETS + TRIAL_BLOCK) * (size_t)padded * item);
#if HAVE_UINT128
    /* numpy's integers(2, size=k * rows, dtype=bool): the bits of 32-bit words, lowest first, the
     * last word's unused bits dropped. Drawn with the GIL (or the generator's lock). */
    LOCKED(self)
    for (Py_ssize_t w = 0; w < n_words; w++) bits[w] = next32(&self->rng);
    UNLOCKED()
#else
    (void)self;
    memset(bits, 0, (size_t)n_words * sizeof(uint32_t));
#endif
    bits[n_words] = 0; /* read past the last flip, never used */
    int64_t *o = (int64_t *)out.buf;
    Py_BEGIN_ALLOW_THREADS
    subset_sums(t, n_rows, systems, system_width, padded, small, work);
    for (Py_ssize_t c = 0; c < width; c++) totals[c] = 0;
    for (Py_ssize_t j = 0; j < systems; j++)
        for (Py_ssize_t r = 0; r < n_rows; r++)
            for (Py_ssize_t c = 0; c < system_width; c++) totals[j * system_width + c] += t[(j * n_rows + r) * system_width + c];
    for (Py_ssize_t s0 = 0; s0 < k; s0 += TRIAL_BLOCK) {
        const Py_ssize_t m = k - s0 < TRIAL_BLOCK ? k - s0 : TRIAL_BLOCK;
        flipped_sums(work, n_rows, padded, small, run, bits, s0 * n_rows, m, acc16, acc);
        /* a' = pos @ a + ~pos @ b = b's total + (flipped a) - (flipped b); b' = the rest. */
        for (Py_ssize_t t = 0; t < m; t++) {
            const int32_t *sums = acc + t * padded;
            for (Py_ssize_t q = 0; q < n_pairs; q++) {
                const Py_ssize_t a = (Py_ssize_t)pr[2 * q] * system_width, b = (Py_ssize_t)pr[2 * q + 1] * system_width;
                int64_t *oa = o + (((s0 + t) * n_pairs + q) * 2) * system_width, *ob = oa + system_width;
                for (Py_ssize_t c = 0; c < system_width; c++) {
                    const int64_t moved = (int64_t)sums[a + c] - (int64_t)sums[b + c];
                    oa[c] = totals[b + c] + moved;
                    ob[c] = totals[a + c] - moved;
                }
            }
        }
    }
    Py_END_ALLOW_THREADS
    Py_INCREF(Py_None);
    result = Py_None;
done:
    PyMem_Free(work);
    PyMem_Free(bits);
    PyMem_Free(totals);
    buffer_release(&table);
    buffer_release(&pairs);
    buffer_release(&out);
    return result;
}

/* numpy's pairwise summation of float64 values (its add.reduce of a contiguous array): eight running
 * sums per block of up to 128 values, blocks halved down to that size, the halves added. */
static double pairwise_sum(const double *a, Py_ssize_t n) {
    if (n < 8) {
        double res = 0.0;
        for (Py_ssize_t i = 0; i < n; i++) res += a[i];
        return res;
    }
    if (n <= 128) {
        double r[8];
        for (int j = 0; j < 8; j++) r[j] = a[j];
        Py_ssize_t i;
        for (i = 8; i < n - (n % 8); i += 8)
            for (int j = 0; j < 8; j++) r[j] += a[i + j];
        double res = ((r[0] + r[1]) + (r[2] + r[3])) + ((r[4] + r[5]) + (r[6] + r[7]));
        for (; i < n; i++) res += a[i];
        return res;
    }
    Py_ssize_t n2 = n / 2;
    n2 -= n2 % 8;
    return pairwise_sum(a, n2) + pairwise_sum(a + n2, n - n2);
}

static PyObject *py_pairwise_sum(PyObject *self, PyObject *args) {
    (void)self;
    PyObject *values_obj;
    if (!PyArg_ParseTuple(args, "O:pairwise_sum", &values_obj)) return NULL;
    Py_buffer values;
    if (float64_buffer(values_obj, &values, 0, "values") < 0) return NULL;
    const double total = pairwise_sum((const double *)values.buf, values.len / 8);
    PyBuffer_Release(&values);
    return PyFloat_FromDouble(total);
}

static PyObject *largest_item(PyObject *self, PyObject *args) {
    (void)self;
    PyObject *table_obj;
    if (!PyArg_ParseTuple(args, "O:largest_item", &table_obj)) return NULL;
    Py_buffer table;
    if (int64_buffer(table_obj, &table, 0, "table") < 0) return NULL;
    const int64_t *t = (const int64_t *)table.buf;
    const Py_ssize_t n = int64_items(&table);
    int64_t largest = 0;
    Py_ssize_t negative = -1;
    for (Py_ssize_t i = 0; i < n; i++) {
        if (t[i] < 0 && negative < 0) negative = i;
        if (t[i] > largest) largest = t[i];
    }
    PyObject *result = negative >= 0 ? NULL : PyLong_FromLongLong((long long)largest);
    if (negative >= 0)
        PyErr_Format(PyExc_ValueError, "table item %zd is negative (%lld)", negative, (long long)t[negative]);
    buffer_release(&table);
    return result;
}

static PyMethodDef methods[] = {
    {"gather_sums", gather_sums, METH_VARARGS,
     "gather_sums($module, table, systems, width, indices, out, /)\n--\n\n"
     "out[s, j, :] = sum over i of table[j, indices[s, i], :]: table is (systems, rows, width) int64 (each\n"
     "system's table in turn), indices (k, n) int64 with every index a row, out (k, systems, width) int64, all\n"
     "C-contiguous; out is overwritten. Refused (ValueError) where a sum might reach 2**31. Releases the GIL."},
    {"pairwise_sum", py_pairwise_sum, METH_VARARGS,
     "pairwise_sum($module, values, /)\n--\n\n"
     "numpy's sum of a C-contiguous float64 buffer (its pairwise summation), as a float."},
    {"largest_item", largest_item, METH_VARARGS,
     "largest_item($module, table, /)\n--\n\n"
     "The largest item of an int64 buffer (0 when empty; ValueError for a negative one): with the draws per\n"
     "resample it bounds every resampled sum."},
    {NULL, NULL, 0, NULL}};

typedef struct {
    PyObject *generator_type;
} module_state;

static module_state *state_of(PyObject *module) { return (module_state *)PyModule_GetState(module); }

static int module_exec(PyObject *m) {
    module_state *st = state_of(m);
    st->generator_type = PyType_FromModuleAndSpec(m, &Generator_spec, NULL);
    if (!st->generator_type) return -1;
    Py_INCREF(st->generator_type); /* PyModule_AddObject steals it on success (AddObjectRef is 3.10+) */
    if (PyModule_AddObject(m, "Generator", st->generator_type) < 0) {
        Py_DECREF(st->generator_type);
        return -1;
    }
    return PyModule_AddIntConstant(m, "HAVE_UINT128", HAVE_UINT128);
}

static int module_traverse(PyObject *m, visitproc visit, void *arg) {
    Py_VISIT(state_of(m)->generator_type);
    return 0;
}

static int module_clear(PyObject *m) {
    Py_CLEAR(state_of(m)->generator_type);
    return 0;
}

static void module_free(void *m) { module_clear((PyObject *)m); }

/* Py_mod_gil: a Generator's methods lock it (critical sections); gather_sums owns its buffers. */
static PyModuleDef_Slot slots[] = {KERNEL_SLOTS(module_exec)};

static struct PyModuleDef moduledef = {
    .m_base = PyModuleDef_HEAD_INIT,
    .m_name = "bleukit._resample_kernel",
    .m_doc = "numpy's default_rng draws and resampled sums without numpy (see bleukit.resampling).",
    .m_size = sizeof(module_state),
    .m_methods = methods,
    .m_slots = slots,
    .m_traverse = module_traverse,
    .m_clear = module_clear,
    .m_free = module_free,
};

PyMODINIT_FUNC PyInit__resample_kernel(void) { return PyModuleDef_Init(&moduledef); }
