import Testing
#if canImport(Glibc)
import Glibc
#endif
@testable import KioskRender
@testable import KioskCore

/// An operator's pictures: JPEG (through libjpeg-turbo, scaled while decoding, turned upright by
/// EXIF) and PNG, to the size they are shown; and the hostile ones a kiosk must survive — a
/// placeholder's failure naming the file, never a trap, never gigabytes.
@Suite struct PictureTests {
    /// Four quadrants: red top left, green top right, blue bottom left, white bottom right.
    static func quadrants(_ w: Int32, _ h: Int32) -> Image {
        let img = Image(pixelSize: PixelSize(width: w, height: h), hasAlpha: false)!
        let c = Canvas(image: img), hw = Double(w) / 2, hh = Double(h) / 2
        c.fill(Rect(x: 0, y: 0, width: hw, height: hh), color: Color(rgb: 0xff0000))
        c.fill(Rect(x: hw, y: 0, width: hw, height: hh), color: Color(rgb: 0x00ff00))
        c.fill(Rect(x: 0, y: hh, width: hw, height: hh), color: Color(rgb: 0x0000ff))
        c.fill(Rect(x: hw, y: hh, width: hw, height: hh), color: Color(rgb: 0xffffff))
        return img
    }

    /// Which of the four colours the pixel at fractions (fx, fy) of `img` is closest to.
    static func colour(_ img: Image, _ fx: Double, _ fy: Double) -> String {
        let p = img.pixel(x: Int(Double(img.pixelSize.width) * fx), y: Int(Double(img.pixelSize.height) * fy))
        let (r, g, b) = (Int((p >> 16) & 0xff), Int((p >> 8) & 0xff), Int(p & 0xff))
        let named = [("red", (255, 0, 0)), ("green", (0, 255, 0)), ("blue", (0, 0, 255)), ("white", (255, 255, 255))]
        return named.min { abs($0.1.0 - r) + abs($0.1.1 - g) + abs($0.1.2 - b) < abs($1.1.0 - r) + abs($1.1.1 - g) + abs($1.1.2 - b) }!.0
    }
    static func corners(_ img: Image) -> [String] { [colour(img, 0.2, 0.2), colour(img, 0.8, 0.2), colour(img, 0.2, 0.8), colour(img, 0.8, 0.8)] }

    static func jpeg(_ w: Int32, _ h: Int32, orientation: Int = 1, progressive: Bool = false, cmyk: Bool = false) throws -> [UInt8] {
        try Picture.encodeJPEG(quadrants(w, h), quality: 92, progressive: progressive, orientation: orientation, cmyk: cmyk)
    }

    @Test func aJPEGGoesInsideItsBoxOrFillsIt() throws {
        let bytes = try Self.jpeg(400, 300)
        let inside = try Picture.decode(bytes, path: "a.jpg", box: PixelSize(width: 100, height: 100), fit: .inside)
        #expect(inside.pixelSize == PixelSize(width: 100, height: 75))
        #expect(Self.corners(inside) == ["red", "green", "blue", "white"])
        let filling = try Picture.decode(bytes, path: "a.jpg", box: PixelSize(width: 100, height: 100), fit: .filling)
        #expect(filling.pixelSize == PixelSize(width: 100, height: 100))
        // 400×300 filling 100×100: scaled to 133×100, a sixth cut off at each side.
        #expect(Self.corners(filling) == ["red", "green", "blue", "white"])
        let larger = try Picture.decode(bytes, path: "a.jpg", box: PixelSize(width: 800, height: 800), fit: .inside, scale: 2)
        #expect(larger.pixelSize == PixelSize(width: 800, height: 600) && larger.scale == 2 && larger.size == Size(width: 400, height: 300))
    }

