/*
 * Hashing shared by bleukit's kernels (the statistics kernel hashes tokens with it, the pairwise
 * kernel statistics rows). Header-only and free of Python, so a kernel that includes it depends
 * on nothing else of another kernel.
 */
#ifndef BLEUKIT_HASH_H
#define BLEUKIT_HASH_H

#include <stdint.h>

/* 64-bit finaliser (the MurmurHash3 fmix64 constants): every input bit affects every output bit,
 * so the low bits can index a power-of-two table directly. */
static inline uint64_t mix64(uint64_t x) {
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdULL;
    x ^= x >> 33;
    x *= 0xc4ceb9fe1a85ec53ULL;
    x ^= x >> 33;
    return x;
}

#endif
