import Testing
@testable import KioskUI
@testable import KioskCore
#if canImport(Glibc)
import Glibc
#endif

/// A full-screen target view carrying the recognizers under test.
private func setup(_ recognizers: GestureRecognizer...) -> (Harness, RecordingView) {
    let h = Harness()
    let v = RecordingView(frame: Rect(x: 0, y: 0, width: 800, height: 600))
    v.isMultipleTouchEnabled = true
    h.root.addSubview(v)
    for r in recognizers { v.addGestureRecognizer(r) }
    return (h, v)
}

@Suite struct TapGestureTests {
    @Test func aTapIsRecognizedOnLift() {
        var fired = 0
        let tap = TapGestureRecognizer { _ in fired += 1 }
        let (h, _) = setup(tap)
        h.down(1, 100, 100)
        #expect(fired == 0 && tap.state == .possible)
        h.up(1, 102, 101, dt: 0.1)
        #expect(fired == 1)
        #expect(tap.state == .possible) // reset for the next gesture
    }

    @Test func movingPastTheSlopFailsATap() {
        var fired = 0
        let tap = TapGestureRecognizer { _ in fired += 1 }
        let (h, _) = setup(tap)
        h.down(1, 100, 100)
        h.move(1, 115, 100, dt: 0.05)
        h.up(1, 115, 100, dt: 0.05)
        #expect(fired == 0)
    }

    @Test func singleTapWaitsForDoubleTapToFail() {
        var events: [String] = []
        let single = TapGestureRecognizer { _ in events.append("single") }
        let double = TapGestureRecognizer { _ in events.append("double") }
        double.numberOfTapsRequired = 2
        single.require(toFail: double)
        let (h, _) = setup(single, double)
        // A double tap: only "double".
        h.down(1, 100, 100); h.up(1, 100, 100, dt: 0.08)
        #expect(events.isEmpty) // single is waiting
        h.down(1, 101, 100, dt: 0.1); h.up(1, 101, 100, dt: 0.08)
        #expect(events == ["double"])
        h.wait(1)
        #expect(events == ["double"])
        // A single tap: "single", once the double-tap window has passed.
        h.down(1, 300, 300, dt: 1); h.up(1, 300, 300, dt: 0.08)
        #expect(events == ["double"])
        h.wait(0.31)
        #expect(events == ["double", "single"])
    }

    @Test func twoFingerTapNeedsBothFingers() {
        var fired = 0
        let tap = TapGestureRecognizer { _ in fired += 1 }
        tap.numberOfTouchesRequired = 2
        let (h, _) = setup(tap)
        h.down(1, 100, 100); h.up(1, 100, 100, dt: 0.05)
        #expect(fired == 0)
        h.touches([touch(1, .began, 100, 100), touch(2, .began, 150, 100)], dt: 1)
        h.touches([touch(1, .ended, 100, 100), touch(2, .ended, 150, 100)], dt: 0.05)
        #expect(fired == 1)
    }
}

@Suite struct LongPressGestureTests {
    @Test func beginsAfterHoldingAndEndsOnLift() {
        var states: [GestureRecognizer.State] = []
        let lp = LongPressGestureRecognizer { states.append($0.state) }
        let (h, _) = setup(lp)
        h.down(1, 100, 100)
        h.wait(0.49)
        #expect(states.isEmpty)
        h.wait(0.02)
        #expect(states == [.began])
        h.move(1, 140, 100, dt: 0.1)  // may move freely once begun
        h.up(1, 140, 100, dt: 0.1)
        #expect(states == [.began, .changed, .ended])
    }

    @Test func movingBeforeTheDurationFails() {
        var states: [GestureRecognizer.State] = []
        let lp = LongPressGestureRecognizer { states.append($0.state) }
        let (h, _) = setup(lp)
        h.down(1, 100, 100)
        h.move(1, 115, 100, dt: 0.2)
        h.wait(1)
        #expect(states.isEmpty)
    }

    @Test func cancelMidGestureReportsCancelled() {
        var states: [GestureRecognizer.State] = []
        let lp = LongPressGestureRecognizer { states.append($0.state) }
        let (h, _) = setup(lp)
        h.down(1, 100, 100)
        h.wait(0.6)
        h.cancel(1, 100, 100)
        #expect(states == [.began, .cancelled])
        #expect(lp.state == .possible)
    }
}