    @Test func aLargeJPEGIsDecodedScaledNotWhole() throws {
        // 4000×3000 for a 300-pixel tile: libjpeg decodes it at an eighth (500×375).
        #expect(Picture.factor(source: PixelSize(width: 4000, height: 3000), box: PixelSize(width: 300, height: 300), fit: .filling) == 0.1)
        let bytes = try Self.jpeg(4000, 3000)
        let tile = try Picture.decode(bytes, path: "big.jpg", box: PixelSize(width: 300, height: 300), fit: .filling)
        #expect(tile.pixelSize == PixelSize(width: 300, height: 300) && Self.corners(tile) == ["red", "green", "blue", "white"])
        let page = try Picture.decode(bytes, path: "big.jpg", box: PixelSize(width: 1000, height: 700), fit: .inside)
        #expect(page.pixelSize == PixelSize(width: 933, height: 700))
    }

    /// A phone's portrait photograph is stored sideways with an orientation tag: shown upright.
    @Test(arguments: 1...8) func exifOrientationIsShownUpright(orientation: Int) throws {
        // What each orientation does to the stored quadrants when shown.
        let shown: [Int: [String]] = [
            1: ["red", "green", "blue", "white"], 2: ["green", "red", "white", "blue"], 3: ["white", "blue", "green", "red"],
            4: ["blue", "white", "red", "green"], 5: ["red", "blue", "green", "white"], 6: ["blue", "red", "white", "green"],
            7: ["white", "green", "blue", "red"], 8: ["green", "white", "red", "blue"],
        ]
        let img = try Picture.decode(try Self.jpeg(400, 300, orientation: orientation), path: "p.jpg",
                                     box: PixelSize(width: 300, height: 300), fit: .inside)
        #expect(img.pixelSize == (orientation >= 5 ? PixelSize(width: 225, height: 300) : PixelSize(width: 300, height: 225)))
        #expect(Self.corners(img) == shown[orientation]!, "orientation \(orientation)")
    }

