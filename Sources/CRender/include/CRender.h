#pragma once
#include <stdint.h>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

/* What KioskRender cannot say in Swift: SSE2 arithmetic on bytes and stores that bypass the
 * cache. */

#if defined(__SSE2__)
/* pixman's MUL_UN8(c, a) in eight 16-bit lanes: t = c * a + 0x80, then ((t >> 8) + t) >> 8,
 * which is (t * 257) >> 16 exactly for t < 65536. */
static inline __m128i kiosk_mul_un8(__m128i a, __m128i c) {
    __m128i t = _mm_add_epi16(_mm_mullo_epi16(a, c), _mm_set1_epi16(0x80));
    return _mm_mulhi_epu16(t, _mm_set1_epi16(0x0101));
}

/* Sixteen finished pixels for sixteen coverage bytes: each channel of `bgra` (its blue, green,
 * red and alpha in 16-bit lanes, each the same in all eight) times the coverage, then the four
 * channel planes interleaved into B, G, R, A bytes (an a8r8g8b8 pixel in memory). */
static inline void kiosk_shade16(const uint8_t *cov, __m128i out[4], const __m128i bgra[4]) {
    __m128i zero = _mm_setzero_si128();
    __m128i a = _mm_loadu_si128((const __m128i *)cov);
    __m128i lo = _mm_unpacklo_epi8(a, zero), hi = _mm_unpackhi_epi8(a, zero);
    __m128i ch[4];
    for (int k = 0; k < 4; k++) ch[k] = _mm_packus_epi16(kiosk_mul_un8(lo, bgra[k]), kiosk_mul_un8(hi, bgra[k]));
    __m128i bg_lo = _mm_unpacklo_epi8(ch[0], ch[1]), bg_hi = _mm_unpackhi_epi8(ch[0], ch[1]);
    __m128i ra_lo = _mm_unpacklo_epi8(ch[2], ch[3]), ra_hi = _mm_unpackhi_epi8(ch[2], ch[3]);
    out[0] = _mm_unpacklo_epi16(bg_lo, ra_lo);
    out[1] = _mm_unpackhi_epi16(bg_lo, ra_lo);
    out[2] = _mm_unpacklo_epi16(bg_hi, ra_hi);
    out[3] = _mm_unpackhi_epi16(bg_hi, ra_hi);
}
#endif

/* One pixel: each 8-bit channel of `color` (an a8r8g8b8 value) times coverage `a`, as pixman's
 * MUL_UN8 rounds it. For a row's head and tail, and CPUs without SSE2. */
static inline uint32_t kiosk_shade1(uint8_t a, uint32_t color) {
    uint32_t out = 0;
    for (int shift = 0; shift < 32; shift += 8) {
        uint32_t t = (color >> shift & 0xff) * a + 0x80;
        out |= ((t >> 8) + t) >> 8 << shift;
    }
    return out;
}

/* One row of CoverageShader's pass: dst[i] = `color` (opaque, a8r8g8b8) times cov[i] for
 * i < count, sixteen pixels at a time, computed (a table of finished pixels is no faster:
 * docs/measurements.md). Every pixel is written: a test for pixels without coverage mispredicts where
 * coverage and gaps alternate (glyph edges), and reading sixteen old pixels to skip them where
 * both are background was slower live (those loads miss just as the stores did).
 *
 * `stream`: dst is a buffer another process reads next (the compositor), and whole 64-byte
 * lines are written with non-temporal stores. Why: an ordinary store first reads the line in
 * (the compositor read it last, so it comes from memory or the other core's cache) and leaves
 * it dirty in this core's cache, from where the compositor's next read must fetch it again
 * (both processes spend less: docs/measurements.md). A row's partial lines at either end use ordinary stores (a partly streamed line costs
 * a read at the memory instead). Call kiosk_stream_fence() before the buffer is handed over.
 * CPUs without SSE2 compute every pixel alone and store it plainly. */
static inline void kiosk_shade_row(const uint8_t *cov, uint32_t *dst, long count, uint32_t color, int stream) {
    long i = 0;
#if defined(__SSE2__)
    __m128i bgra[4] = { _mm_set1_epi16((short)(color & 0xff)), _mm_set1_epi16((short)(color >> 8 & 0xff)),
                        _mm_set1_epi16((short)(color >> 16 & 0xff)), _mm_set1_epi16((short)(color >> 24)) };
    __m128i px[4];
    if (stream) {
        while (i < count && ((uintptr_t)(dst + i) & 63)) { dst[i] = kiosk_shade1(cov[i], color); i++; }
        for (; i + 16 <= count; i += 16) {
            kiosk_shade16(cov + i, px, bgra);
            for (int k = 0; k < 4; k++) _mm_stream_si128((__m128i *)(dst + i) + k, px[k]);
        }
    } else {
        for (; i + 16 <= count; i += 16) {
            kiosk_shade16(cov + i, px, bgra);
            for (int k = 0; k < 4; k++) _mm_storeu_si128((__m128i *)(dst + i) + k, px[k]);
        }
    }
#else
    (void)stream;
#endif
    for (; i < count; i++) dst[i] = kiosk_shade1(cov[i], color);
}

