#if canImport(Glibc)
import Glibc
#endif
import CFcft
import CPixman
import KioskCore

/// One fcft font at one pixel size. fcft caches rasterized glyphs per font, so a font object is
/// kept for the life of the process (see `FontCache`) and glyphs are rasterized once.
public final class Font {
    let raw: UnsafeMutablePointer<fcft_font>
    public let family: String
    public let pixelSize: Int
    public let scale: Int

    fileprivate init?(family: String, pixelSize: Int, scale: Int) {
        // pixelsize (not size) so that our logical points map to exact device pixels,
        // independent of the dpi fontconfig believes in.
        let pattern = "\(family):pixelsize=\(pixelSize)"
        let font: UnsafeMutablePointer<fcft_font>? = pattern.withCString { cstr in
            var names: [UnsafePointer<CChar>?] = [cstr]
            return names.withUnsafeMutableBufferPointer { fcft_from_name(1, $0.baseAddress!, nil) }
        }
        guard let font else { return nil }
        raw = font
        self.family = family
        self.pixelSize = pixelSize
        self.scale = scale
    }
    deinit { fcft_destroy(raw) }

    /// Ascent, descent and line height in logical points.
    public var ascent: Double { Double(raw.pointee.ascent) / Double(scale) }
    public var descent: Double { Double(raw.pointee.descent) / Double(scale) }
    public var lineHeight: Double { Double(raw.pointee.height) / Double(scale) }

    /// Shapes and rasterizes `text` (glyphs come from fcft's cache after the first time).
    public func layout(_ text: String) -> TextRun { TextRun(font: self, text: text) }

    /// The glyphs of `text` grapheme by grapheme from fcft's cache, each with the kerning (pixels)
    /// to add before it; `prev` is the code point drawn just before the text, if any. Not for
    /// scripts that need whole-run shaping (`TextRun.needsContextualShaping`). Returns the last
    /// code point and the kerning no glyph came after (before a grapheme fcft has no glyph for).
    func walk(_ text: some StringProtocol, after prev: UInt32?,
              _ body: (UnsafePointer<fcft_glyph>, Int32) -> Void) -> (last: UInt32?, trailingKerning: Int32) {
        let graphemeShaping = fcft_capabilities().rawValue & FCFT_CAPABILITY_GRAPHEME_SHAPING.rawValue != 0
        var prev = prev
        var pending: Int32 = 0
        func emit(_ g: UnsafePointer<fcft_glyph>) { body(g, pending); pending = 0 }
        for ch in text {
            let scalars = ch.unicodeScalars
            guard let first = scalars.first?.value else { continue }
            if let p = prev {
                var kx = 0, ky = 0
                if fcft_kerning(raw, p, first, &kx, &ky) { pending += Int32(kx) }
            }
            if scalars.index(after: scalars.startIndex) == scalars.endIndex {
                // One code point (nearly every grapheme): no array to build.
                if let g = fcft_rasterize_char_utf32(raw, first, FCFT_SUBPIXEL_NONE) { emit(g) }
                prev = first
                continue
            }
            let cps = scalars.map { $0.value }
            if !graphemeShaping {
                for cp in cps { if let g = fcft_rasterize_char_utf32(raw, cp, FCFT_SUBPIXEL_NONE) { emit(g) } }
            } else if let gr = cps.withUnsafeBufferPointer({ fcft_rasterize_grapheme_utf32(raw, $0.count, $0.baseAddress!, FCFT_SUBPIXEL_NONE) }) {
                // Combining marks, emoji sequences: shaped as one cluster (and cached).
                for i in 0..<gr.pointee.count { if let g = gr.pointee.glyphs[i] { emit(g) } }
            }
            prev = cps.last
        }
        return (prev, pending)
    }

    /// The advance of `text` in pixels when it follows the code point `prev` (its kerning
    /// included), and its last code point: what a run of the joined text would measure, without
    /// building one. Not for scripts that need whole-run shaping.
    package func advance(of text: some StringProtocol, after prev: UInt32?) -> (pixels: Int32, last: UInt32?) {
        var pen: Int32 = 0
        let end = walk(text, after: prev) { g, kerning in pen += kerning + Int32(g.pointee.advance.x) }
        return (pen + end.trailingKerning, end.last)
    }
}

