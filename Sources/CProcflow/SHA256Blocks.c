// SHA-256's compression function: the x86-64 SHA extensions where the CPU has them (about ten
// times the portable code's speed), and portable C everywhere else. The padding, the length and
// the digest are Swift's (Cache/SHA256.swift); only whole blocks come here.
#include "SHA256Blocks.h"

#include <stdatomic.h>

static const uint32_t round_constants[64] = {
    0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
    0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
    0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
    0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
    0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
    0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
    0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
    0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
};

static inline uint32_t rotate(uint32_t value, int count) {
    return (value >> count) | (value << (32 - count));
}

static inline uint32_t load_big_endian(const uint8_t *bytes) {
    return (uint32_t)bytes[0] << 24 | (uint32_t)bytes[1] << 16 | (uint32_t)bytes[2] << 8 |
           (uint32_t)bytes[3];
}

void procflow_sha256_blocks_portable(uint32_t state[8], const uint8_t *data, size_t blocks) {
    uint32_t schedule[64];
    for (; blocks > 0; blocks--, data += 64) {
        for (int index = 0; index < 16; index++) {
            schedule[index] = load_big_endian(data + 4 * index);
        }
        for (int index = 16; index < 64; index++) {
            uint32_t w15 = schedule[index - 15], w2 = schedule[index - 2];
            uint32_t s0 = rotate(w15, 7) ^ rotate(w15, 18) ^ (w15 >> 3);
            uint32_t s1 = rotate(w2, 17) ^ rotate(w2, 19) ^ (w2 >> 10);
            schedule[index] = schedule[index - 16] + s0 + schedule[index - 7] + s1;
        }
        uint32_t a = state[0], b = state[1], c = state[2], d = state[3];
        uint32_t e = state[4], f = state[5], g = state[6], h = state[7];
        for (int index = 0; index < 64; index++) {
            uint32_t s1 = rotate(e, 6) ^ rotate(e, 11) ^ rotate(e, 25);
            uint32_t choice = (e & f) ^ (~e & g);
            uint32_t t1 = h + s1 + choice + round_constants[index] + schedule[index];
            uint32_t s0 = rotate(a, 2) ^ rotate(a, 13) ^ rotate(a, 22);
            uint32_t majority = (a & b) ^ (a & c) ^ (b & c);
            h = g;
            g = f;
            f = e;
            e = d + t1;
            d = c;
            c = b;
            b = a;
            a = t1 + s0 + majority;
        }
        state[0] += a;
        state[1] += b;
        state[2] += c;
        state[3] += d;
        state[4] += e;
        state[5] += f;
        state[6] += g;
        state[7] += h;
    }
}

#if defined(__x86_64__)
#include <cpuid.h>
#include <immintrin.h>

// The SHA extensions keep the state as two registers, ABEF and CDGH, and run two rounds per
// sha256rnds2; the message schedule is four registers of four words that sha256msg1/msg2 extend
// four words at a time. Each of the 16 steps below is four rounds.
__attribute__((target("sha,sse4.1,ssse3"))) static void
sha256_blocks_extensions(uint32_t state[8], const uint8_t *data, size_t blocks) {
    const __m128i byte_swap = _mm_set_epi64x(0x0c0d0e0f08090a0bULL, 0x0405060700010203ULL);
    __m128i dcba = _mm_loadu_si128((const __m128i *)&state[0]);
    __m128i hgfe = _mm_loadu_si128((const __m128i *)&state[4]);
    __m128i cdab = _mm_shuffle_epi32(dcba, 0xB1);
    __m128i efgh = _mm_shuffle_epi32(hgfe, 0x1B);
    __m128i abef = _mm_alignr_epi8(cdab, efgh, 8);
    __m128i cdgh = _mm_blend_epi16(efgh, cdab, 0xF0);
    for (; blocks > 0; blocks--, data += 64) {
        const __m128i abef_before = abef, cdgh_before = cdgh;
        __m128i words[4];
        for (int step = 0; step < 16; step++) {
            if (step < 4) {
                __m128i loaded = _mm_loadu_si128((const __m128i *)(data + 16 * step));
                words[step] = _mm_shuffle_epi8(loaded, byte_swap);
            }
            __m128i current = words[step % 4];
            __m128i message = _mm_add_epi32(
                current, _mm_loadu_si128((const __m128i *)&round_constants[4 * step]));
            cdgh = _mm_sha256rnds2_epu32(cdgh, abef, message);
            if (step >= 3 && step <= 14) {
                __m128i shifted = _mm_alignr_epi8(current, words[(step + 3) % 4], 4);
                __m128i next = _mm_add_epi32(words[(step + 1) % 4], shifted);
                words[(step + 1) % 4] = _mm_sha256msg2_epu32(next, current);
            }
            abef = _mm_sha256rnds2_epu32(abef, cdgh, _mm_shuffle_epi32(message, 0x0E));
            if (step >= 1 && step <= 12) {
                words[(step + 3) % 4] = _mm_sha256msg1_epu32(words[(step + 3) % 4], current);
            }
        }
        abef = _mm_add_epi32(abef, abef_before);
        cdgh = _mm_add_epi32(cdgh, cdgh_before);
    }
    __m128i feba = _mm_shuffle_epi32(abef, 0x1B);
    __m128i dchg = _mm_shuffle_epi32(cdgh, 0xB1);
    _mm_storeu_si128((__m128i *)&state[0], _mm_blend_epi16(feba, dchg, 0xF0));
    _mm_storeu_si128((__m128i *)&state[4], _mm_alignr_epi8(dchg, feba, 8));
}

static int cpu_has_extensions(void) {
    unsigned int eax, ebx, ecx, edx;
    if (!__get_cpuid(1, &eax, &ebx, &ecx, &edx)) return 0;
    const int ssse3 = (ecx >> 9) & 1, sse41 = (ecx >> 19) & 1;
    if (!__get_cpuid_count(7, 0, &eax, &ebx, &ecx, &edx)) return 0;
    const int sha = (ebx >> 29) & 1;
    return ssse3 && sse41 && sha;
}
#endif

// -1 until the CPU has been asked; then 0 or 1. Relaxed: every thread computes the same answer.
static atomic_int extensions = -1;

int procflow_sha256_uses_extensions(void) {
    int known = atomic_load_explicit(&extensions, memory_order_relaxed);
    if (known < 0) {
#if defined(__x86_64__)
        known = cpu_has_extensions();
#else
        known = 0;
#endif
        atomic_store_explicit(&extensions, known, memory_order_relaxed);
    }
    return known;
}

void procflow_sha256_blocks(uint32_t state[8], const uint8_t *data, size_t blocks) {
#if defined(__x86_64__)
    if (procflow_sha256_uses_extensions()) {
        sha256_blocks_extensions(state, data, blocks);
        return;
    }
#endif
    procflow_sha256_blocks_portable(state, data, blocks);
}
