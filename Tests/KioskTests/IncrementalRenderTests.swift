import Testing
@testable import Kiosk
@testable import KioskScenes
@testable import KioskRender
@testable import KioskCore
#if canImport(Glibc)
import Glibc
#endif

/// A window repaints only damage, each buffer catching up on what it missed. Every frame drawn
/// that way must equal the same frame drawn whole: a pixel that differs is one a compositor
/// reading whole buffers (wlroots) shows stale or flickering between buffers.
@Suite struct IncrementalRenderTests {
    /// The first differing pixel between what the renderer's buffer holds and a whole redraw.
    static func firstDifference(_ r: HeadlessRenderer) -> String? {
        let px = r.image.pixelSize
        guard let whole = Image(pixelSize: px, hasAlpha: false, scale: r.stage.info.scale) else { return "no image" }
        r.stage.draw(in: Canvas(image: whole))
        var rows: [UnsafeMutableBufferPointer<UInt32>] = []
        whole.withRows { _, row in rows.append(row) }
        var found: String?
        r.image.withRows { y, row in
            guard found == nil, memcmp(row.baseAddress!, rows[y].baseAddress!, row.count * 4) != 0 else { return }
            // The unused byte of an XRGB pixel may differ; only colour counts.
            for x in 0..<row.count where (row[x] ^ rows[y][x]) & 0x00ff_ffff != 0 {
                found = "at \(x),\(y): \(String(row[x] & 0xffffff, radix: 16)) vs whole \(String(rows[y][x] & 0xffffff, radix: 16))"
                return
            }
        }
        return withExtendedLifetime(whole) { found }
    }

    /// Renders frames at 60 Hz and counts those that differ from a whole redraw.
    final class FrameChecker {
        let renderer: HeadlessRenderer
        var frames = 0, differing = 0
        var first: String?
        init(_ r: HeadlessRenderer) { renderer = r }
        /// One frame, 1/60 s on; `label` names it in the first difference found.
        func frame(_ label: String = "") {
            renderer.clock.advance(by: 1.0 / 60)
            renderer.renderFrame()
            frames += 1
            if let d = IncrementalRenderTests.firstDifference(renderer) {
                differing += 1
                if first == nil { first = "\(label)frame \(frames) \(d)" }
            }
        }
        func run(_ seconds: Double) {
            let end = renderer.clock.now + seconds
            while renderer.clock.now + 1e-9 < end { frame() }
        }
        var summary: String { "\(differing) of \(frames) frames differ from a whole redraw, first: \(first ?? "")" }
    }

    // A size whose tile grid lands on fractional positions, at 1× and 2×.
    @Test(arguments: [1, 2]) func tilesSlidingShrinkingAndGrowingLeaveNoStalePixel(scale: Int) throws {
        let fonts = FontCache()
        let scene = try #require(SceneCatalog.make("tiles", fonts: fonts) as? TileBoardScene)
        let r = try HeadlessRenderer(scene: scene, info: DisplayInfo(size: Size(width: 1366, height: 768), scale: scale))
        r.renderFrame()
        let check = FrameChecker(r)
        let run = check.run
        func tap(_ p: Point) {
            scene.handle(TouchBatch(time: r.clock.now, points: [TouchPoint(id: 1, phase: .began, location: p)]))
            run(0.05)
            scene.handle(TouchBatch(time: r.clock.now, points: [TouchPoint(id: 1, phase: .ended, location: p)]))
            run(0.35) // past the double-tap window
        }
        for i in [0, 3] { tap(scene.board.convert(scene.tileFrame(index: i).center, to: nil)) }
        tap(scene.removeButton.convert(Point(x: 10, y: 10), to: nil)) // the rest slide into the gaps
        run(0.6)
        // Remove most: the rest grow to fill the board (a layer stretched past its pixels).
        for i in [1, 2, 4, 5, 6, 7, 9, 11, 12, 13, 14] { tap(scene.board.convert(scene.tileFrame(index: i).center, to: nil)) }
        tap(scene.removeButton.convert(Point(x: 10, y: 10), to: nil))
        run(0.6)
        tap(scene.refillButton.convert(Point(x: 10, y: 10), to: nil)) // new tiles grow in, the rest shrink
        run(0.6)
        #expect(check.frames > 60)
        #expect(check.differing == 0, "\(check.summary)")
    }

    // Relayouts (a configure storm, a rotation) one after another while the tiles are still
    // sliding and resizing to the last one's grid: each size then runs a few frames.
    @Test func tilesRelayingOutMidAnimationLeaveNoStalePixel() throws {
        let fonts = FontCache()
        let shell = Shell.make(SceneMaking(fonts: fonts), names: SceneCatalog.standard.benchScenes, start: "tiles", home: "tiles")
        let r = try HeadlessRenderer(scene: shell, info: DisplayInfo(size: Size(width: 800, height: 600), scale: 1))
        r.renderFrame()
        let check = FrameChecker(r)
        var sizes: [(Double, Double)] = [(1920, 1080), (1000, 1700), (1003, 1701), (1500, 900), (801, 481), (1920, 1080)]
        for i in 0..<12 { sizes.insert((800 + 50 * Double(i), 600 + 20 * Double(i)), at: i) }
        for (w, h) in sizes {
            r.stage.relayout(DisplayInfo(size: Size(width: w, height: h), scale: 1))
            for _ in 0..<9 { check.frame("\(w)x\(h) ") }
        }
        #expect(check.differing == 0, "\(check.summary)")
    }

    // Every scene, with fingers dragging and pinching over it and its own animations running.
    // Upright, and turned by the app (frames drawn through a turned canvas).
    @Test(arguments: SceneCatalog.standard.names, [0, 1]) func everySceneRepaintsByDamageExactly(name: String, rotation: Int) throws {
        let fonts = FontCache()
        let scene = try #require(SceneCatalog.make(name, fonts: fonts))
        let r = try HeadlessRenderer(scene: scene, info: DisplayInfo(size: Size(width: 1366, height: 768), scale: 1), rotation: Rotation(quarterTurns: rotation))
        r.renderFrame()
        var differing = 0, first: String?
        for f in 0..<120 {
            let t = Double(f) / 120
            var pts: [TouchPoint] = []
            let phase: TouchPhase = f == 0 ? .began : f == 119 ? .ended : .moved
            pts.append(TouchPoint(id: 1, phase: phase, location: Point(x: 200 + 900 * t, y: 300 + 200 * t)))
            pts.append(TouchPoint(id: 2, phase: phase, location: Point(x: 1100 - 500 * t, y: 600 - 150 * t)))
            scene.handle(TouchBatch(time: r.clock.now, points: pts))
            r.clock.advance(by: 1.0 / 60)
            r.renderFrame()
            if f % 2 == 0, let d = IncrementalRenderTests.firstDifference(r) {
                differing += 1
                if first == nil { first = "frame \(f) \(d)" }
            }
        }
        #expect(differing == 0, "\(name): \(differing) frames differ from a whole redraw, first: \(first ?? "")")
    }
}
