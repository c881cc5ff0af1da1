import Testing
@testable import KioskPlatform
@testable import KioskRender
@testable import KioskCore

/// What the compositor is told changed (`Quirks.damageToReport`): the damage as it is, or the
/// rows it touches whole when it covers nine twentieths of them or more.
@Suite struct DamageReportTests {
    /// Pixels of `inner` that `outer` does not cover.
    static func uncovered(_ inner: Region, by outer: Region) -> Int {
        let missing = inner.copy()
        missing.subtract(outer)
        return missing.area
    }

    @Test func wholeRowsAreOneBandPerRunOfTouchedRows() {
        // Overlapping and touching boxes in rows 10–29, one lone row at 40, boxes reaching left
        // of the origin and past the width.
        let r = Region(rects: [PixelRect(x: 5, y: 10, width: 20, height: 10), PixelRect(x: 300, y: 15, width: 10, height: 10),
                               PixelRect(x: -4, y: 25, width: 8, height: 5), PixelRect(x: 390, y: 40, width: 50, height: 1)])
        let rows = r.wholeRows(width: 400)
        #expect(rows.rects == [PixelRect(x: 0, y: 10, width: 400, height: 20), PixelRect(x: 0, y: 40, width: 400, height: 1)])
        let inside = r.copy()
        inside.intersect(PixelRect(x: 0, y: 0, width: 400, height: 100))
        #expect(DamageReportTests.uncovered(inside, by: rows) == 0)
        #expect(Region().wholeRows(width: 400).isEmpty)
    }

    @Test func damageCoveringMuchOfItsRowsIsReportedAsWholeRows() {
        // 200 label-sized boxes over a 1920×1080 buffer, as the screensaver's words make: most of
        // each row they touch.
        var boxes: [PixelRect] = []
        for i in 0..<200 {
            boxes.append(PixelRect(x: Int32(i * 613 % 1500), y: Int32(i * 389 % 1040), width: 420, height: 48))
        }
        let damage = Region(rects: boxes)
        damage.intersect(PixelRect(x: 0, y: 0, width: 1920, height: 1080))
        let rows = damage.wholeRows(width: 1920)
        #expect(damage.area * 20 >= rows.area * 9)
        let told = Quirks.damageToReport(damage, width: 1920)
        #expect(told.rects == rows.rects)
        #expect(DamageReportTests.uncovered(damage, by: told) == 0)
    }

    @Test func sparseDamageIsReportedAsItIs() {
        // A few words in a tall screen: a small part of the rows they touch.
        let few = Region(rects: [PixelRect(x: 100, y: 100, width: 300, height: 40), PixelRect(x: 1200, y: 600, width: 250, height: 40)])
        #expect(Quirks.damageToReport(few, width: 1920) === few)
        // Just under nine twentieths of its rows: still as it is; at nine twentieths: whole rows.
        let under = Region(PixelRect(x: 0, y: 0, width: 863, height: 10))
        #expect(Quirks.damageToReport(under, width: 1920) === under)
        let at = Region(PixelRect(x: 0, y: 0, width: 864, height: 10))
        #expect(Quirks.damageToReport(at, width: 1920).rects == [PixelRect(x: 0, y: 0, width: 1920, height: 10)])
        // Many small scattered boxes are still coarsened to at most 256, covering them all.
        var dots: [PixelRect] = []
        for i in 0..<600 { dots.append(PixelRect(x: Int32(i * 97 % 1900), y: Int32(i * 7 % 1080), width: 4, height: 1)) }
        let scattered = Region(rects: dots)
        let told = Quirks.damageToReport(scattered, width: 1920)
        #expect(told.rectCount <= 256)
        #expect(DamageReportTests.uncovered(scattered, by: told) == 0)
    }
}
