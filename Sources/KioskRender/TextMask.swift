import CPixman
import CRender
import KioskCore

/// A run of text rasterized once into an 8-bit coverage mask, with its translucency baked in:
/// what a falling label composites every frame instead of its ~20 separate glyphs (each pixman
/// call costs about as much as the pixels of a small glyph).
///
/// Only the inked parts of each row are kept (`Span`s): three quarters of a line of text's box
/// is empty (above the lowercase letters, below the baseline, between letters and words), and
/// the peers' 200 labels hold 128 masks of ~28 kpx. Kept whole they were 3.4 MiB of the
/// screensaver's memory; as spans (short gaps kept, padding) 2.2 MiB, and the sum reads that
/// much less every frame.
///
/// On a turned canvas (a rotated output) the mask is turned once and kept so, instead of
/// upright (`layout(turned:)`), as one span a row (`Layout.oneSpanPerRow`).
///
/// Colour glyphs (emoji) cannot live in a coverage mask: such a run keeps them out of the mask
/// and `colorRun` is drawn directly on top.
public final class TextMask {
    /// `count` pixels of a row from column `x`, their coverage at `offset` in `pixels`.
    typealias Span = kiosk_span
    /// The mask's pixels in one orientation, as spans.
    struct Layout {
        /// The box in this orientation (its pixels outside the spans are 0).
        let pixelSize: PixelSize
        /// The turn from upright.
        let rotation: Rotation
        /// Row y's spans are `spans[rowStarts[y] ..< rowStarts[y + 1]]`, left to right; or,
        /// when `rowStarts` is empty, `spans[y]` alone (`oneSpanPerRow`).
        let rowStarts: [UInt32]
        let spans: [Span]
        let pixels: [UInt8]
        /// A turned mask's rows are columns of the text: short, with few gaps, and summing
        /// them span by span cost twice what the same text upright costs (a row's bookkeeping
        /// as much as its pixels). Such a mask keeps one span a row, from its first ink to its
        /// last, summed in one C loop (`kiosk_add_row_spans`).
        var oneSpanPerRow: Bool { rowStarts.isEmpty }

        /// Row y's spans.
        func spans(ofRow y: Int) -> ArraySlice<Span> {
            oneSpanPerRow ? spans[y...y] : spans[Int(rowStarts[y])..<Int(rowStarts[y + 1])]
        }

        var byteCount: Int { pixels.count + spans.count * MemoryLayout<Span>.stride + rowStarts.count * 4 }
    }
    /// The mask's box, upright (its pixels outside the spans are 0).
    public let pixelSize: PixelSize
    /// Pixel offset from the run's pen origin (baseline, left) to the mask's top-left corner.
    public let offsetX: Int32, offsetY: Int32
    /// Set when the run has colour glyphs, which are drawn from it directly.
    public let colorRun: TextRun?
    /// The pixels in the orientation they were last drawn in: upright, or turned for a rotated
    /// output (`Canvas.turned`). Only one is kept: both would cost the screensaver ~2 MiB.
    private(set) var stored: Layout

    /// Bytes held (what the mask cache counts).
    public var byteCount: Int { stored.byteCount }

    /// Zeros shorter than this between two inked stretches of a row are kept in one span: each
    /// span costs its header and a loop's start and tail in the sum.
    static let joinGap = 32
    /// Spans are padded to whole sixteen-byte vectors where the row allows: the sum's inner
    /// loop then has no byte-by-byte tail.
    static let vector = 16

    /// A mask from an 8-bit image (`PIXMAN_a8`) drawn elsewhere, its top-left at the origin
    /// plus `offsetX`, `offsetY`. Wider than 65,535 pixels (no screen is) it is cut there.
    public convenience init(image: Image, offsetX: Int32 = 0, offsetY: Int32 = 0) {
        self.init(image: image, offsetX: offsetX, offsetY: offsetY, colorRun: nil)
    }

