#pragma once
#include <stdint.h>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

/* What KioskRender cannot say in Swift: stores that bypass the cache. */

/* One row of CoverageShader's pass into a buffer another process reads (the compositor):
 * dst[i] = table[cov[i]] for i < count. Whole 64-byte lines are written with non-temporal
 * stores. Why: an ordinary store first reads the line in (the compositor read it last, so it
 * comes from memory or the other core's cache) and leaves it dirty in this core's cache, from
 * where the compositor's next read must fetch it again. Measured live under weston, falling
 * words at the peers' label size: a word every 0.5 s, the kiosk 3.9-4.3 -> 3.1-3.3 % of a core;
 * 200 words, the kiosk 8.0 -> 7.1 % and weston 10.1 -> 9.5 %. A row's partial lines at either
 * end, and CPUs without SSE2, use ordinary stores (a partly streamed line costs a read at the
 * memory instead). Call kiosk_stream_fence() before the buffer is handed over. */
static inline void kiosk_shade_row_streaming(const uint8_t *cov, uint32_t *dst, long count, const uint32_t *table) {
    long i = 0;
#if defined(__SSE2__)
    while (i < count && ((uintptr_t)(dst + i) & 63)) { dst[i] = table[cov[i]]; i++; }
    for (; i + 16 <= count; i += 16) {
        for (long j = i; j < i + 16; j += 4) {
            __m128i v = _mm_set_epi32((int)table[cov[j + 3]], (int)table[cov[j + 2]], (int)table[cov[j + 1]], (int)table[cov[j]]);
            _mm_stream_si128((__m128i *)(dst + j), v);
        }
    }
#endif
    for (; i < count; i++) dst[i] = table[cov[i]];
}

/* Orders the streamed stores before any later store (the commit that hands the buffer over). */
static inline void kiosk_stream_fence(void) {
#if defined(__SSE2__)
    _mm_sfence();
#endif
}