@Suite struct ScreenEdgePanGestureTests {
    /// 800 pt wide at 96 dpi: the 6 mm edge zone is 22.7 pt, 30 mm of travel 113 pt.
    @Test func aFingerFromTheEdgeBeginsAfterTravellingInwards() {
        var states: [GestureRecognizer.State] = []
        let pan = ScreenEdgePanGestureRecognizer(edge: .right) { states.append($0.state) }
        let (h, view) = setup(pan)
        h.down(1, 795, 300)
        for i in 1...5 { h.move(1, 795 - Double(i) * 20, 305, dt: 0.016) }
        #expect(states.isEmpty) // 100 pt: not yet
        h.move(1, 675, 310, dt: 0.016)
        #expect(states == [.began] && pan.travel == 120)
        h.up(1, 670, 310, dt: 0.016)
        #expect(states == [.began, .ended])
        #expect(view.log == ["began 1", "moved", "moved", "moved", "moved", "moved", "cancelled"])
    }

    @Test func elsewhereItSeesNothingAndASteepStrokeDoesNotCount() {
        var fired = 0
        let pan = ScreenEdgePanGestureRecognizer(edge: .left) { _ in fired += 1 }
        let (h, _) = setup(pan)
        // Starts 30 pt in: not from the edge, so not the recognizer's at all.
        h.down(1, 30, 300)
        h.move(1, 250, 300, dt: 0.05)
        h.up(1, 250, 300, dt: 0.05)
        #expect(fired == 0 && pan.numberOfTouches == 0)
        // From the edge, but as much down as across.
        h.down(2, 5, 100, dt: 1)
        h.move(2, 125, 200, dt: 0.05)
        h.up(2, 125, 200, dt: 0.05)
        #expect(fired == 0)
    }
}

@Suite struct ShouldReceiveTests {
    @Test func aRefusedTouchIsNeitherTrackedNorAbleToFailTheRecognizer() {
        var states: [GestureRecognizer.State] = []
        let lp = LongPressGestureRecognizer { states.append($0.state) }
        lp.numberOfTouchesRequired = 2
        lp.shouldReceive = { $0.location(in: nil).x < 400 }
        let (h, _) = setup(lp)
        // Two fingers on the left half, a third on the right moving about: still a long press.
        h.touches([touch(1, .began, 100, 100), touch(2, .began, 150, 100), touch(3, .began, 600, 100)])
        h.move(3, 700, 300, dt: 0.1)
        #expect(lp.numberOfTouches == 2)
        h.wait(0.5)
        #expect(states == [.began])
    }
}

@Suite struct PanGestureTests {
    @Test func beginsPastTheSlopAndReportsTranslation() {
        var translations: [Point] = []
        var states: [GestureRecognizer.State] = []
        let pan = PanGestureRecognizer()
        pan.addTarget { r in states.append(r.state); translations.append(r.translation(in: nil)) }
        let (h, view) = setup(pan)
        h.down(1, 100, 100)
        h.move(1, 106, 100, dt: 0.016)
        #expect(states.isEmpty) // within the slop
        h.move(1, 120, 100, dt: 0.016)
        h.move(1, 140, 110, dt: 0.016)
        h.up(1, 140, 110, dt: 0.016)
        #expect(states == [.began, .changed, .ended])
        #expect(translations.last == Point(x: 40, y: 10))
        // The view's touch was cancelled when the pan took it over.
        #expect(view.log == ["began 1", "moved", "cancelled"])
    }

    @Test func velocityIsMeasured() {
        let pan = PanGestureRecognizer()
        var v = Point.zero
        pan.addTarget { v = $0.velocity(in: nil) }
        let (h, _) = setup(pan)
        h.down(1, 100, 100)
        for i in 1...6 { h.move(1, 100 + Double(i) * 10, 100, dt: 0.01) } // 1000 pt/s
        #expect(abs(v.x - 1000) < 1 && abs(v.y) < 1e-9)
    }