    private init(image: Image, offsetX: Int32, offsetY: Int32, colorRun: TextRun?) {
        self.offsetX = offsetX; self.offsetY = offsetY
        self.colorRun = colorRun
        let width = min(image.pixelSize.width, Int32(UInt16.max)), height = image.pixelSize.height
        pixelSize = PixelSize(width: width, height: height)
        let data = width > 0 ? pixman_image_get_data(image.raw) : nil
        stored = TextMask.layout(of: data.map { UnsafeRawPointer($0).assumingMemoryBound(to: UInt8.self) },
                                 stride: image.stride, size: pixelSize, rotation: .upright)
    }

    /// The `size` 8-bit pixels at `base` (rows `stride` bytes apart; nil: none inked) as spans,
    /// one a row when they are turned a quarter (`Layout.oneSpanPerRow`).
    private static func layout(of base: UnsafePointer<UInt8>?, stride: Int, size: PixelSize, rotation: Rotation) -> Layout {
        let width = Int(size.width), height = Int(size.height)
        if rotation.swapsSides, let base {
            var spans: [Span] = []
            spans.reserveCapacity(height)
            var total = 0
            for y in 0..<height {
                let row = base + y * stride
                guard let first = (0..<width).first(where: { row[$0] != 0 }) else {
                    spans.append(Span(x: 0, count: 0, offset: UInt32(total)))
                    continue
                }
                let last = (first..<width).last(where: { row[$0] != 0 })!
                spans.append(Span(x: UInt16(first), count: UInt16(last + 1 - first), offset: UInt32(total)))
                total += last + 1 - first
            }
            let pixels = [UInt8](unsafeUninitializedCapacity: total) { buffer, n in
                for (y, s) in spans.enumerated() where s.count > 0 {
                    (buffer.baseAddress! + Int(s.offset)).initialize(from: base + y * stride + Int(s.x), count: Int(s.count))
                }
                n = total
            }
            return Layout(pixelSize: size, rotation: rotation, rowStarts: [], spans: spans, pixels: pixels)
        }
        var starts: [UInt32] = [0], spans: [Span] = []
        if let b = base {
            starts.reserveCapacity(height + 1)
            var total = 0
            for y in 0..<height {
                let row = b + y * stride
                var x = 0
                while x < width {
                    while x < width && row[x] == 0 { x += 1 }
                    guard x < width else { break }
                    // Ink from x: extend over gaps shorter than joinGap, then pad to vectors.
                    var end = x + 1, lastInk = x
                    while end < width && end - lastInk <= TextMask.joinGap {
                        if row[end] != 0 { lastInk = end }
                        end += 1
                    }
                    let count = min(width - x, (lastInk + 1 - x + TextMask.vector - 1) / TextMask.vector * TextMask.vector)
                    spans.append(Span(x: UInt16(x), count: UInt16(count), offset: UInt32(total)))
                    total += count
                    x += count
                }
                starts.append(UInt32(spans.count))
            }
            spans = TextMask.exact(spans)
        } else {
            starts += Array(repeating: 0, count: height)
        }
        // Allocated at their final size: thousands of masks in arrays grown by doubling would
        // hold a third more than they use.
        let total = spans.last.map { Int($0.offset) + Int($0.count) } ?? 0
        let pixels = [UInt8](unsafeUninitializedCapacity: total) { buffer, n in
            guard let base else { n = 0; return }
            var rowStart = 0
            for y in 0..<height {
                for s in spans[Int(starts[y])..<Int(starts[y + 1])] {
                    (buffer.baseAddress! + Int(s.offset)).initialize(from: base + rowStart + Int(s.x), count: Int(s.count))
                }
                rowStart += stride
            }
            n = total
        }
        return Layout(pixelSize: size, rotation: rotation, rowStarts: starts, spans: spans, pixels: pixels)
    }

