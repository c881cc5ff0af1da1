#pragma once
#include <stddef.h>
#include <stdint.h>

/// What a JPEG's header says.
typedef struct {
    int width, height;
    /// EXIF orientation, 1 to 8 (1: stored upright; 6: turn a quarter clockwise to show it).
    int orientation;
} kiosk_jpeg_header;

/// Reads the header of the `size` bytes at `data`. 0 on success, else -1 with `error` filled
/// (libjpeg's message). Never exits or traps, whatever the bytes.
int kiosk_jpeg_read_header(const uint8_t *data, size_t size, kiosk_jpeg_header *header, char *error, size_t error_size);

/// The size of the picture decoded at 1/`denominator` (libjpeg's rounding up).
void kiosk_jpeg_scaled_size(int width, int height, int denominator, int *scaled_width, int *scaled_height);

/// Decodes the JPEG at 1/`denominator` of its size (1, 2, 4 or 8: libjpeg-turbo's scaled IDCT,
/// never the whole picture at full size) into `pixels`, rows of `stride` bytes, four bytes a
/// pixel in memory order B, G, R, X (pixman's x8r8g8b8), `width`×`height` as
/// `kiosk_jpeg_scaled_size` gives. Refuses a file that ends early, has more than `max_scans`
/// scans (a progressive bomb) or needs more than `max_memory` bytes of libjpeg's own memory.
/// 0 on success, else -1 with `error` filled.
int kiosk_jpeg_decode(const uint8_t *data, size_t size, int denominator, uint8_t *pixels, int stride, int width, int height,
                      int max_scans, size_t max_memory, char *error, size_t error_size);

/// Encodes `width`×`height` pixels (rows of `stride` bytes, B, G, R, X in memory; or C, M, Y, K
/// when `cmyk`) as a JPEG of `quality` (1–100), progressive or not, with an EXIF orientation
/// tag when `orientation` is 2 to 8. The bytes are malloc'd: `*out`, `*out_size`; free() them.
/// For the tests, the benchmark's pictures and the package's example. 0 on success.
int kiosk_jpeg_encode(const uint8_t *pixels, int stride, int width, int height, int cmyk, int quality, int progressive,
                      int orientation, uint8_t **out, size_t *out_size, char *error, size_t error_size);
