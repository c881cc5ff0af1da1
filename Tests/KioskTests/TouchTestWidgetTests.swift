import Testing

/// The touch-pattern widgets of the Touch test scene, driven with scripted touches.
@Suite struct TouchTestWidgetTests {
    typealias Rig = SceneRig<TouchTestScene>
    func rig() -> Rig { Rig { TouchTestScene(fonts: $0, scheduler: $1) } }

    @Test func twoFingersTurnAndScaleTheSpinner() {
        let r = rig()
        let c = r.scene.spinner.center
        r.send([touch(1, .began, c.x - 40, c.y), touch(2, .began, c.x + 40, c.y)])
        for i in 1...10 {
            let f = Double(i) / 10, a = f * 0.8, d = 40 * (1 + 0.5 * f)
            r.send([touch(1, .moved, c.x - d * cos(a), c.y - d * sin(a)), touch(2, .moved, c.x + d * cos(a), c.y + d * sin(a))])
        }
        r.send([touch(1, .ended, 0, 0), touch(2, .ended, 0, 0)])
        let t = r.scene.spinner.transform
        let angle = atan2(t.b, t.a), scale = (t.a * t.a + t.b * t.b).squareRoot()
        #expect(abs(angle - 0.8) < 1e-6 && abs(scale - 1.5) < 1e-6)
    }

    @Test func theFollowerRidesAboveTheFinger() {
        let r = rig()
        let f = r.scene.follower
        let start = f.center
        r.send([touch(1, .began, start.x, start.y)])
        r.send([touch(1, .moved, start.x - 300, start.y + 50)])
        let mm = DisplayInfo(size: Size(width: 1, height: 1)).pointsPerMillimetre
        #expect(abs(f.center.x - (start.x - 300)) < 1e-9)
        #expect(abs(f.frame.maxY - (start.y + 50 - 12 * mm)) < 1e-9) // its bottom edge 12 mm above the finger
        r.send([touch(1, .ended, start.x - 300, start.y + 50)])
    }

    @Test func holdingOneSecondShowsTheBubbleUntilRelease() {
        let r = rig()
        let b = r.scene.holdButton.center
        r.send([touch(1, .began, b.x, b.y)])
        r.wait(0.9)
        #expect(r.scene.bubble.alpha == 0)
        r.wait(0.2)
        r.wait(0.3) // the fade-in
        #expect(r.scene.bubble.alpha == 1 && r.scene.bubble.presentation.alpha == 1)
        r.send([touch(1, .ended, b.x, b.y)])
        r.wait(0.3)
        #expect(r.scene.bubble.presentation.alpha == 0)
    }

    @Test func theSmallTargetTakesTapsInItsEnlargedArea() {
        let r = rig()
        let t = r.scene.target.frame
        #expect(t.width < 25) // small on screen
        let x = t.maxX + 8, y = t.midY // outside the drawing, inside the hot area
        r.send([touch(1, .began, x, y)])
        r.send([touch(1, .ended, x, y)], after: 0.08)
        #expect(r.scene.targetLabel.text == "Small target: 1 hit")
        r.send([touch(1, .began, t.maxX + 60, y)], after: 1)
        r.send([touch(1, .ended, t.maxX + 60, y)], after: 0.08)
        #expect(r.scene.targetLabel.text == "Small target: 1 hit")
    }

    @Test func aSwipeOnTheGridIsShownAndMarkersStillFollow() {
        let r = rig()
        r.send([touch(1, .began, 300, 600)])
        for i in 1...5 { r.send([touch(1, .moved, 300 + Double(i) * 30, 600)], after: 0.02) }
        #expect(r.scene.model.fingers.first?.location == Point(x: 450, y: 600))
        r.send([touch(1, .ended, 450, 600)], after: 0.02)
        #expect(r.scene.swipeLabel.text == "Swipe: → right")
    }

    @Test func theStatsOverlayOnlyDrawsOnFramesThatHappenAnyway() throws {
        let scene = TouchTestScene(fonts: FontCache())
        let r = try HeadlessRenderer(scene: scene, info: DisplayInfo(size: Size(width: 1280, height: 800)))
        r.stage.fonts = FontCache()
        r.renderFrame()
        r.stage.showsStats = true
        r.clock.advance(by: 0.1)
        #expect(!r.renderFrame().isEmpty) // turning it on shows it
        r.clock.advance(by: 0.1)
        #expect(r.renderFrame().isEmpty)  // then nothing changes: no frame
        scene.handle(TouchBatch(time: r.clock.now, points: [touch(0, .began, 100, 500)]))
        let d = r.renderFrame()
        #expect(d.intersects(PixelRect(x: 1280 - 400, y: 10, width: 100, height: 20))) // refreshed with it
    }

