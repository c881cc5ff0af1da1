import CPixman
import KioskCore

/// A run of text rasterized once into an 8-bit coverage mask, with its translucency baked in:
/// what a falling label composites every frame instead of its ~20 separate glyphs (each pixman
/// call costs about as much as the pixels of a small glyph).
///
/// Colour glyphs (emoji) cannot live in a coverage mask: such a run keeps them out of the mask
/// and `colorRun` is drawn directly on top.
public final class TextMask {
    public let image: Image
    /// Pixel offset from the run's pen origin (baseline, left) to the mask's top-left corner.
    public let offsetX: Int32, offsetY: Int32
    /// Set when the run has colour glyphs, which are drawn from it directly.
    public let colorRun: TextRun?
    public var pixelSize: PixelSize { image.pixelSize }

    /// A mask from an 8-bit image (`PIXMAN_a8`) drawn elsewhere, its top-left at the origin
    /// plus `offsetX`, `offsetY`.
    public init(image: Image, offsetX: Int32 = 0, offsetY: Int32 = 0) {
        self.image = image
        self.offsetX = offsetX; self.offsetY = offsetY
        colorRun = nil
    }

    /// Rasterizes `run`'s monochrome glyphs at `alpha` (0...1); nil for a run with no ink.
    public init?(run: TextRun, alpha: Double) {
        let mono = run.glyphs.filter { !$0.isColor }
        colorRun = mono.count == run.glyphs.count ? nil : run
        guard let first = mono.first else { return nil }
        var x1 = first.x, y1 = -first.y, x2 = first.x + first.width, y2 = -first.y + first.height
        for g in mono {
            x1 = min(x1, g.x); y1 = min(y1, -g.y)
            x2 = max(x2, g.x + g.width); y2 = max(y2, -g.y + g.height)
        }
        guard let img = Image(alphaMaskOf: PixelSize(width: x2 - x1, height: y2 - y1)) else { return nil }
        image = img
        offsetX = x1; offsetY = y1
        var c = Color(red: 0, green: 0, blue: 0, alpha: max(0, min(1, alpha))).pixman
        guard let src = pixman_image_create_solid_fill(&c) else { return nil }
        defer { pixman_image_unref(src) }
        for g in mono {
            // OVER, not ADD: neighbouring glyphs that touch (kerning) must not darken.
            pixman_image_composite32(PIXMAN_OP_OVER, src, g.image, img.raw, 0, 0, 0, 0,
                                     g.x - x1, -g.y - y1, g.width, g.height)
        }
    }

    /// The mask's pixels when the run's origin is at pixel (x, y).
    public func rect(originX x: Int32, y: Int32) -> PixelRect {
        PixelRect(x: x + offsetX, y: y + offsetY, width: image.pixelSize.width, height: image.pixelSize.height)
    }
}

/// Text masks shared by every label that shows the same text in the same font at the same
/// alpha (a screensaver of one phrase needs only one mask per font size). Masks nobody else
/// holds any more are dropped once the cache outgrows its budget.
public final class TextMaskCache {
    private struct Key: Hashable {
        let family: String
        let pixelSize: Int
        let alpha: UInt8
        let text: String
    }
    private var masks: [Key: TextMask] = [:]
    private var bytes = 0
    /// Bytes of unreferenced masks kept for reuse before a sweep.
    public var budget = 1 << 20

    public init() {}

    public var count: Int { masks.count }
    /// Bytes of mask pixels held.
    public var byteCount: Int { bytes }

    /// The mask of `run` at `alpha`, rasterized on first use.
    public func mask(for run: TextRun, alpha: Double) -> TextMask? {
        let key = Key(family: run.font.family, pixelSize: run.font.pixelSize, alpha: TextMaskCache.level(alpha), text: run.text)
        if let m = masks[key] { return m }
        guard let m = TextMask(run: run, alpha: alpha) else { return nil }
        if bytes > keptAfterSweep + budget { sweep() }
        masks[key] = m
        bytes += m.pixelSize.area
        return m
    }

    /// The mask of `text` in `family` at `pixelSize` and `alpha` if one was made and is kept:
    /// no font needed.
    public func cachedMask(text: String, family: String, pixelSize: Int, alpha: Double) -> TextMask? {
        masks[Key(family: family, pixelSize: pixelSize, alpha: TextMaskCache.level(alpha), text: text)]
    }

    private static func level(_ alpha: Double) -> UInt8 { UInt8((max(0, min(1, alpha)) * 255).rounded()) }

    /// Drops the masks only the cache still holds.
    public func sweep() {
        for key in Array(masks.keys) where isKnownUniquelyReferenced(&masks[key]!) {
            if let m = masks.removeValue(forKey: key) { bytes -= m.pixelSize.area }
        }
        keptAfterSweep = bytes
    }
    /// Bytes of the masks in use at the last sweep: unheld ones are kept up to `budget` beyond.
    private var keptAfterSweep = 0
}