extension Font {
    /// What `scalar` is drawn as: its glyph's box, advance, format and pixels (nil: no glyph at
    /// all). Two scalars drawn as the same picture compare equal.
    package func glyphPicture(_ scalar: Unicode.Scalar) -> [Int32]? {
        guard let g = fcft_rasterize_char_utf32(raw, scalar.value, FCFT_SUBPIXEL_NONE), let pix = g.pointee.pix else { return nil }
        var out = [g.pointee.x, g.pointee.y, g.pointee.width, g.pointee.height, Int32(g.pointee.advance.x),
                   Int32(bitPattern: pixman_image_get_format(pix).rawValue)]
        let stride = Int(pixman_image_get_stride(pix)), rows = Int(pixman_image_get_height(pix))
        if let data = pixman_image_get_data(pix) {
            data.withMemoryRebound(to: UInt8.self, capacity: stride * rows) { bytes in
                for i in 0..<(stride * rows) { out.append(Int32(bytes[i])) }
            }
        }
        return out
    }

    /// Whether `scalar` comes out as the box drawn for characters no installed font has (the
    /// primary font's .notdef glyph), found by drawing a private-use character next to it.
    package func drawsAsMissing(_ scalar: Unicode.Scalar) -> Bool {
        guard let picture = glyphPicture(scalar) else { return true }
        return picture == glyphPicture(Unicode.Scalar(0x10FFFD)!)
    }
}

/// Shaped text ready to draw: glyph images with pixel offsets from the pen origin.
public final class TextRun {
    struct Glyph {
        let image: OpaquePointer
        let x: Int32, y: Int32, width: Int32, height: Int32
        let isColor: Bool
    }
    let glyphs: [Glyph]
    /// Width in pixels from the origin to the pen position after the last glyph.
    package let pixelWidth: Int32
    package let ascent: Int32, descent: Int32
    public let font: Font
    public let text: String
    private var run: UnsafeMutablePointer<fcft_text_run>?

    init(font: Font, text: String) {
        self.font = font
        self.text = text
        ascent = Int32(font.raw.pointee.ascent)
        descent = Int32(font.raw.pointee.descent)
        let caps = fcft_capabilities().rawValue
        var out: [Glyph] = []
        var pen: Int32 = 0
        func add(_ g: UnsafePointer<fcft_glyph>) {
            let v = g.pointee
            if let pix = v.pix, v.width > 0, v.height > 0 {
                out.append(Glyph(image: pix, x: pen + Int32(v.x), y: Int32(v.y), width: Int32(v.width),
                                 height: Int32(v.height), isColor: pixman_image_get_format(pix) == PIXMAN_a8r8g8b8))
            }
            pen += Int32(v.advance.x)
        }
        if TextRun.needsContextualShaping(text), caps & FCFT_CAPABILITY_TEXT_RUN_SHAPING.rawValue != 0 {
            // Scripts whose letters change shape with their neighbours: HarfBuzz shapes the
            // whole run. fcft does not cache runs, so these glyphs are this run's own.
            let cps = text.unicodeScalars.map { $0.value }
            if !cps.isEmpty, let r = cps.withUnsafeBufferPointer({ fcft_rasterize_text_run_utf32(font.raw, $0.count, $0.baseAddress!, FCFT_SUBPIXEL_NONE) }) {
                run = r
                for i in 0..<r.pointee.count { if let g = r.pointee.glyphs[i] { add(g) } }
            }
        } else {
            // Everything else goes grapheme by grapheme through fcft's glyph cache, so every
            // label showing the same letters shares one copy of each glyph (measured: 1000
            // labels drew ~30 % slower from per-run glyph copies scattered in memory).
            let end = font.walk(text, after: nil) { g, kerning in
                pen += kerning
                add(g)
            }
            pen += end.trailingKerning
        }
        glyphs = out
        pixelWidth = pen
    }
    deinit { if let run { fcft_text_run_destroy(run) } }

    /// True for text in scripts whose glyphs depend on their neighbours (joining, reordering):
    /// Arabic, Syriac, Hebrew points, N'Ko, the Indic scripts, Thai, Lao, Tibetan, Myanmar,
    /// Khmer, Mongolian.
    package static func needsContextualShaping(_ text: String) -> Bool {
        text.unicodeScalars.contains { s in
            switch s.value {
            case 0x0590...0x08FF, 0x0900...0x0DFF, 0x0E00...0x0FFF, 0x1000...0x109F, 0x1780...0x18AF,
                 0xFB1D...0xFDFF, 0xFE70...0xFEFF: return true
            default: return false
            }
        }
    }

    /// Advance width in logical points.
    public var width: Double { Double(pixelWidth) / Double(font.scale) }
    /// Ink-independent box height (ascent + descent) in logical points.
    public var height: Double { font.ascent + font.descent }
}

