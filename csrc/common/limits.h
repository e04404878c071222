/*
 * Types and size limits shared by bleukit's kernels (free of Python).
 *
 * A sentence (hypothesis and references together) holds at most MAX_SENTENCE_CHARS code points
 * and a BLEU hypothesis at most MAX_HYP_TOKENS tokens (n-gram keys pack two ids into 64 bits),
 * so no size computed from them (a few times a length, plus a few) can overflow; the entry points
 * reject longer input with OverflowError before any work. Buffers never grow past
 * MAX_BUFFER_BYTES (buffers.h), so doubling a capacity cannot overflow either. TER keeps tighter
 * limits of its own (csrc/metrics/ter/ter.h): its distances are int32.
 */
#ifndef BLEUKIT_LIMITS_H
#define BLEUKIT_LIMITS_H

#include <stddef.h>
#include <stdint.h>

/* A code point as the kernels store text. */
typedef uint32_t cp_t;

#define MAX_SENTENCE_CHARS ((int64_t)1 << 40)
#define MAX_HYP_TOKENS ((int64_t)INT32_MAX)
#define MAX_BUFFER_BYTES ((size_t)1 << 50)
/* The most threads one kernel call uses, and the most workers one pool starts: every kernel
 * checks or clamps its threads= against this one number (exported as each module's MAX_THREADS). */
#define MAX_THREADS 256

#endif