    @Test func millimetreThresholdsFollowThePanel() {
        // A 10 mm slop on a 1920 px / 200 mm panel is 96 points.
        let h = Harness(width: 1920, height: 1080, physical: Size(width: 200, height: 112.5))
        let pan = PanGestureRecognizer()
        pan.minimumDistance = .millimetres(10)
        var began = false
        pan.addTarget { if $0.state == .began { began = true } }
        let v = View(frame: Rect(x: 0, y: 0, width: 1920, height: 1080))
        h.root.addSubview(v); v.addGestureRecognizer(pan)
        h.down(1, 100, 100)
        h.move(1, 190, 100, dt: 0.016)
        #expect(!began)
        h.move(1, 197, 100, dt: 0.016)
        #expect(began)
    }
}

@Suite struct SwipePinchRotationTests {
    @Test func aQuickStrokeRightIsASwipe() {
        var dirs: [SwipeGestureRecognizer.Direction] = []
        let swipe = SwipeGestureRecognizer { dirs.append($0.recognizedDirection) }
        swipe.direction = [.right, .left]
        let (h, _) = setup(swipe)
        h.down(1, 100, 300)
        for i in 1...5 { h.move(1, 100 + Double(i) * 20, 302, dt: 0.02) }
        h.up(1, 200, 302, dt: 0.02)
        #expect(dirs == [.right])
        // Slow: not a swipe.
        h.down(1, 100, 300, dt: 1)
        for i in 1...5 { h.move(1, 100 - Double(i) * 12, 300, dt: 0.1) }
        h.up(1, 40, 300, dt: 0.02)
        #expect(dirs == [.right])
        // Wrong direction: not recognized.
        h.down(1, 100, 300, dt: 1)
        for i in 1...5 { h.move(1, 100, 300 + Double(i) * 20, dt: 0.02) }
        h.up(1, 100, 400, dt: 0.02)
        #expect(dirs == [.right])
    }

    @Test func pinchAndRotateTogether() {
        let pinch = PinchGestureRecognizer()
        let rotate = RotationGestureRecognizer()
        pinch.recognizesSimultaneously = { $0 === rotate }
        var lastScale = 1.0, lastRotation = 0.0
        pinch.addTarget { lastScale = $0.scale }
        rotate.addTarget { lastRotation = $0.rotation }
        let (h, _) = setup(pinch, rotate)
        h.touches([touch(1, .began, 300, 300), touch(2, .began, 400, 300)])
        // Spread to twice the distance while turning a quarter turn about the midpoint.
        for i in 1...10 {
            let f = Double(i) / 10, a = f * .pi / 2, r = 50 * (1 + f)
            h.touches([touch(1, .moved, 350 - r * cos(a), 300 - r * sin(a)), touch(2, .moved, 350 + r * cos(a), 300 + r * sin(a))], dt: 0.016)
        }
        #expect(approx(lastScale, 2, 1e-6))
        #expect(approx(lastRotation, .pi / 2, 1e-6))
        #expect(pinch.state == .changed && rotate.state == .changed)
        h.touches([touch(1, .ended, 0, 0), touch(2, .ended, 0, 0)], dt: 0.016)
        #expect(pinch.state == .possible && rotate.state == .possible)
    }

    @Test func exclusiveRecognizersDoNotBothWin() {
        var pans = 0, swipes = 0
        let pan = PanGestureRecognizer { if $0.state == .began { pans += 1 } }
        let swipe = SwipeGestureRecognizer { _ in swipes += 1 }
        let (h, _) = setup(pan, swipe)
        h.down(1, 100, 300)
        for i in 1...5 { h.move(1, 100 + Double(i) * 20, 300, dt: 0.02) }
        h.up(1, 200, 300, dt: 0.02)
        #expect(pans + swipes == 1)
    }

    @Test func touchIdReuseStartsAFreshGesture() {
        var taps = 0
        let tap = TapGestureRecognizer { _ in taps += 1 }
        let (h, _) = setup(tap)
        for i in 0..<3 {
            h.down(7, 100 + Double(i) * 200, 100, dt: 1)
            h.up(7, 100 + Double(i) * 200, 100, dt: 0.05)
        }
        #expect(taps == 3)
    }
}

