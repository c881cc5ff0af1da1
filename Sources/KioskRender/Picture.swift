#if canImport(Glibc)
import Glibc
#endif
import CJPEG
import CPixman
import KioskCore

/// A picture an operator gave (an exhibit's photograph or drawing): JPEG or PNG, known by its
/// first bytes, decoded once at the size it is shown at. A JPEG is decoded scaled by
/// libjpeg-turbo (never whole at full size when it is shown smaller) and turned upright as its
/// EXIF orientation says; a PNG is decoded whole within a smaller limit, then reduced. Whatever
/// the file holds, reading it never traps: it is an image or a `Failure` naming the file.
public enum Picture {
    /// Inside the box whole (a page's picture), or filling it, its overflow cut off evenly (a tile's).
    public enum Fit: Sendable { case inside, filling }

    public struct Failure: Error, CustomStringConvertible, Equatable {
        public let path: String
        public let reason: String
        public var description: String { "\(path): \(reason)" }
    }

    /// How much a picture may ask for, checked before anything is decoded.
    public struct Limits: Sendable {
        public var maxFileBytes = 48 << 20
        /// A JPEG is decoded scaled, in bands: 100 Mpx (12 000 × 8 000) stays cheap.
        public var maxJPEGPixels: UInt64 = 100_000_000
        /// A PNG is decoded whole: 24 Mpx is 96 MiB for a moment.
        public var maxPNGPixels: UInt64 = 24 << 20
        public var maxSide: UInt32 = 30_000
        /// A progressive JPEG with thousands of scans takes minutes to decode.
        public var maxScans: Int32 = 300
        /// libjpeg's own working memory (a progressive JPEG keeps every coefficient).
        public var maxDecoderMemory = 192 << 20
        public init() {}
        public static let standard = Limits()
    }

