/*
 * Hashing shared by bleukit's kernels: BLEU hashes tokens and statistics rows with it, chrF and
 * TER their words. Header-only and free of Python.
 */
#ifndef BLEUKIT_HASH_H
#define BLEUKIT_HASH_H

#include <stddef.h>
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

/* A word's or token's hash: FNV-1a over its code points (h = (h ^ c) * HASH_PRIME from HASH_SEED,
 * accumulated while splitting), then finish_hash with its length. Never EMPTY_KEY, the marker of a
 * free slot in the kernels' open-addressing tables. */
#define EMPTY_KEY UINT64_MAX
#define HASH_SEED 0xcbf29ce484222325ULL
#define HASH_PRIME 0x100000001b3ULL

static inline uint64_t finish_hash(uint64_t h, size_t len) {
    h = mix64(h ^ ((uint64_t)len << 40));
    return h == EMPTY_KEY ? h - 1 : h;
}

#endif
