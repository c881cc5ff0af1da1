import Testing
import CPixman
@testable import KioskRender
@testable import KioskCore
#if canImport(Glibc)
import Glibc
#endif

@Suite struct CanvasTests {
    @Test func fillHonoursScaleAndClip() {
        let img = solidImage(40, 40, .black, scale: 2)
        let c = Canvas(image: img)
        let clip = Region(PixelRect(x: 0, y: 0, width: 40, height: 10))
        c.setClip(clip)
        c.fill(Rect(x: 0, y: 0, width: 20, height: 20), color: .white) // 40×40 px at scale 2
        c.setClip(nil)
        #expect(img.pixel(x: 39, y: 9) == 0xffff_ffff)
        #expect(img.pixel(x: 39, y: 10) == 0xff00_0000) // outside the clip
    }

    /// The touch test's 10 mm grid at 100 dpi on a 1024×768 panel put its last line at x =
    /// 1023.6, two pixels wide: unclipped, pixman wrote each row's extra pixel into the next
    /// row and the last one past the buffer (the kiosk crashed on a booted machine).
    @Test func aFillPastTheEdgeStaysInside() {
        let img = solidImage(16, 8, .black)
        let c = Canvas(image: img)
        c.fill(Rect(x: 15.6, y: -3, width: 1, height: 20), color: .white)
        #expect(img.pixel(x: 15, y: 7) == 0xffff_ffff)
        for y in 0..<8 { #expect(img.pixel(x: 0, y: y) == 0xff00_0000, "row \(y) got the last one's overflow") }
        c.fill(Rect(x: -5, y: 20, width: 4, height: 4), color: .white) // wholly outside: nothing
        #expect(img.pixel(x: 0, y: 7) == 0xff00_0000)
    }

    @Test func clearingWithTransparencyEmptiesTheCanvas() {
        let img = solidImage(4, 4, .white)
        let c = Canvas(image: img)
        c.clear(.clear)
        #expect(img.pixel(x: 2, y: 2) & 0xff00_0000 == 0, "a cleared layer still holds what it showed")
        c.fill(Rect(x: 0, y: 0, width: 4, height: 4), color: .clear) // a transparent fill blends nothing
        #expect(img.pixel(x: 2, y: 2) & 0xff00_0000 == 0)
    }

    @Test func translucentFillBlends() {
        let img = solidImage(4, 4, .black)
        Canvas(image: img).fill(Rect(x: 0, y: 0, width: 4, height: 4), color: Color.white.withAlpha(0.5))
        let p = channels(img.pixel(x: 1, y: 1))
        #expect(p.a == 255 && abs(p.r - 128) <= 1)
    }

    @Test func circlesAreFilledInsideAndAntialiasedAtTheEdge() {
        let img = solidImage(40, 40, .black)
        Canvas(image: img).fillCircle(center: Point(x: 20, y: 20), radius: 10, color: .white)
        #expect(img.pixel(x: 20, y: 20) == 0xffff_ffff)
        #expect(img.pixel(x: 20, y: 5) == 0xff00_0000)
        #expect(img.pixel(x: 2, y: 2) == 0xff00_0000)
        // Somewhere on the rim the coverage is partial.
        let rim = (0..<40).map { channels(img.pixel(x: $0, y: 20)).r }
        #expect(rim.contains { $0 > 0 && $0 < 255 })
    }

    @Test func ringLeavesItsCentreAlone() {
        let img = solidImage(60, 60, .black)
        Canvas(image: img).strokeCircle(center: Point(x: 30, y: 30), radius: 20, width: 4, color: .white)
        #expect(img.pixel(x: 30, y: 30) == 0xff00_0000)
        #expect(img.pixel(x: 50, y: 30) == 0xffff_ffff)
    }

    /// Coverage values (0...255) of a mask made from `contours` in a `window`.
    private func coverage(_ contours: [[(x: Double, y: Double)]], window: PixelRect) -> [[Int]] {
        var c = PolygonCoverage(window: window)
        for contour in contours { c.add(contour: contour) }
        let img = Image(adopting: c.mask()!)
        let data = UnsafeMutableRawPointer(pixman_image_get_data(img.raw)!).assumingMemoryBound(to: UInt8.self)
        return (0..<Int(window.height)).map { y in (0..<Int(window.width)).map { x in Int(data[y * img.stride + x]) } }
    }

    @Test func polygonCoverageIsTheExactAreaOfEachPixel() {
        let w = PixelRect(x: 0, y: 0, width: 8, height: 8)
        // A square on pixel edges: full inside, nothing outside, in either winding.
        let square = [(x: 2.0, y: 2.0), (x: 6.0, y: 2.0), (x: 6.0, y: 6.0), (x: 2.0, y: 6.0)]
        for contour in [square, square.reversed()] {
            let m = coverage([contour], window: w)
            #expect(m[3][3] == 255 && m[2][5] == 255 && m[5][2] == 255)
            #expect(m[1][3] == 0 && m[3][1] == 0 && m[6][3] == 0 && m[3][6] == 0)
        }
        // Moved by half a pixel: its edge pixels are half covered, its corners a quarter.
        let half = coverage([square.map { (x: $0.x + 0.5, y: $0.y + 0.5) }], window: w)
        #expect(half[4][4] == 255)
        #expect(abs(half[4][2] - 128) <= 1 && abs(half[2][4] - 128) <= 1 && abs(half[4][6] - 128) <= 1)
        #expect(abs(half[2][2] - 64) <= 1 && abs(half[6][6] - 64) <= 1)
        // A slanted triangle: the coverage adds up to its area (6 × 5 / 2 = 15 pixels).
        let tri = coverage([[(x: 1.3, y: 0.7), (x: 7.3, y: 2.2), (x: 3.1, y: 5.7)]], window: w)
        let cross: Double = (7.3 - 1.3) * (5.7 - 0.7) - (3.1 - 1.3) * (2.2 - 0.7)
        let sum: Int = tri.joined().reduce(0, +)
        #expect(abs(Double(sum) / 255 - abs(cross) / 2) < 0.05)
        // A ring: the outline plus the hole wound the other way leaves the hole empty.
        let outer = [(x: 1.0, y: 1.0), (x: 7.0, y: 1.0), (x: 7.0, y: 7.0), (x: 1.0, y: 7.0)]
        let ring = coverage([outer, square.reversed()], window: w)
        #expect(ring[3][3] == 0 && ring[1][1] == 255 && ring[6][6] == 255)
    }

    @Test func polygonCoverageClippedToAWindowMatchesTheWholeShape() {
        // A shape reaching past every side of a small window: the window's pixels must be
        // those of the same pixels in a mask of the whole shape.
        let shape = [(x: -7.3, y: 3.4), (x: 12.6, y: -5.1), (x: 30.2, y: 14.7), (x: 9.9, y: 28.8), (x: 2.2, y: 15.5)]
        let whole = coverage([shape], window: PixelRect(x: -10, y: -10, width: 45, height: 45))
        let part = coverage([shape], window: PixelRect(x: 3, y: 4, width: 12, height: 9))
        for y in 0..<9 {
            for x in 0..<12 { #expect(abs(part[y][x] - whole[y + 14][x + 13]) <= 1, "pixel \(x + 3), \(y + 4)") }
        }
    }

    @Test func aShapeTallerThanABandIsFilledSeamlessly() {
        // Drawn in bands of rows: no seam where one band ends and the next begins.
        let img = solidImage(60, 400, .black)
        Canvas(image: img).fillPolygon([Point(x: 10.5, y: 3.25), Point(x: 50.25, y: 3.25), Point(x: 30.5, y: 396.75)], color: .white)
        let centre = (4..<300).map { channels(img.pixel(x: 30, y: $0)).r }
        #expect(centre.allSatisfy { $0 == 255 })
        // The slanted edge's coverage changes smoothly across the band boundaries too.
        for y in [127, 128, 129, 255, 256, 257] {
            let row = (0..<60).map { channels(img.pixel(x: $0, y: y)).r }
            let lit = row.filter { $0 > 0 }.count
            #expect(lit > 0 && lit < 45, "row \(y)")
        }
    }

    @Test func shapesWithAbsurdOrMissingCoordinatesNeverStopTheKiosk() {
        // A view's geometry gone wrong (a division by zero, a runaway animation) must not trap
        // in a conversion to pixels: not-a-number draws nothing, huge values are clamped.
        let img = solidImage(20, 20, .black)
        let c = Canvas(image: img)
        c.fillPolygon([Point(x: .nan, y: 1), Point(x: 10, y: 1), Point(x: 10, y: 10)], color: .white)
        c.strokeLine(from: Point(x: 0, y: 0), to: Point(x: .infinity, y: 5), width: 2, color: .white)
        #expect(img.pixel(x: 9, y: 5) == 0xff00_0000)
        c.fillPolygon([Point(x: -1e300, y: -1e300), Point(x: 1e300, y: -1e300), Point(x: 1e300, y: 1e300), Point(x: -1e300, y: 1e300)], color: .white)
        #expect(img.pixel(x: 10, y: 10) == 0xffff_ffff)
    }

    @Test func shapesOutsideTheCanvasOrItsClipDrawNothingAndCostNoMask() {
        let img = solidImage(20, 20, .black)
        let c = Canvas(image: img)
        c.fillPolygon([Point(x: -50, y: -50), Point(x: -10, y: -50), Point(x: -10, y: -10)], color: .white)
        c.setClip(Region(PixelRect(x: 0, y: 0, width: 5, height: 5)))
        c.fillRoundedRect(Rect(x: 8, y: 8, width: 10, height: 10), radius: 3, color: .white)
        c.fillRoundedRect(Rect(x: 2, y: 2, width: 10, height: 10), radius: 3, color: .white)
        c.setClip(nil)
        #expect(img.pixel(x: 4, y: 4) == 0xffff_ffff) // inside the clip
        #expect(img.pixel(x: 6, y: 6) == 0xff00_0000) // the shape, but outside the clip
        #expect(img.pixel(x: 12, y: 12) == 0xff00_0000)
    }

    @Test func imagesCompositeWithAlphaAndTransforms() {
        let src = Image(pixelSize: PixelSize(width: 10, height: 4), hasAlpha: true)!
        Canvas(image: src).fill(Rect(x: 0, y: 0, width: 10, height: 4), color: Color(red: 1, green: 0, blue: 0))
        let dst = solidImage(20, 20, .black)
        let c = Canvas(image: dst)
        c.draw(src, transform: AffineTransform(translationX: 2, y: 2), alpha: 0.5)
        let blit = channels(dst.pixel(x: 5, y: 3))
        #expect(abs(blit.r - 128) <= 1 && blit.g == 0)
        #expect(dst.pixel(x: 5, y: 8) == 0xff00_0000)
        // Rotated a quarter turn about the origin, then moved: a 4×10 vertical bar.
        let rotated = AffineTransform(rotationAngle: .pi / 2).concatenating(AffineTransform(translationX: 16, y: 8))
        c.draw(src, transform: rotated)
        #expect(channels(dst.pixel(x: 14, y: 12)).r == 255)
        #expect(channels(dst.pixel(x: 14, y: 6)).r == 0)
    }

    @Test func fontsMadeWhileFontconfigLoadsInTheBackgroundWaitForIt() async throws {
        // As `main` does: the load begins on its own thread, and font caches made at once (here
        // on two threads) sleep until it is done, then load fonts.
        FontCache.initializeInBackground()
        let other = Task.detached { FontCache().font(points: 20, scale: 1)?.pixelSize }
        let font = try #require(FontCache().font(points: 24, scale: 1))
        #expect(font.pixelSize == 24)
        #expect(font.layout("Hello").width > 0)
        #expect(await other.value == 20)
    }

    @Test func textDrawsGlyphsAndMeasures() throws {
        let font = try #require(testFonts.font(points: 20, scale: 1))
        let run = font.layout("Kiosk")
        #expect(run.width > 30 && run.width < 120)
        #expect(font.layout("").width == 0)
        #expect(font.layout("ii").width < font.layout("WW").width)
        let img = solidImage(140, 40, .black)
        Canvas(image: img).draw(run, at: Point(x: 4, y: 28), color: .white)
        var lit = 0
        img.withRows { _, row in lit += row.filter { channels($0).r > 128 }.count }
        #expect(lit > 50)
        // Any UTF-8 works: accents and CJK shape without crashing (glyphs from fallback fonts).
        #expect(font.layout("Frühling — 春").width > 0)
        // Joining scripts go through HarfBuzz run shaping; the rest through the glyph cache.
        #expect(TextRun.needsContextualShaping("مرحبا") && TextRun.needsContextualShaping("नमस्ते"))
        #expect(!TextRun.needsContextualShaping("Grüße 春 🎵"))
        #expect(font.layout("مرحبا").glyphs.count >= 4)
        // A combining sequence is one cluster with both marks drawn.
        #expect(font.layout("e\u{301}").glyphs.count >= 1)
    }

    @Test func textIsClippedToDamage() throws {
        let font = try #require(testFonts.font(points: 20, scale: 1))
        let img = solidImage(140, 40, .black)
        let c = Canvas(image: img)
        c.setClip(Region(PixelRect(x: 100, y: 0, width: 40, height: 40)))
        c.draw(font.layout("III"), at: Point(x: 4, y: 28), color: .white)
        c.setClip(nil)
        var lit = 0
        img.withRows { _, row in lit += row.filter { channels($0).r > 0 }.count }
        #expect(lit == 0)
    }
}

@Suite struct RegionCoarseningTests {
    @Test func coarsenedKeepsFewRectsAndCoversEveryPixel() {
        // 300 small scattered boxes, like falling labels.
        var rects: [PixelRect] = []
        for i in 0..<300 { rects.append(PixelRect(x: Int32(i * 37 % 1800), y: Int32(i * 53 % 1000), width: 90, height: 20)) }
        let r = Region(rects: rects)
        #expect(r.rectCount > 64)
        let c = r.coarsened(maxRects: 64)
        #expect(c.rectCount <= 64)
        let inside = c.copy()
        inside.intersect(r)
        #expect(inside.area == r.area) // nothing lost
        let few = Region(PixelRect(x: 1, y: 2, width: 3, height: 4))
        #expect(few.coarsened(maxRects: 64) === few)
        // The finest grid that fits is chosen, not the bounding box: two far corners stay two
        // small areas, even with boxes reaching left of and above the origin.
        var corners: [PixelRect] = []
        for i in 0..<40 {
            corners.append(PixelRect(x: Int32(-5 + i % 7), y: Int32(-3 + i * 2), width: 30, height: 1))
            corners.append(PixelRect(x: Int32(1800 + i % 5), y: Int32(900 + i * 2), width: 40, height: 1))
        }
        let far = Region(rects: corners)
        let fc = far.coarsened(maxRects: 8)
        #expect(fc.rectCount <= 8)
        let covered = fc.copy()
        covered.intersect(far)
        #expect(covered.area == far.area)
        #expect(fc.area < far.extents.area / 100)
    }
}

@Suite struct PNGTests {
    @Test func roundTripKeepsPixels() throws {
        let img = Image(pixelSize: PixelSize(width: 8, height: 8), hasAlpha: true)!
        let c = Canvas(image: img)
        c.fill(Rect(x: 0, y: 0, width: 4, height: 8), color: Color(red: 1, green: 0.5, blue: 0))
        c.fill(Rect(x: 4, y: 0, width: 4, height: 8), color: Color(red: 0, green: 0, blue: 1, alpha: 0.5))
        let path = "/tmp/kiosk-png-test-\(getpid()).png"
        defer { unlink(path) }
        try PNG.write(img, path: path)
        let back = try PNG.read(path: path)
        #expect(back.pixelSize == img.pixelSize)
        for (x, y) in [(0, 0), (3, 7), (4, 0), (7, 7)] {
            let a = channels(img.pixel(x: x, y: y)), b = channels(back.pixel(x: x, y: y))
            #expect(abs(a.a - b.a) <= 1 && abs(a.r - b.r) <= 1 && abs(a.g - b.g) <= 1 && abs(a.b - b.b) <= 1)
        }
    }

    /// A PNG whose header declares `w`×`h` pixels, with no image data behind it: what a
    /// decompression bomb looks like before anything is decoded.
    static func header(width w: UInt32, height h: UInt32) -> [UInt8] {
        func be(_ v: UInt32) -> [UInt8] { [UInt8(v >> 24), UInt8(v >> 16 & 0xff), UInt8(v >> 8 & 0xff), UInt8(v & 0xff)] }
        func crc(_ bytes: [UInt8]) -> UInt32 {
            var c: UInt32 = 0xFFFF_FFFF
            for b in bytes {
                c ^= UInt32(b)
                for _ in 0..<8 { c = c & 1 != 0 ? 0xEDB8_8320 ^ (c >> 1) : c >> 1 }
            }
            return ~c
        }
        func chunk(_ type: String, _ data: [UInt8]) -> [UInt8] {
            let body = Array(type.utf8) + data
            return be(UInt32(data.count)) + body + be(crc(body))
        }
        return [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
            + chunk("IHDR", be(w) + be(h) + [8, 6, 0, 0, 0]) + chunk("IDAT", [0x78, 0x9C, 0x03, 0x00]) + chunk("IEND", [])
    }

    @Test func hugeDeclaredSizesAndFilesThatAreNotFilesAreRefusedBeforeDecoding() throws {
        let dir = String(cString: mkdtemp(strdup("/tmp/kiosk-png-XXXXXX"))!)
        defer { _ = system("rm -rf '\(dir)'") }
        func write(_ name: String, _ bytes: [UInt8]) {
            let f = fopen("\(dir)/\(name)", "w")!
            _ = bytes.withUnsafeBytes { fwrite($0.baseAddress, 1, $0.count, f) }
            fclose(f)
        }
        write("bomb.png", PNGTests.header(width: 20000, height: 20000))
        #expect(throws: PNG.Failure.self) { try PNG.read(path: "\(dir)/bomb.png") }
        write("wide.png", PNGTests.header(width: 3000, height: 10))
        do {
            _ = try PNG.read(path: "\(dir)/wide.png", limits: .theme)
            Issue.record("a 3000-pixel-wide theme image decoded")
        } catch let e as PNG.Failure {
            #expect(e.reason == "3000×10 pixels is larger than 2048 a side or 4 Mpx")
        }
        // A FIFO would block a plain open until someone wrote to it.
        #expect(mkfifo("\(dir)/fifo.png", 0o600) == 0)
        do {
            _ = try PNG.read(path: "\(dir)/fifo.png", limits: .theme)
            Issue.record("a FIFO decoded")
        } catch let e as PNG.Failure {
            #expect(e.reason == "not a regular file (a FIFO); only regular files are read")
        }
        var lines: [String] = []
        let images = Theme.images(["fifo.png", "bomb.png"], in: dir, report: { lines.append($0) })
        #expect(images.isEmpty && lines.count == 2)
    }

    @Test func missingAndCorruptFilesThrowNamingTheFile() throws {
        #expect(throws: PNG.Failure.self) { try PNG.read(path: "/nonexistent/rocket.png") }
        let path = "/tmp/kiosk-corrupt-\(getpid()).png"
        defer { unlink(path) }
        let f = fopen(path, "w")!
        fputs("\u{89}PNG\r\n\u{1a}\nthis is not a png body", f)
        fclose(f)
        do {
            _ = try PNG.read(path: path)
            Issue.record("a corrupt PNG decoded")
        } catch let e as PNG.Failure {
            #expect(e.path == path)
            #expect(!e.description.isEmpty)
        }
    }
}
