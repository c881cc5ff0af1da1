import Testing
@testable import KioskUI
@testable import KioskCore

@Suite struct AnimationTests {
    @Test func propertiesAnimateOnTheFrameClockAndCompleteOnce() {
        let h = Harness()
        let v = View(frame: Rect(x: 0, y: 0, width: 10, height: 10))
        h.root.addSubview(v)
        h.frame()
        var completions: [Bool] = []
        View.animate(duration: 1, curve: .linear, animations: {
            v.center = Point(x: 105, y: 5)
            v.alpha = 0
        }, completion: { completions.append($0) })
        #expect(v.center == Point(x: 105, y: 5)) // the model value is final at once
        #expect(h.root.isAnimating)
        h.frame(advance: 0.5)
        #expect(approx(v.presentation.center.x, 55) && approx(v.presentation.alpha, 0.5))
        h.frame(advance: 0.6)
        #expect(v.presentation.center == Point(x: 105, y: 5))
        #expect(completions == [true])
        #expect(!h.root.isAnimating)
        #expect(h.frame(advance: 1).isEmpty) // no animation → nothing to draw
    }

    @Test func aNewAnimationStartsFromWhereTheOldOneIsOnScreen() {
        let h = Harness()
        let v = View(frame: Rect(x: 0, y: 0, width: 10, height: 10))
        h.root.addSubview(v)
        var first: [Bool] = [], second: [Bool] = []
        View.animate(duration: 1, curve: .linear, animations: { v.center = Point(x: 105, y: 5) }, completion: { first.append($0) })
        h.frame(advance: 0.5) // on screen at x = 55
        View.animate(duration: 1, curve: .linear, animations: { v.center = Point(x: 5, y: 5) }, completion: { second.append($0) })
        #expect(first == [false]) // interrupted, told once
        #expect(approx(v.presentation.center.x, 55))
        h.frame(advance: 0.5)
        #expect(approx(v.presentation.center.x, 30))
        h.frame(advance: 0.6)
        #expect(second == [true] && first == [false])
    }

    @Test func settingAPropertyOutsideAnAnimationStopsIt() {
        let h = Harness()
        let v = View(frame: Rect(x: 0, y: 0, width: 10, height: 10))
        h.root.addSubview(v)
        var done: [Bool] = []
        View.animate(duration: 1, animations: { v.alpha = 0 }, completion: { done.append($0) })
        h.frame(advance: 0.2)
        v.alpha = 1
        #expect(done == [false] && v.presentation.alpha == 1 && !h.root.isAnimating)
    }

    @Test func delayAndCurves() {
        #expect(AnimationCurve.linear.value(0.25) == 0.25)
        #expect(AnimationCurve.easeInOut.value(0.5) == 0.5 && AnimationCurve.easeInOut.value(0.1) < 0.1)
        #expect(AnimationCurve.easeIn.value(1) == 1 && AnimationCurve.easeOut.value(0) == 0)
        let bouncy = AnimationCurve.spring(damping: 0.4)
        let samples = stride(from: 0.0, through: 1.0, by: 0.01).map { bouncy.value($0) }
        #expect(samples.max()! > 1.05) // overshoots
        #expect(bouncy.value(1) == 1)
        #expect(AnimationCurve.spring(damping: 1).value(0.5) <= 1)

        let h = Harness()
        let v = View(frame: Rect(x: 0, y: 0, width: 10, height: 10))
        h.root.addSubview(v)
        View.animate(duration: 1, delay: 0.5, curve: .linear, animations: { v.center = Point(x: 105, y: 5) })
        h.frame(advance: 0.4)
        #expect(v.presentation.center.x == 5)
        h.frame(advance: 0.6) // t = 1.0: halfway
        #expect(approx(v.presentation.center.x, 55))
    }

    @Test func colourAndBoundsAnimate() {
        let h = Harness()
        let v = View(frame: Rect(x: 0, y: 0, width: 100, height: 100))
        v.backgroundColor = Color(red: 1, green: 0, blue: 0)
        h.root.addSubview(v)
        View.animate(duration: 1, curve: .linear, animations: {
            v.backgroundColor = Color(red: 0, green: 0, blue: 1)
            v.bounds = Rect(x: 0, y: 0, width: 200, height: 50)
        })
        h.frame(advance: 0.5)
        #expect(approx(v.presentation.backgroundColor!.red, 0.5) && approx(v.presentation.size.width, 150))
        #expect(v.bounds.size == Size(width: 200, height: 50))
    }

    @Test func animatingAViewNotOnScreenCompletesAtOnce() {
        let v = View()
        var done: [Bool] = []
        View.animate(duration: 1, animations: { v.alpha = 0.2 }, completion: { done.append($0) })
        #expect(done == [true] && v.presentation.alpha == 0.2)
    }
}