    @Test func onATurnedBufferTheStatsOverlayStaysAtTheWindowsTopRight() throws {
        // A rotated output: the buffer is the panel's 800×1280, the window 1280×800. The overlay
        // belongs at the window's top right, turned with everything else: what it changes of a
        // black screen lies in the turned box, taller than wide.
        func frame(stats: Bool) throws -> Image {
            let r = try HeadlessRenderer(scene: BlackScreen(), info: DisplayInfo(size: Size(width: 1280, height: 800)), bufferRotation: Rotation(quarterTurns: 1))
            r.stage.fonts = FontCache()
            r.stage.showsStats = stats
            r.renderFrame()
            return r.image
        }
        let with = try frame(stats: true), without = try frame(stats: false)
        var box = (minX: Int.max, minY: Int.max, maxX: 0, maxY: 0)
        var rows: [[UInt32]] = []
        without.withRows { _, row in rows.append(Array(row)) }
        with.withRows { y, row in
            for x in row.indices where row[x] != rows[y][x] {
                box = (min(box.minX, x), min(box.minY, y), max(box.maxX, x), max(box.maxY, y))
            }
        }
        try #require(box.minX <= box.maxX, "the overlay changed nothing")
        // The window's (850, 8)–(1270, 42) is the buffer's (758, 850)–(792, 1270).
        #expect(box.minX >= 758 && box.maxX < 792 && box.minY >= 850 && box.maxY < 1270, "\(box)")
        #expect(box.maxY - box.minY > 5 * (box.maxX - box.minX), "\(box)")
    }
}

#if canImport(Glibc)
import Glibc
@testable import Kiosk
@testable import KioskScenes
@testable import KioskUI
@testable import KioskRender
@testable import KioskCore
#endif

/// The Touch test's layout on the panels kiosks use: nothing covers anything else, and all of it
/// stays on screen and clear of the shell's scene bar, from the smallest common panel (7", 800×480)
/// up, either way round.
@Suite struct TouchTestLayoutTests {
    static let sizes: [(Double, Double)] = [
        (800, 480), (1024, 600), (1280, 720), (1280, 800), (1366, 768), (1920, 1080), (2560, 1440),
        (480, 800), (600, 1024), (720, 1280), (800, 1280), (1080, 1920),
    ]

    @Test(arguments: sizes) func nothingOverlapsAndAllIsOnScreen(width: Double, height: Double) {
        // 96 dpi (a panel that reports no size) and 130 dpi (a 7" 800×480 panel's density).
        for (barInset, dpi) in [(0.0, 96.0), (52, 96), (0, 130), (52, 130)] {
            let scene = TouchTestScene(fonts: testFonts)
            let mmSize = dpi == 96 ? nil : Size(width: width / dpi * 25.4, height: height / dpi * 25.4)
            var info = DisplayInfo(size: Size(width: width, height: height), physicalSize: mmSize)
            info.safeAreaInsets.top = barInset
            scene.layout(info)
            let s = scene
            let parts: [(String, Rect)] = [
                ("title", s.title.frame), ("info line", s.infoLine.frame), ("counter", s.counter.frame), ("last key", s.lastKey.frame),
                ("spinner", s.spinner.frame), ("spinner caption", s.spinnerCaption.frame),
                ("follower", s.follower.frame), ("follower caption", s.followerCaption.frame),
                ("hold button", s.holdButton.frame), ("target area", s.targetHotArea.frame),
                ("target label", s.targetLabel.frame), ("swipe label", s.swipeLabel.frame),
            ]
            let where_ = "\(Int(width))×\(Int(height)) at \(Int(dpi)) dpi, bar inset \(Int(barInset))"
            for (name, f) in parts {
                #expect(f.minX >= 0 && f.maxX <= width + 0.5 && f.minY >= barInset && f.maxY <= height + 0.5,
                        "\(where_): \(name) \(f) is not inside the safe area")
            }
            for (i, a) in parts.enumerated() {
                for b in parts[(i + 1)...] {
                    #expect(!a.1.intersects(b.1), "\(where_): \(a.0) \(a.1) overlaps \(b.0) \(b.1)")
                }
            }
            // The small target keeps its physical size whatever the screen.
            let mm = info.pointsPerMillimetre
            #expect(abs(s.target.frame.width - max(16, 5 * mm)) < 1e-9)
        }
    }
}