/// Touches carry their own time (`TouchBatch.time`, as `UITouch.timestamp`): a rig that never
/// moves the clock delivers them, and every recognizer goes by the touches' times.
@Suite struct TouchesAreTimedByTheirOwnTimestampsTests {
    /// Delivers `points` stamped `time`, the clock left where it is.
    private func at(_ h: Harness, _ time: Double, _ points: TouchPoint...) {
        h.root.handle(TouchBatch(time: time, points: points))
    }

    @Test func tapCountsFollowTheTouchesTimes() {
        let (h, v) = setup()
        var counts: [Int] = []
        final class Counter: View {
            var onDown: ((Int) -> Void)?
            override func touchesBegan(_ t: Set<Touch>, event: TouchEvent) { onDown?(t.first!.tapCount) }
        }
        let c = Counter(frame: v.frame)
        c.onDown = { counts.append($0) }
        h.root.addSubview(c)
        // Two taps 0.2 s apart by their stamps, then one 2 s later: 1, 2, then 1 again.
        at(h, 10.0, touch(1, .began, 100, 100)); at(h, 10.05, touch(1, .ended, 100, 100))
        at(h, 10.2, touch(2, .began, 101, 100)); at(h, 10.25, touch(2, .ended, 101, 100))
        at(h, 12.25, touch(3, .began, 101, 100)); at(h, 12.3, touch(3, .ended, 101, 100))
        #expect(counts == [1, 2, 1])
        #expect(h.time == 0)
    }

    @Test func aDoubleTapIsTwoTapsCloseInTheirOwnTime() {
        var fired = 0
        let double = TapGestureRecognizer { _ in fired += 1 }
        double.numberOfTapsRequired = 2
        let (h, _) = setup(double)
        at(h, 5.0, touch(1, .began, 100, 100)); at(h, 5.05, touch(1, .ended, 100, 100))
        // Stamped 1.5 s later, though handled before any timer ran: not a double tap.
        at(h, 6.55, touch(2, .began, 100, 100)); at(h, 6.6, touch(2, .ended, 100, 100))
        #expect(fired == 0)
        // A fresh pair, 0.15 s apart by their stamps.
        at(h, 8.0, touch(3, .began, 100, 100)); at(h, 8.05, touch(3, .ended, 100, 100))
        at(h, 8.2, touch(4, .began, 100, 100)); at(h, 8.25, touch(4, .ended, 100, 100))
        #expect(fired == 1)
    }

    @Test func velocitiesAndSwipesFollowTheTouchesTimes() {
        let pan = PanGestureRecognizer()
        var velocity = Point.zero
        pan.addTarget { r in if r.state == .changed { velocity = r.velocity(in: nil) } }
        let (h, _) = setup(pan)
        // 200 pt in 0.1 s by the stamps, all handled at one clock time.
        at(h, 30.0, touch(1, .began, 100, 300))
        for i in 1...5 { at(h, 30.0 + 0.02 * Double(i), touch(1, .moved, 100 + 40 * Double(i), 300)) }
        #expect(abs(velocity.x - 2000) < 1)
        at(h, 30.1, touch(1, .ended, 300, 300))

        var swiped = 0
        let swipe = SwipeGestureRecognizer { _ in swiped += 1 }
        let (h2, _) = setup(swipe)
        // The same stroke stamped over 2 s is a slow drag, not a swipe.
        at(h2, 40.0, touch(1, .began, 100, 300))
        for i in 1...4 { at(h2, 40.0 + 0.5 * Double(i), touch(1, .moved, 100 + 80 * Double(i), 300)) }
        at(h2, 42.0, touch(1, .ended, 420, 300))
        #expect(swiped == 0)
        at(h2, 50.0, touch(2, .began, 100, 300))
        for i in 1...4 { at(h2, 50.0 + 0.025 * Double(i), touch(2, .moved, 100 + 80 * Double(i), 300)) }
        at(h2, 50.1, touch(2, .ended, 420, 300))
        #expect(swiped == 1)
    }

    @Test func aLongPressHeldLongEnoughByItsStampsBeginsThoughNoTimerRan() {
        var states: [GestureRecognizer.State] = []
        let press = LongPressGestureRecognizer { states.append($0.state) }
        let (h, _) = setup(press)
        at(h, 1.0, touch(1, .began, 100, 100))
        at(h, 1.7, touch(1, .ended, 100, 100))
        #expect(states == [.began, .ended])
    }
}