/// Fonts by family and size, created on first use and kept: a kiosk uses a handful of sizes.
/// A family fontconfig cannot resolve at all is reported once; text then draws as nothing.
public final class FontCache {
    private var fonts: [String: Font] = [:]
    private var failed: Set<String> = []
    private let report: (String) -> Void

    /// Fonts loaded and kept.
    public var count: Int { fonts.count }

    /// `text` in `family` laid out at a pixel size on demand, each size once: for a caller that
    /// tries sizes and then uses one of the runs it measured (`Label.fitLine`, falling labels).
    public func runs(of text: String, family: String, scale: Int) -> (Int) -> TextRun? {
        var made: [Int: TextRun] = [:]
        return { [self] px in
            if let r = made[px] { return r }
            let r = font(family, points: Double(px) / Double(scale), scale: scale)?.layout(text)
            made[px] = r
            return r
        }
    }

    /// A new, empty cache that reports the same way: for fonts kept apart from these and
    /// dropped together (`FallingWordsView`'s label fonts).
    public func sibling() -> FontCache { FontCache(report: report) }

    /// Gives the C heap's free pages back to the system: fonts freed in bulk (a dozen faces
    /// and their glyph caches) leave holes in the middle of the heap that glibc keeps mapped.
    public static func returnFreedMemory() { _ = malloc_trim(0) }

    public init(report: @escaping (String) -> Void = { _ in }) {
        FontCache.backgroundLoad.wait()
        _ = FontCache.fcftReady
        self.report = report
    }

    /// fcft_init once per process; a static let is initialized exactly once, thread-safely.
    /// (A FontCache itself is not thread-safe: each thread that draws text uses its own.)
    private static let fcftReady: Bool = fcft_init(FCFT_LOG_COLORIZE_NEVER, false, FCFT_LOG_CLASS_ERROR)

    /// Starts fcft's initialisation on a thread of its own and returns at once. Most of it is
    /// fontconfig parsing its configuration (~5 ms on Debian 12: expat reading /etc/fonts), which
    /// every first text waits for; begun first thing in `main`, it overlaps with parsing the
    /// command line, reading settings and connecting. A FontCache made meanwhile waits for it
    /// to finish (the static let's one-time initialisation), never runs it twice.
    public static func initializeInBackground() {
        var thread = pthread_t()
        var attr = pthread_attr_t()
        pthread_attr_init(&attr)
        defer { pthread_attr_destroy(&attr) }
        pthread_attr_setdetachstate(&attr, Int32(PTHREAD_CREATE_DETACHED))
        backgroundLoad.close()
        let started = pthread_create(&thread, &attr, { _ in
            _ = FontCache.fcftReady
            FontCache.backgroundLoad.open()
            return nil
        }, nil)
        if started != 0 { backgroundLoad.open() }
    }

    /// Closed while fontconfig loads on its thread. A font cache made meanwhile sleeps on it
    /// rather than on the static let's one-time lock: that lock is a priority-inheriting futex,
    /// whose waiters spin in the kernel while its holder runs, and on a two-core panel the
    /// spinning took the core the first buffer was being prefaulted on.
    private static let backgroundLoad = Latch()

    /// The font for `family` at `points` logical points on a screen of `scale`.
    public func font(_ family: String = "DejaVu Sans", points: Double, scale: Int) -> Font? {
        let px = max(1, Int((points * Double(scale)).rounded()))
        let key = "\(family)@\(px)x\(scale)"
        if let f = fonts[key] { return f }
        if failed.contains(key) { return nil }
        guard let f = Font(family: family, pixelSize: px, scale: scale) else {
            failed.insert(key)
            report("font '\(family)' at \(px) px could not be loaded (fontconfig found no match); text in it is not drawn")
            return nil
        }
        fonts[key] = f
        return f
    }
}

/// A gate threads sleep at until it opens (a pthread condition variable: no spinning).
private final class Latch: @unchecked Sendable {
    private let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
    private let cond = UnsafeMutablePointer<pthread_cond_t>.allocate(capacity: 1)
    private var isOpen = true

    init() {
        pthread_mutex_init(mutex, nil)
        pthread_cond_init(cond, nil)
    }

    func close() { locked { isOpen = false } }
    func open() { locked { isOpen = true; pthread_cond_broadcast(cond) } }
    func wait() { locked { while !isOpen { pthread_cond_wait(cond, mutex) } } }

    private func locked(_ body: () -> Void) {
        pthread_mutex_lock(mutex)
        body()
        pthread_mutex_unlock(mutex)
    }
}
