import Testing
@testable import Kiosk
@testable import KioskPlatform
@testable import KioskRender
@testable import KioskCore

@Suite struct GeometryTests {
    @Test func rectUnionAndIntersection() {
        let a = Rect(x: 0, y: 0, width: 10, height: 10), b = Rect(x: 5, y: 5, width: 10, height: 10)
        #expect(a.union(b) == Rect(x: 0, y: 0, width: 15, height: 15))
        #expect(a.intersection(b) == Rect(x: 5, y: 5, width: 5, height: 5))
        #expect(a.intersection(Rect(x: 20, y: 20, width: 1, height: 1)).isEmpty)
        #expect(Rect.zero.union(b) == b)
    }

    @Test func pixelBoundsRoundOutwardAtScale() {
        let r = Rect(x: 0.4, y: 1.6, width: 2.2, height: 1.0)
        #expect(r.pixelBounds(scale: 1) == PixelRect(x: 0, y: 1, width: 3, height: 2))
        #expect(r.pixelBounds(scale: 2) == PixelRect(x: 0, y: 3, width: 6, height: 3))
    }

    /// Each pixel of the rectangle, its centre taken through the turn, lands in the turned
    /// rectangle, and the turned rectangle holds no other pixel: at scale 3, where a third of a
    /// pixel through points could round the wrong way, for every turn and flip.
    @Test func aPixelRectQuarterTurnedHoldsExactlyItsPixelsTurned() throws {
        let scale = 3, s = 3.0
        let turns: [(Double, Double, Double, Double)] = [(1, 0, 0, 1), (0, 1, -1, 0), (-1, 0, 0, -1), (0, -1, 1, 0), (1, 0, 0, -1), (0, 1, 1, 0)]
        let r = PixelRect(x: 4, y: 7, width: 5, height: 2)
        for (a, b, c, d) in turns {
            // Translations of whole pixels at the scale (a third of a point each).
            let t = AffineTransform(a: a, b: b, c: c, d: d, tx: 100 / s, ty: 61 / s)
            let q = try #require(r.quarterTurned(by: t, scale: scale))
            #expect(q.area == r.area, "\(t)")
            for y in r.y..<(r.y + r.height) {
                for x in r.x..<(r.x + r.width) {
                    let p = t.apply(Point(x: (Double(x) + 0.5) / s, y: (Double(y) + 0.5) / s))
                    let px = Int32((p.x * s).rounded(.down)), py = Int32((p.y * s).rounded(.down))
                    #expect(px >= q.x && px < q.x + q.width && py >= q.y && py < q.y + q.height, "\(x),\(y) → \(px),\(py) outside \(q)")
                }
            }
        }
        #expect(r.quarterTurned(by: AffineTransform(rotationAngle: 0.3), scale: 1) == nil)
        #expect(r.quarterTurned(by: AffineTransform(a: 1, b: 1, c: 0, d: 1, tx: 0, ty: 0), scale: 1) == nil)
        #expect(r.quarterTurned(by: AffineTransform(scaleX: 2, y: 2), scale: 1) == nil)
    }

    @Test func affineInverseAndConcatenation() {
        let t = AffineTransform(rotationAngle: .pi / 2).concatenating(AffineTransform(translationX: 10, y: 5))
        let p = t.apply(Point(x: 1, y: 0))
        #expect(abs(p.x - 10) < 1e-9 && abs(p.y - 6) < 1e-9)
        let back = t.inverted!.apply(p)
        #expect(abs(back.x - 1) < 1e-9 && abs(back.y) < 1e-9)
        #expect(AffineTransform(scaleX: 0, y: 1).inverted == nil)
        let box = AffineTransform(rotationAngle: .pi / 2).apply(Rect(x: 0, y: 0, width: 4, height: 2))
        #expect(abs(box.width - 2) < 1e-9 && abs(box.height - 4) < 1e-9)
    }

