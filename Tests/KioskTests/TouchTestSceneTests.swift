import Testing
@testable import Kiosk
@testable import KioskScenes
@testable import KioskCore

@Suite struct TouchTestModelTests {
    @Test func fingersComeAndGoWithFadingTrails() {
        var m = TouchTestModel()
        m.apply(TouchBatch(time: 0, points: [touch(0, .began, 10, 10), touch(1, .began, 50, 50)]))
        #expect(m.touchCount == 2 && m.totalTouches == 2)
        m.apply(TouchBatch(time: 0.1, points: [touch(0, .moved, 30, 10)]))
        #expect(m.fingers.first { $0.id == 0 }?.trail.count == 2)
        #expect(m.hasLiveTrails)
        m.apply(TouchBatch(time: 0.2, points: [touch(0, .ended, 30, 10)]))
        #expect(m.touchCount == 1 && m.fading.count == 1)
        m.prune(at: 0.2 + TouchTestModel.trailDuration + 0.01)
        #expect(m.fading.isEmpty)
    }

    @Test func cancelledTouchesLeaveNothingBehind() {
        var m = TouchTestModel()
        m.apply(TouchBatch(time: 0, points: [touch(0, .began, 10, 10)]))
        m.apply(TouchBatch(time: 0.05, points: [touch(0, .moved, 40, 10)]))
        m.apply(TouchBatch(time: 0.1, points: [touch(0, .cancelled, 40, 10)]))
        #expect(m.touchCount == 0 && m.fading.isEmpty && m.cancelledBatches == 1)
    }

    @Test func tinyMovesDoNotGrowTheTrail() {
        var m = TouchTestModel()
        m.apply(TouchBatch(time: 0, points: [touch(0, .began, 10, 10)]))
        m.apply(TouchBatch(time: 0.1, points: [touch(0, .moved, 10.5, 10)]))
        #expect(m.fingers[0].trail.count == 1)
        #expect(!m.hasLiveTrails)
    }

    @Test func eventsForUnknownFingersAreIgnored() {
        var m = TouchTestModel()
        m.apply(TouchBatch(time: 0, points: [touch(7, .moved, 1, 1), touch(7, .ended, 1, 1)]))
        #expect(m.touchCount == 0 && m.fading.isEmpty && m.totalTouches == 0)
    }
}

@Suite struct DamageTests {
    func renderer(_ w: Double = 1920, _ h: Double = 1080, scale: Int = 1) throws -> HeadlessRenderer {
        try HeadlessRenderer(scene: TouchTestScene(fonts: testFonts), info: DisplayInfo(size: Size(width: w, height: h), scale: scale))
    }

    @Test func firstFrameIsFullAndAnUnchangedFrameDamagesNothing() throws {
        let r = try renderer()
        #expect(r.renderFrame().area == 1920 * 1080)
        r.clock.advance(by: 1)
        #expect(r.renderFrame().isEmpty)
        #expect(!r.stage.scene.needsFrame)
    }

    @Test func aMovingFingerDamagesOnlyAroundItself() throws {
        let r = try renderer()
        let scene = r.stage.scene
        r.renderFrame()
        scene.handle(TouchBatch(time: 0, points: [touch(0, .began, 800, 600)]))
        _ = r.renderFrame()
        r.clock.advance(by: 1) // let everything settle
        r.renderFrame()
        scene.handle(TouchBatch(time: r.clock.now, points: [touch(0, .moved, 820, 600)]))
        let d = r.renderFrame()
        let e = d.extents
        #expect(d.area > 0 && d.area < 20_000, "damage \(d)")
        #expect(e.x > 700 && e.x + e.width < 920 && e.y > 500 && e.y + e.height < 700, "damage \(d)")
        // The counter text did not change, so it is not repainted.
        #expect(!d.intersects(PixelRect(x: 32, y: 120, width: 300, height: 40)))
    }

    @Test func aNewFingerRepaintsTheCounterLine() throws {
        let r = try renderer()
        r.renderFrame()
        r.stage.scene.handle(TouchBatch(time: 0, points: [touch(0, .began, 1500, 900)]))
        let d = r.renderFrame()
        #expect(d.intersects(PixelRect(x: 40, y: 140, width: 100, height: 20)))
        #expect(d.area < 1920 * 1080 / 10)
    }

    @Test func trailsAnimateAndThenStop() throws {
        let r = try renderer()
        let scene = r.stage.scene
        r.renderFrame()
        scene.handle(TouchBatch(time: r.clock.now, points: [touch(0, .began, 400, 400)]))
        for i in 1...10 {
            r.clock.advance(by: 1.0 / 60)
            scene.handle(TouchBatch(time: r.clock.now, points: [touch(0, .moved, 400 + Double(i) * 10, 400)]))
            r.renderFrame()
        }
        scene.handle(TouchBatch(time: r.clock.now, points: [touch(0, .ended, 500, 400)]))
        #expect(scene.needsFrame)
        r.clock.advance(by: 0.2)
        #expect(!r.renderFrame().isEmpty) // the fading trail repaints
        r.clock.advance(by: 1)
        r.renderFrame()
        #expect(!scene.needsFrame)
        r.clock.advance(by: 1)
        #expect(r.renderFrame().isEmpty)
    }

    @Test func relayoutKeepsFingersAndRepaintsEverything() throws {
        let r = try renderer()
        r.renderFrame()
        r.stage.scene.handle(TouchBatch(time: 0, points: [touch(3, .began, 100, 100)]))
        r.renderFrame()
        r.stage.relayout(DisplayInfo(size: Size(width: 1080, height: 1920)))
        r.stage.advance(to: 0)
        #expect(r.stage.takeDamage().area == 1080 * 1920)
        #expect((r.stage.scene as! TouchTestScene).model.touchCount == 1)
    }
}