    /// The pixels turned `k` from upright, made from the kept ones (and kept instead of them)
    /// when they are in another orientation.
    func layout(turned k: Rotation) -> Layout {
        if stored.rotation == k { return stored }
        let from = stored
        let w = Int(pixelSize.width), h = Int(pixelSize.height)
        // Upright pixels, whole, from the kept ones in whatever orientation they are in.
        var upright = [UInt8](repeating: 0, count: w * h)
        let (fw, fh) = from.rotation.swapsSides ? (h, w) : (w, h)
        from.pixels.withUnsafeBufferPointer { px in
            for fy in 0..<fh {
                for s in from.spans(ofRow: fy) {
                    for i in 0..<Int(s.count) {
                        let (x, y) = from.rotation.inverse.turn(Int(s.x) + i, fy, width: fw, height: fh)
                        upright[y * w + x] = px[Int(s.offset) + i]
                    }
                }
            }
        }
        let size = k.swapsSides ? PixelSize(width: pixelSize.height, height: pixelSize.width) : pixelSize
        var turned = [UInt8](repeating: 0, count: Int(size.width) * Int(size.height))
        for y in 0..<h {
            for x in 0..<w where upright[y * w + x] != 0 {
                let (tx, ty) = k.turn(x, y, width: w, height: h)
                turned[ty * Int(size.width) + tx] = upright[y * w + x]
            }
        }
        stored = turned.withUnsafeBufferPointer {
            TextMask.layout(of: $0.baseAddress, stride: Int(size.width), size: size, rotation: k)
        }
        return stored
    }

    /// `array` in storage of exactly its size.
    private static func exact<T>(_ array: [T]) -> [T] {
        [T](unsafeUninitializedCapacity: array.count) { buffer, n in
            _ = buffer.initialize(from: array)
            n = array.count
        }
    }

    /// Rasterizes `run`'s monochrome glyphs at `alpha` (0...1); nil for a run with no ink.
    public convenience init?(run: TextRun, alpha: Double) {
        let mono = run.glyphs.filter { !$0.isColor }
        guard let first = mono.first else { return nil }
        var x1 = first.x, y1 = -first.y, x2 = first.x + first.width, y2 = -first.y + first.height
        for g in mono {
            x1 = min(x1, g.x); y1 = min(y1, -g.y)
            x2 = max(x2, g.x + g.width); y2 = max(y2, -g.y + g.height)
        }
        // Drawn whole first, then kept as spans.
        guard let img = Image(alphaMaskOf: PixelSize(width: x2 - x1, height: y2 - y1)) else { return nil }
        var c = Color(red: 0, green: 0, blue: 0, alpha: max(0, min(1, alpha))).pixman
        guard let src = pixman_image_create_solid_fill(&c) else { return nil }
        defer { pixman_image_unref(src) }
        for g in mono {
            // OVER, not ADD: neighbouring glyphs that touch (kerning) must not darken.
            pixman_image_composite32(PIXMAN_OP_OVER, src, g.image, img.raw, 0, 0, 0, 0,
                                     g.x - x1, -g.y - y1, g.width, g.height)
        }
        self.init(image: img, offsetX: x1, offsetY: y1, colorRun: mono.count == run.glyphs.count ? nil : run)
    }

    /// The mask's pixels when the run's origin is at pixel (x, y).
    public func rect(originX x: Int32, y: Int32) -> PixelRect {
        PixelRect(x: x + offsetX, y: y + offsetY, width: pixelSize.width, height: pixelSize.height)
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
    /// Bytes of unreferenced masks kept for reuse before a sweep.
    public var budget = 1 << 20

    public init() {}

    public var count: Int { masks.count }
    /// Bytes of mask pixels held (summed when asked: a mask's changes when it is turned).
    public var byteCount: Int { masks.values.reduce(0) { $0 + $1.byteCount } }

    /// The mask of `run` at `alpha`, rasterized on first use.
    public func mask(for run: TextRun, alpha: Double) -> TextMask? {
        let key = Key(family: run.font.family, pixelSize: run.font.pixelSize, alpha: TextMaskCache.level(alpha), text: run.text)
        if let m = masks[key] { return m }
        guard let m = TextMask(run: run, alpha: alpha) else { return nil }
        if byteCount > keptAfterSweep + budget { sweep() }
        masks[key] = m
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
            masks.removeValue(forKey: key)
        }
        keptAfterSweep = byteCount
    }
    /// Bytes of the masks in use at the last sweep: unheld ones are kept up to `budget` beyond.
    private var keptAfterSweep = 0
}