    @Test func sizesParse() {
        #expect(parseSize("1080x1920") == Size(width: 1080, height: 1920))
        #expect(parseSize("1920×1080") == Size(width: 1920, height: 1080))
        #expect(parseSize("0x10") == nil)
        #expect(parseSize("abc") == nil)
        #expect(parseSize("100000x10") == nil)
    }

    @Test func physicalSizeIsTrustedOnlyWhenPlausible() {
        let mode = PixelSize(width: 1920, height: 1080)
        #expect(Quirks.plausiblePhysicalSize(mm: Size(width: 527, height: 296), mode: mode) != nil) // 24" panel
        #expect(Quirks.plausiblePhysicalSize(mm: Size(width: 1920, height: 1080), mode: mode) == nil) // weston headless
        #expect(Quirks.plausiblePhysicalSize(mm: Size(width: 16, height: 9), mode: mode) == nil) // aspect only
        #expect(Quirks.plausiblePhysicalSize(mm: .zero, mode: mode) == nil)
        #expect(Quirks.plausiblePhysicalSize(mm: Size(width: 30, height: 20), mode: mode) == nil) // 1600 dpi
        let info = DisplayInfo(size: Size(width: 1920, height: 1080), physicalSize: Size(width: 527, height: 296))
        #expect(abs(info.pointsPerMillimetre - 1920.0 / 527) < 1e-9)
        #expect(abs(DisplayInfo(size: Size(width: 10, height: 10)).pointsPerMillimetre - 96 / 25.4) < 1e-9)
        // Rotated: the logical long side still matches the panel's long side.
        let portrait = DisplayInfo(size: Size(width: 1080, height: 1920), physicalSize: Size(width: 527, height: 296))
        #expect(abs(portrait.pointsPerMillimetre - 1920.0 / 527) < 1e-9)
    }
}

@Suite struct RegionTests {
    @Test func unionIntersectAndArea() {
        let r = Region(PixelRect(x: 0, y: 0, width: 10, height: 10))
        r.add(PixelRect(x: 5, y: 5, width: 10, height: 10))
        #expect(r.area == 175)
        #expect(r.extents == PixelRect(x: 0, y: 0, width: 15, height: 15))
        let c = r.copy()
        c.intersect(PixelRect(x: 0, y: 0, width: 6, height: 6))
        #expect(c.area == 36)
        #expect(r.area == 175) // the copy is independent
        #expect(r.contains(x: 12, y: 12) && !r.contains(x: 12, y: 2))
        #expect(r.intersects(PixelRect(x: 14, y: 14, width: 5, height: 5)))
        #expect(!r.intersects(PixelRect(x: 11, y: 0, width: 3, height: 3)))
        r.clear()
        #expect(r.isEmpty && r.rects.isEmpty && r.area == 0)
    }

    @Test func emptyRectsAddNothing() {
        let r = Region()
        r.add(PixelRect(x: 3, y: 3, width: 0, height: 5))
        #expect(r.isEmpty)
        let s = Region(PixelRect(x: 0, y: 0, width: 0, height: 0))
        #expect(s.isEmpty)
    }
}

@Suite struct RotationTypeTests {
    @Test func quarterTurnsAreClockwiseAndWrap() {
        #expect(Rotation(degrees: 270) == Rotation(quarterTurns: -1))
        #expect(Rotation(degrees: 45) == nil && Rotation(degrees: 360) == nil)
        #expect(Rotation(quarterTurns: 1).then(Rotation(quarterTurns: 3)) == .upright)
        #expect(Rotation(quarterTurns: 1).inverse.degrees == 270)
        #expect(Rotation(quarterTurns: 1).apply(Size(width: 1280, height: 800)) == Size(width: 800, height: 1280))
        // Clockwise on screen (y down): the top-left pixel of a 4×2 box goes to the top right.
        #expect(Rotation(quarterTurns: 1).turn(0, 0, width: 4, height: 2) == (1, 0))
        let t = AffineTransform.turning(Rotation(quarterTurns: 1), into: 2, 4)
        #expect(t.apply(Point(x: 0, y: 0)) == Point(x: 2, y: 0))
    }
}