/* `count` coverage bytes of a text mask's row from `src`, how many a span of it holds. */
typedef struct {
    uint16_t x, count;
    uint32_t offset;
} kiosk_span;

/* dst[i] = min(255, dst[i] + src[i]) for i < count, sixteen at a time; a tail shorter than
 * sixteen as one more vector over the last sixteen bytes with the lanes already done zeroed
 * in src (no byte loop, and nothing read outside either row). */
static inline void kiosk_add_bytes(uint8_t *dst, const uint8_t *src, long count) {
    long i = 0;
#if defined(__SSE2__)
    for (; i + 16 <= count; i += 16) {
        __m128i d = _mm_loadu_si128((const __m128i *)(dst + i)), s = _mm_loadu_si128((const __m128i *)(src + i));
        _mm_storeu_si128((__m128i *)(dst + i), _mm_adds_epu8(d, s));
    }
    if (i < count && count >= 16) {
        const __m128i lane = _mm_setr_epi8(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);
        __m128i fresh = _mm_cmpgt_epi8(lane, _mm_set1_epi8((char)(15 - (count - i))));
        __m128i d = _mm_loadu_si128((const __m128i *)(dst + count - 16));
        __m128i s = _mm_and_si128(_mm_loadu_si128((const __m128i *)(src + count - 16)), fresh);
        _mm_storeu_si128((__m128i *)(dst + count - 16), _mm_adds_epu8(d, s));
        return;
    }
#endif
    for (; i < count; i++) {
        unsigned v = dst[i] + src[i];
        dst[i] = (uint8_t)(v > 255 ? 255 : v);
    }
}

/* One span of a text mask added at `row` (the band row at the mask's column 0), only its columns
 * from `from` to `to` (the band's sides, in the mask's columns). */
static inline void kiosk_add_span(uint8_t *row, const kiosk_span *span, const uint8_t *pixels, long from, long to) {
    long a = span->x, b = a + span->count;
    if (a < from) a = from;
    if (b > to) b = to;
    if (a < b) kiosk_add_bytes(row + a, pixels + span->offset + (a - span->x), b - a);
}

/* `rows` rows of a text mask kept as one span a row (a turned mask: TextMask.Layout), summed
 * into the coverage band: row r's span goes to dst + r * dst_stride + mask_x + its x, only its
 * columns from `from` to `to` (the band's sides, in the mask's columns). A turned mask's rows
 * are short, and summing them with a Swift loop over general spans cost twice what the same
 * text upright costs (a row's bookkeeping as much as its pixels). */
static inline void kiosk_add_row_spans(uint8_t *dst, long dst_stride, long mask_x, const kiosk_span *spans, long rows,
                                       const uint8_t *pixels, long from, long to) {
    for (long r = 0; r < rows; r++, dst += dst_stride)
        kiosk_add_span(dst + mask_x, &spans[r], pixels, from, to);
}

/* `rows` rows of an upright text mask (TextMask.Layout) summed into the coverage band: row r's
 * spans are spans[row_starts[r] .. row_starts[r + 1]), each added at dst + r * dst_stride +
 * mask_x + its x, only its columns from `from` to `to` (the band's sides, in the mask's columns).
 * The same loop in Swift spent as much on each span's bookkeeping as on its pixels (spans are a
 * few vectors long). */
static inline void kiosk_add_spans(uint8_t *dst, long dst_stride, long mask_x, const uint32_t *row_starts,
                                   const kiosk_span *spans, long rows, const uint8_t *pixels, long from, long to) {
    for (long r = 0; r < rows; r++, dst += dst_stride) {
        for (uint32_t i = row_starts[r], end = row_starts[r + 1]; i < end; i++)
            kiosk_add_span(dst + mask_x, &spans[i], pixels, from, to);
    }
}

/* Orders the streamed stores before any later store (the commit that hands the buffer over). */
static inline void kiosk_stream_fence(void) {
#if defined(__SSE2__)
    _mm_sfence();
#endif
}
