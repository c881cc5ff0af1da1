import CPixman
import CRender
import KioskCore

/// Colour × coverage for one opaque colour on black (`Canvas.drawCoverage`'s last pass), one
/// row at a time in `kiosk_shade_row` (CRender): sixteen pixels at a time with SSE2 arithmetic.
///
/// Why not pixman (SRC, solid × a8 → 32 bpp): the pass is bound by its stores into the shared
/// buffer, and pixman can neither store past the cache into a buffer the compositor reads nor
/// be told the colour is one: a table lookup per pixel beat it live under weston, and the
/// computed rows match the lookups. Pixel for pixel the same result: each channel is pixman's
/// `MUL_UN8(channel, coverage)`, alpha included (the unused byte of an XRGB pixel holds the
/// coverage, as before).
struct CoverageShader {
    /// The colour as an a8r8g8b8 pixel, 8 bits a channel.
    private let color: UInt32
    private let data: UnsafeMutablePointer<UInt32>
    /// The target's row length in pixels and its size.
    private let stride: Int
    private let size: PixelSize
    /// The target is read by another process next (a wl_shm buffer), not by this one.
    private let streams: Bool

    /// nil unless `target` is a 32-bit ARGB/XRGB image with pixels in memory (anything else
    /// goes through pixman).
    init?(color: pixman_color_t, target: OpaquePointer, streams: Bool) {
        let format = pixman_image_get_format(target)
        guard format == PIXMAN_x8r8g8b8 || format == PIXMAN_a8r8g8b8, let data = pixman_image_get_data(target) else { return nil }
        self.data = data
        self.streams = streams
        stride = Int(pixman_image_get_stride(target)) / 4
        size = PixelSize(width: pixman_image_get_width(target), height: pixman_image_get_height(target))
        // pixman's solid colour in 8 bits per channel (the high byte of each 16-bit one).
        self.color = UInt32(color.alpha >> 8) << 24 | UInt32(color.red >> 8) << 16 | UInt32(color.green >> 8) << 8 | UInt32(color.blue >> 8)
    }

    /// Shades the parts of `clipRects` (pixels, within the target) that lie in the rows `band`
    /// holds now (its data as wide as the target).
    func shade(_ band: CoverageBand, clipRects: [PixelRect]) {
        let width = min(band.width, size.width)
        let stream: Int32 = streams ? 1 : 0
        for rect in clipRects {
            let y1 = max(rect.y, band.top), y2 = min(rect.y + rect.height, band.top + band.rows)
            let x1 = max(rect.x, 0), x2 = min(rect.x + rect.width, width)
            guard y1 < y2, x1 < x2 else { continue }
            for y in Int(y1)..<Int(y2) {
                let src = band.data + (y - Int(band.top)) * band.stride + Int(x1)
                kiosk_shade_row(src.assumingMemoryBound(to: UInt8.self), data + y * stride + Int(x1), Int(x2 - x1), color, stream)
            }
        }
        if streams { kiosk_stream_fence() }
    }
}

/// Sums masks into the coverage band (`Canvas.drawCoverage`'s first pass): a saturating add
/// (SSE2's `paddusb`, sixteen bytes at a time) over each mask's inked spans only (`TextMask`),
/// in C: `kiosk_add_spans` upright, `kiosk_add_row_spans` for a turned mask's rows (one span
/// each).
///
/// Why not pixman's ADD: the same loop inside, but each call costs about as much as a small
/// label's pixels (~300 calls a frame for the peers' 200 labels). Empty stretches are skipped
/// by the spans, worked out once per mask: a test for them in the loop was slower (it keeps
/// the compiler from vectorizing).
struct CoverageBand {
    let data: UnsafeMutableRawPointer
    let stride: Int
    let width: Int32
    /// The target rows the band holds now.
    var top: Int32 = 0, rows: Int32 = 0

    init?(_ band: Image) {
        guard let d = pixman_image_get_data(band.raw) else { return nil }
        data = UnsafeMutableRawPointer(d)
        stride = band.stride
        width = band.pixelSize.width
    }

    /// Adds `mask` (in the target's orientation) with its top-left corner at target pixel
    /// (x, y), clipped to the band.
    func add(_ mask: TextMask.Layout, x: Int32, y: Int32) {
        let y1 = max(y, top), y2 = min(y + mask.pixelSize.height, top + rows)
        let x1 = max(x, 0), x2 = min(x + mask.pixelSize.width, width)
        // No ink (a blank label): nothing to add, and no pixels to point at.
        guard y1 < y2, x1 < x2, !mask.pixels.isEmpty else { return }
        if mask.oneSpanPerRow {
            mask.spans.withUnsafeBufferPointer { spans in
                mask.pixels.withUnsafeBufferPointer { pixels in
                    kiosk_add_row_spans((data + Int(y1 - top) * stride).assumingMemoryBound(to: UInt8.self), stride, Int(x),
                                        spans.baseAddress! + Int(y1 - y), Int(y2 - y1), pixels.baseAddress!, Int(x1 - x), Int(x2 - x))
                }
            }
            return
        }
        mask.rowStarts.withUnsafeBufferPointer { starts in
            mask.spans.withUnsafeBufferPointer { spans in
                mask.pixels.withUnsafeBufferPointer { pixels in
                    kiosk_add_spans((data + Int(y1 - top) * stride).assumingMemoryBound(to: UInt8.self), stride, Int(x),
                                    starts.baseAddress! + Int(y1 - y), spans.baseAddress!, Int(y2 - y1), pixels.baseAddress!,
                                    Int(x1 - x), Int(x2 - x))
                }
            }
        }
    }
}