    /// What the file's first bytes say it is.
    enum Kind { case jpeg, png }
    static func kind(of bytes: [UInt8]) -> Kind? {
        if bytes.starts(with: [0xFF, 0xD8, 0xFF]) { return .jpeg }
        if bytes.starts(with: [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) { return .png }
        return nil
    }

    /// The picture at `path` decoded for a box of `box` pixels, as `fit` says, at `scale`
    /// pixels a point. Only a regular file is read (a FIFO would block), at most the limit.
    public static func read(path: String, box: PixelSize, fit: Fit, scale: Int = 1, limits: Limits = .standard) throws(Failure) -> Image {
        switch readRegularFile(path, limit: limits.maxFileBytes) {
        case .success(let bytes): return try decode(bytes, path: path, box: box, fit: fit, scale: scale, limits: limits)
        case .failure(let why): throw Failure(path: path, reason: why.description)
        }
    }

    /// `bytes` (named `path` in failures) decoded for `box`.
    public static func decode(_ bytes: [UInt8], path: String, box: PixelSize, fit: Fit, scale: Int = 1,
                              limits: Limits = .standard) throws(Failure) -> Image {
        guard box.width > 0, box.height > 0 else { throw Failure(path: path, reason: "nothing to show it in (\(box))") }
        switch kind(of: bytes) {
        case .jpeg?: return try jpeg(bytes, path: path, box: box, fit: fit, scale: scale, limits: limits)
        case .png?: return try png(bytes, path: path, box: box, fit: fit, scale: scale, limits: limits)
        case nil: throw Failure(path: path, reason: bytes.isEmpty ? "the file is empty" : "not a JPEG or PNG picture")
        }
    }

    // MARK: JPEG

    private static func jpeg(_ bytes: [UInt8], path: String, box: PixelSize, fit: Fit, scale: Int, limits: Limits) throws(Failure) -> Image {
        var header = kiosk_jpeg_header()
        var error = [CChar](repeating: 0, count: 256)
        guard kiosk_jpeg_read_header(bytes, bytes.count, &header, &error, error.count) == 0 else {
            throw Failure(path: path, reason: "not a readable JPEG (\(message(error)))")
        }
        let w = UInt64(header.width), h = UInt64(header.height)
        guard w > 0, h > 0, w <= UInt64(limits.maxSide), h <= UInt64(limits.maxSide), w * h <= limits.maxJPEGPixels else {
            throw Failure(path: path, reason: "\(w)×\(h) pixels is larger than \(limits.maxSide) a side or \(limits.maxJPEGPixels / 1_000_000) Mpx")
        }
        let orientation = Orientation(exif: Int(header.orientation))
        let shown = orientation.shownSize(width: Int(w), height: Int(h))
        let k = factor(source: shown, box: box, fit: fit)
        // The largest of libjpeg's reductions that leaves nothing to enlarge.
        let denominator = [8, 4, 2, 1].first { k * Double($0) <= 1 } ?? 1
        var dw: Int32 = 0, dh: Int32 = 0
        kiosk_jpeg_scaled_size(header.width, header.height, Int32(denominator), &dw, &dh)
        guard let decoded = Image(pixelSize: PixelSize(width: dw, height: dh), hasAlpha: false) else {
            throw Failure(path: path, reason: "no memory for \(dw)×\(dh) pixels")
        }
        let pixels = UnsafeMutableRawPointer(pixman_image_get_data(decoded.raw)!).assumingMemoryBound(to: UInt8.self)
        guard kiosk_jpeg_decode(bytes, bytes.count, Int32(denominator), pixels, Int32(decoded.stride), dw, dh,
                                limits.maxScans, limits.maxDecoderMemory, &error, error.count) == 0 else {
            throw Failure(path: path, reason: "cannot be decoded (\(message(error)))")
        }
        return try finish(decoded, orientation: orientation, path: path, box: box, fit: fit, scale: scale)
    }

    private static func message(_ error: [CChar]) -> String {
        let text = String(decoding: error.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        return text.isEmpty ? "libjpeg gave no reason" : text
    }

    // MARK: PNG

    private static func png(_ bytes: [UInt8], path: String, box: PixelSize, fit: Fit, scale: Int, limits: Limits) throws(Failure) -> Image {
        let side = min(limits.maxSide, UInt32(DisplayInfo.maxPixelSide))
        let pngLimits = PNG.Limits(maxFileBytes: limits.maxFileBytes, maxSide: side, maxPixels: limits.maxPNGPixels)
        let decoded: Image
        do { decoded = try PNG.decode(bytes, path: path, limits: pngLimits) } catch {
            throw Failure(path: path, reason: (error as? PNG.Failure)?.reason ?? "\(error)")
        }
        return try finish(decoded, orientation: .upright, path: path, box: box, fit: fit, scale: scale)
    }

    // MARK: To the box

    /// How much the picture, `source` pixels as shown, is scaled to go in `box`.
    static func factor(source: PixelSize, box: PixelSize, fit: Fit) -> Double {
        let kx = Double(box.width) / Double(source.width), ky = Double(box.height) / Double(source.height)
        return fit == .inside ? min(kx, ky) : max(kx, ky)
    }

    /// The size the picture takes: the box when filling it; inside it, the picture's shape.
    static func outputSize(source: PixelSize, box: PixelSize, fit: Fit) -> PixelSize {
        guard fit == .inside else { return box }
        let k = factor(source: source, box: box, fit: fit)
        return PixelSize(width: max(1, min(box.width, Int32((Double(source.width) * k).rounded()))),
                         height: max(1, min(box.height, Int32((Double(source.height) * k).rounded()))))
    }

    /// `decoded` (stored as the file stores it) turned upright, reduced or enlarged into its
    /// place in the box, and cut to it.
    private static func finish(_ decoded: Image, orientation: Orientation, path: String, box: PixelSize, fit: Fit, scale: Int) throws(Failure) -> Image {
        let stored = decoded.pixelSize
        let shown = orientation.shownSize(width: Int(stored.width), height: Int(stored.height))
        let k = factor(source: shown, box: box, fit: fit)
        // Bilinear filtering reads four pixels: more than halving in one step would skip some.
        let step = max(1, Int((1 / k).rounded(.down)))
        let source = step >= 2 ? reduced(decoded, by: step) : decoded
        let out = outputSize(source: shown, box: box, fit: fit)
        guard let image = Image(pixelSize: out, hasAlpha: decoded.hasAlpha, scale: scale) else {
            throw Failure(path: path, reason: "no memory for \(out.width)×\(out.height) pixels")
        }
        // In pixels: the source's pixels upright, scaled, centred on the output (filling: the
        // overflow falls outside it evenly).
        let s = Double(source.scale)
        let upright = orientation.transform(width: Double(source.pixelSize.width), height: Double(source.pixelSize.height))
        let kk = k * Double(step)
        let dx = (Double(out.width) - Double(shown.width) * k) / 2, dy = (Double(out.height) - Double(shown.height) * k) / 2
        let toPixels = AffineTransform(scaleX: s, y: s).concatenating(upright).concatenating(AffineTransform(scaleX: kk, y: kk))
            .concatenating(AffineTransform(translationX: dx, y: dy))
        let canvas = Canvas(image: image)
        let ps = Double(scale)
        canvas.draw(source, transform: toPixels.concatenating(AffineTransform(scaleX: 1 / ps, y: 1 / ps)),
                    within: Rect(x: 0, y: 0, width: Double(out.width) / ps, height: Double(out.height) / ps))
        return image
    }

    /// `image` made `by` times smaller, each pixel the mean of the pixels it stands for.
    static func reduced(_ image: Image, by f: Int) -> Image {
        let w = Int(image.pixelSize.width), h = Int(image.pixelSize.height)
        let ow = (w + f - 1) / f, oh = (h + f - 1) / f
        guard let out = Image(pixelSize: PixelSize(width: Int32(ow), height: Int32(oh)), hasAlpha: image.hasAlpha) else { return image }
        var sums = [UInt32](repeating: 0, count: ow * 4), counts = [UInt32](repeating: 0, count: ow)
        let src = UnsafeMutableRawPointer(pixman_image_get_data(image.raw)!), dst = UnsafeMutableRawPointer(pixman_image_get_data(out.raw)!)
        for oy in 0..<oh {
            for i in 0..<sums.count { sums[i] = 0 }
            for i in 0..<counts.count { counts[i] = 0 }
            for y in (oy * f)..<min(h, oy * f + f) {
                let row = src.advanced(by: y * image.stride).assumingMemoryBound(to: UInt32.self)
                for x in 0..<w {
                    let v = row[x], o = x / f
                    sums[4 * o] &+= v >> 24; sums[4 * o + 1] &+= (v >> 16) & 0xff
                    sums[4 * o + 2] &+= (v >> 8) & 0xff; sums[4 * o + 3] &+= v & 0xff
                    counts[o] &+= 1
                }
            }
            let row = dst.advanced(by: oy * out.stride).assumingMemoryBound(to: UInt32.self)
            for o in 0..<ow {
                let n = max(1, counts[o]), half = n / 2
                let mean = { (i: Int) in (sums[4 * o + i] + half) / n }
                row[o] = mean(0) << 24 | mean(1) << 16 | mean(2) << 8 | mean(3)
            }
        }
        return out
    }

    /// `image` as JPEG bytes, its orientation tag `orientation` (tests, the benchmark's pictures,
    /// the package's example). `cmyk`: stored as Adobe's inverted CMYK, as print files are.
    package static func encodeJPEG(_ image: Image, quality: Int = 90, progressive: Bool = false, orientation: Int = 1,
                                   cmyk: Bool = false) throws(Failure) -> [UInt8] {
        let w = Int(image.pixelSize.width), h = Int(image.pixelSize.height)
        var rows = [UInt8](repeating: 0, count: w * h * 4)
        image.withRows { y, row in
            for x in 0..<w {
                let v = row[x], i = (y * w + x) * 4
                let (r, g, b) = (UInt8((v >> 16) & 0xff), UInt8((v >> 8) & 0xff), UInt8(v & 0xff))
                (rows[i], rows[i + 1], rows[i + 2], rows[i + 3]) = cmyk ? (r, g, b, 255) : (b, g, r, 255)
            }
        }
        var out: UnsafeMutablePointer<UInt8>?, size = 0
        var error = [CChar](repeating: 0, count: 256)
        guard kiosk_jpeg_encode(rows, Int32(w * 4), Int32(w), Int32(h), cmyk ? 1 : 0, Int32(quality), progressive ? 1 : 0,
                                Int32(orientation), &out, &size, &error, error.count) == 0, let out else {
            throw Failure(path: "(encoding)", reason: message(error))
        }
        defer { free(out) }
        return Array(UnsafeBufferPointer(start: out, count: size))
    }

    /// EXIF's orientation: how the stored pixels are turned or mirrored to be shown upright.
    enum Orientation: Equatable {
        case upright, mirrored, halfTurn, flipped, transposed, quarterTurn, transverse, threeQuarterTurn
        init(exif v: Int) {
            self = [.upright, .mirrored, .halfTurn, .flipped, .transposed, .quarterTurn, .transverse, .threeQuarterTurn][(1...8).contains(v) ? v - 1 : 0]
        }
        var swapsSides: Bool { [.transposed, .quarterTurn, .transverse, .threeQuarterTurn].contains(self) }
        func shownSize(width w: Int, height h: Int) -> PixelSize {
            swapsSides ? PixelSize(width: Int32(h), height: Int32(w)) : PixelSize(width: Int32(w), height: Int32(h))
        }
        /// Stored pixels (`width`×`height`) → shown pixels.
        func transform(width w: Double, height h: Double) -> AffineTransform {
            switch self {
            case .upright: return .identity
            case .mirrored: return AffineTransform(a: -1, b: 0, c: 0, d: 1, tx: w, ty: 0)
            case .halfTurn: return AffineTransform(a: -1, b: 0, c: 0, d: -1, tx: w, ty: h)
            case .flipped: return AffineTransform(a: 1, b: 0, c: 0, d: -1, tx: 0, ty: h)
            case .transposed: return AffineTransform(a: 0, b: 1, c: 1, d: 0, tx: 0, ty: 0)
            case .quarterTurn: return AffineTransform(a: 0, b: 1, c: -1, d: 0, tx: h, ty: 0)
            case .transverse: return AffineTransform(a: 0, b: -1, c: -1, d: 0, tx: h, ty: w)
            case .threeQuarterTurn: return AffineTransform(a: 0, b: -1, c: 1, d: 0, tx: 0, ty: w)
            }
        }
    }
}