    @Test func cmykAndProgressiveJPEGsAndPNGsDecode() throws {
        let box = PixelSize(width: 200, height: 200)
        #expect(Self.corners(try Picture.decode(try Self.jpeg(200, 200, cmyk: true), path: "print.jpg", box: box, fit: .inside))
                == ["red", "green", "blue", "white"])
        #expect(Self.corners(try Picture.decode(try Self.jpeg(200, 200, progressive: true), path: "web.jpg", box: box, fit: .inside))
                == ["red", "green", "blue", "white"])
        let png = try PNG.encode(Self.quadrants(1200, 900), name: "d.png")
        let reduced = try Picture.decode(png, path: "d.png", box: box, fit: .inside)
        #expect(reduced.pixelSize == PixelSize(width: 200, height: 150) && Self.corners(reduced) == ["red", "green", "blue", "white"])
        // Reduced by averaging: the quadrants' border is a blend, not one colour's pixels.
        #expect(Picture.reduced(Self.quadrants(8, 8), by: 8).pixel(x: 0, y: 0) & 0xffffff == 0x808080)
    }

    // MARK: Hostile pictures

    func failure(_ bytes: [UInt8], _ name: String, limits: Picture.Limits = .standard) -> String? {
        do {
            _ = try Picture.decode(bytes, path: name, box: PixelSize(width: 300, height: 300), fit: .filling, limits: limits)
            return nil
        } catch { return error.description }
    }

    @Test func aTruncatedJPEGFailsNamingTheFile() throws {
        let bytes = try Self.jpeg(400, 300)
        #expect(failure(Array(bytes.prefix(bytes.count / 2)), "half.jpg") == "half.jpg: cannot be decoded (Premature end of JPEG file)")
        #expect(failure(Array(bytes.prefix(20)), "stub.jpg")?.hasPrefix("stub.jpg: not a readable JPEG") == true)
        #expect(failure([], "empty.jpg") == "empty.jpg: the file is empty")
        #expect(failure(Array("<html>".utf8), "page.jpg") == "page.jpg: not a JPEG or PNG picture")
    }

    /// A JPEG whose header claims 60000×60000 (3.6 Gpx): refused from the header, nothing decoded.
    @Test func aJPEGClaimingAHugeSizeIsRefusedFromItsHeader() throws {
        var bytes = try Self.jpeg(64, 48)
        let sof = try #require((0..<bytes.count - 9).first { bytes[$0] == 0xFF && bytes[$0 + 1] == 0xC0 })
        (bytes[sof + 5], bytes[sof + 6], bytes[sof + 7], bytes[sof + 8]) = (0xEA, 0x60, 0xEA, 0x60)
        #expect(failure(bytes, "huge.jpg") == "huge.jpg: 60000×60000 pixels is larger than 30000 a side or 100 Mpx")
    }

    /// A PNG declaring 100000×100000 in a few hundred bytes: refused before decoding.
    @Test func aPNGBombIsRefusedFromItsHeader() throws {
        var png = try PNG.encode(Self.quadrants(16, 16), name: "b.png")
        // IHDR's width and height (big-endian) and its CRC, which libpng checks.
        let ihdr = 16
        for (i, v) in [UInt32(100_000), 100_000].enumerated() {
            for b in 0..<4 { png[ihdr + 4 * i + b] = UInt8((v >> (24 - 8 * UInt32(b))) & 0xff) }
        }
        let crc = crc32(Array(png[12..<29]))
        for b in 0..<4 { png[29 + b] = UInt8((crc >> (24 - 8 * UInt32(b))) & 0xff) }
        #expect(failure(png, "bomb.png")?.hasPrefix("bomb.png: 100000×100000 pixels is larger than") == true)
    }

    @Test func aProgressiveJPEGWithTooManyScansIsRefused() throws {
        var limits = Picture.Limits()
        limits.maxScans = 2
        #expect(failure(try Self.jpeg(64, 48, progressive: true), "scans.jpg", limits: limits)
                == "scans.jpg: cannot be decoded (more than 2 scans (a progressive JPEG that would take too long))")
    }

    /// A FIFO in the folder would block a reader forever: only regular files are read.
    @Test func aFIFOIsNotRead() throws {
        let path = "/tmp/kiosk-picture-fifo-\(getpid()).jpg"
        unlink(path)
        #expect(mkfifo(path, 0o600) == 0)
        defer { unlink(path) }
        #expect(throws: Picture.Failure.self) { try Picture.read(path: path, box: PixelSize(width: 10, height: 10), fit: .inside) }
    }

    @Test func fiveThousandDamagedJPEGsNeverTrap() throws {
        let seeds = [try Self.jpeg(96, 64), try Self.jpeg(96, 64, orientation: 6, progressive: true), try Self.jpeg(40, 40, cmyk: true)]
        let tokens: [[UInt8]] = [[0xFF], [0xFF, 0xD8], [0xFF, 0xC0], [0xFF, 0xC2], [0xFF, 0xDA], [0xFF, 0xD9], [0xFF, 0xE1], [0], [0xFF, 0xFF]]
        var rng = SplitMix64(seed: 21)
        var decoded = 0, refused = 0
        for n in 0..<5000 {
            let bytes = Fuzz.mutate(seeds[n % seeds.count], tokens: tokens, &rng)
            if (try? Picture.decode(bytes, path: "f.jpg", box: PixelSize(width: 50, height: 50), fit: .filling)) != nil { decoded += 1 } else { refused += 1 }
        }
        #expect(decoded > 100 && refused > 100, "\(decoded) decoded, \(refused) refused")
    }

    private func crc32(_ bytes: [UInt8]) -> UInt32 {
        var c: UInt32 = 0xffff_ffff
        for b in bytes {
            c ^= UInt32(b)
            for _ in 0..<8 { c = c & 1 != 0 ? 0xedb8_8320 ^ (c >> 1) : c >> 1 }
        }
        return c ^ 0xffff_ffff
    }
}
