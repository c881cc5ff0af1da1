import CPixman
import KioskCore

/// Shapes rasterized once and reused every frame. pixman's polygon rasterizer costs ~20 µs for a
/// small disc; blitting a cached a8 mask through a solid colour costs well under 1 µs. The owner
/// (a Stage, one per thread) hands it to each frame's Canvas.
public final class RenderCache {
    private var discs: [Int: Image] = [:]
    public init() {}

    /// Masks of text drawn over and over (falling labels).
    public let textMasks = TextMaskCache()

    private var coverageBuffer: Image?
    /// An 8-bit scratch band of `width` × `rows` for `Canvas.drawCoverage` (kept between frames).
    func coverage(width: Int32, rows: Int32) -> Image? {
        let size = PixelSize(width: width, height: rows)
        if coverageBuffer?.pixelSize != size { coverageBuffer = Image(alphaMaskOf: size) }
        return coverageBuffer
    }

    /// An a8 coverage mask of a disc of `radius` device pixels (quantized to 1/4 px), centred
    /// in a square of side `2 * ceil(radius) + 2`.
    func disc(radiusPixels r: Double) -> Image? {
        let key = Int((r * 4).rounded())
        if let d = discs[key] { return d }
        let q = Double(key) / 4
        let side = Int32(2 * q.rounded(.up) + 2)
        guard q > 0, let img = Image(alphaMaskOf: PixelSize(width: side, height: side)) else { return nil }
        let c = Canvas(image: img)
        // Rasterize with the uncached path (no cache on this canvas).
        c.fillCircle(center: Point(x: Double(side) / 2, y: Double(side) / 2), radius: q, color: .white)
        if discs.count > 256 { discs.removeAll() } // bounded: sizes come from layout, not input
        discs[key] = img
        return img
    }
}

extension Image {
    /// An 8-bit coverage mask (PIXMAN_a8), transparent.
    convenience init?(alphaMaskOf size: PixelSize) {
        guard size.width > 0, size.height > 0, size.width <= DisplayInfo.maxPixelSide, size.height <= DisplayInfo.maxPixelSide,
              let raw = Image.createBits(PIXMAN_a8, size, bytesPerPixel: 1) else { return nil }
        self.init(adopting: raw)
    }
}
