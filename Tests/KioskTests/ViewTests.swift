import Testing
@testable import KioskUI
@testable import KioskCore

@Suite struct ViewGeometryTests {
    @Test func frameCenterAndBoundsAgree() {
        let v = View(frame: Rect(x: 10, y: 20, width: 100, height: 50))
        #expect(v.center == Point(x: 60, y: 45))
        #expect(v.bounds == Rect(x: 0, y: 0, width: 100, height: 50))
        v.center = Point(x: 0, y: 0)
        #expect(v.frame == Rect(x: -50, y: -25, width: 100, height: 50))
        v.transform = AffineTransform(scaleX: 2, y: 2)
        #expect(v.frame == Rect(x: -100, y: -50, width: 200, height: 100)) // bounding box
        v.frame = Rect(x: 0, y: 0, width: 40, height: 40)
        #expect(v.bounds.size == Size(width: 40, height: 40) && v.center == Point(x: 20, y: 20))
    }

    @Test func convertBetweenNestedAndTransformedViews() {
        let h = Harness()
        let a = View(frame: Rect(x: 100, y: 100, width: 200, height: 200))
        let b = View(frame: Rect(x: 50, y: 50, width: 100, height: 100))
        h.root.addSubview(a)
        a.addSubview(b)
        #expect(b.convert(Point(x: 0, y: 0), to: nil) == Point(x: 150, y: 150))
        #expect(b.convert(Point(x: 150, y: 150), from: nil) == .zero)
        #expect(b.convert(Point(x: 10, y: 10), to: a) == Point(x: 60, y: 60))
        a.transform = AffineTransform(rotationAngle: .pi / 2) // about a's centre (200, 200)
        let p = b.convert(Point(x: 0, y: 0), to: nil)
        #expect(approx(p, Point(x: 250, y: 150)), "\(p)")
        #expect(approx(b.convert(p, from: nil), .zero))
        let r = b.convert(Rect(x: 0, y: 0, width: 10, height: 20), to: h.root)
        #expect(approx(r.width, 20) && approx(r.height, 10))
    }

    @Test func subviewOrderingOperations() {
        let p = View()
        let a = View(), b = View(), c = View()
        p.addSubview(a); p.addSubview(b); p.addSubview(c)
        #expect(p.subviews.map { ObjectIdentifier($0) } == [a, b, c].map { ObjectIdentifier($0) })
        p.bringSubviewToFront(a)
        #expect(p.subviews.last === a)
        p.sendSubviewToBack(a)
        #expect(p.subviews.first === a)
        p.insertSubview(c, belowSubview: b)
        #expect(p.subviews.map { ObjectIdentifier($0) } == [a, c, b].map { ObjectIdentifier($0) })
        p.insertSubview(a, aboveSubview: b)
        #expect(p.subviews.map { ObjectIdentifier($0) } == [c, b, a].map { ObjectIdentifier($0) })
        p.exchangeSubview(at: 0, withSubviewAt: 2)
        #expect(p.subviews.map { ObjectIdentifier($0) } == [a, b, c].map { ObjectIdentifier($0) })
        let q = View()
        q.addSubview(b) // moving to another parent removes it from the first
        #expect(p.subviews.count == 2 && b.superview === q)
        b.removeFromSuperview()
        #expect(q.subviews.isEmpty && b.superview == nil)
        p.insertSubview(b, at: 99)
        #expect(p.subviews.last === b)
    }

    @Test func layoutSubviewsRunsWhenTheSizeChanges() {
        final class Counting: View { var n = 0; override func layoutSubviews() { n += 1 } }
        let h = Harness()
        let v = Counting(frame: Rect(x: 0, y: 0, width: 10, height: 10))
        h.root.addSubview(v)
        h.frame()
        let before = v.n
        v.center = Point(x: 50, y: 50)
        h.frame()
        #expect(v.n == before) // moving is not a size change
        v.bounds = Rect(x: 0, y: 0, width: 20, height: 20)
        h.frame()
        #expect(v.n == before + 1)
    }
}

@Suite struct HitTestingTests {
    @Test func frontmostVisibleInteractiveViewWins() {
        let h = Harness()
        let back = View(frame: Rect(x: 0, y: 0, width: 200, height: 200))
        let front = View(frame: Rect(x: 50, y: 50, width: 100, height: 100))
        h.root.addSubview(back); h.root.addSubview(front)
        #expect(h.root.hitTest(Point(x: 60, y: 60)) === front)
        #expect(h.root.hitTest(Point(x: 10, y: 10)) === back)
        front.isHidden = true
        #expect(h.root.hitTest(Point(x: 60, y: 60)) === back)
        front.isHidden = false; front.alpha = 0.005
        #expect(h.root.hitTest(Point(x: 60, y: 60)) === back)
        front.alpha = 1; front.isUserInteractionEnabled = false
        #expect(h.root.hitTest(Point(x: 60, y: 60)) === back)
        #expect(h.root.hitTest(Point(x: 700, y: 500)) === h.root)
    }

    @Test func enlargedHotAreaAndIrregularShapes() {
        final class Circle: View {
            override func point(inside p: Point) -> Bool { p.distance(to: Point(x: bounds.midX, y: bounds.midY)) <= bounds.width / 2 }
        }
        let h = Harness()
        let small = View(frame: Rect(x: 100, y: 100, width: 10, height: 10))
        small.touchDownHitOutset = 10
        h.root.addSubview(small)
        #expect(h.root.hitTest(Point(x: 95, y: 95)) === small)
        #expect(h.root.hitTest(Point(x: 85, y: 85)) === h.root)
        let c = Circle(frame: Rect(x: 300, y: 300, width: 100, height: 100))
        h.root.addSubview(c)
        #expect(h.root.hitTest(Point(x: 350, y: 350)) === c)
        #expect(h.root.hitTest(Point(x: 305, y: 305)) === h.root) // the square's corner is outside
    }

    @Test func hitTestingFollowsTransforms() {
        let h = Harness()
        let v = View(frame: Rect(x: 100, y: 100, width: 200, height: 20))
        h.root.addSubview(v)
        v.transform = AffineTransform(rotationAngle: .pi / 2) // now a vertical bar around (200, 110)
        #expect(h.root.hitTest(Point(x: 200, y: 180)) === v)
        #expect(h.root.hitTest(Point(x: 280, y: 110)) === h.root)
    }
}

@Suite struct TouchDeliveryTests {
    @Test func aTouchStaysWithTheViewItBeganIn() {
        let h = Harness()
        let a = RecordingView(frame: Rect(x: 0, y: 0, width: 100, height: 100))
        let b = RecordingView(frame: Rect(x: 200, y: 0, width: 100, height: 100))
        h.root.addSubview(a); h.root.addSubview(b)
        h.down(1, 50, 50)
        h.move(1, 250, 50) // over b now
        h.up(1, 250, 50)
        #expect(a.log == ["began 1", "moved", "ended"])
        #expect(b.log.isEmpty)
    }

    @Test func twoFingersOnTwoViewsAtOnce() {
        let h = Harness()
        let a = RecordingView(frame: Rect(x: 0, y: 0, width: 100, height: 100))
        let b = RecordingView(frame: Rect(x: 200, y: 0, width: 100, height: 100))
        h.root.addSubview(a); h.root.addSubview(b)
        h.touches([touch(1, .began, 50, 50), touch(2, .began, 250, 50)])
        h.touches([touch(2, .ended, 250, 50)])
        h.touches([touch(1, .cancelled, 50, 50)])
        #expect(a.log == ["began 1", "cancelled"])
        #expect(b.log == ["began 2", "ended"])
    }

    @Test func aSingleTouchViewTakesOnlyItsFirstFinger() {
        let h = Harness()
        let a = RecordingView(frame: Rect(x: 0, y: 0, width: 300, height: 300))
        h.root.addSubview(a)
        h.touches([touch(1, .began, 50, 50), touch(2, .began, 150, 50)])
        #expect(a.log == ["began 1"])
        a.isMultipleTouchEnabled = true
        h.touches([touch(3, .began, 100, 100)])
        #expect(a.log.last == "began 3")
    }

    @Test func unhandledTouchesTravelUpTheResponderChain() {
        let h = Harness()
        let owner = RecordingResponder()
        h.root.owner = owner
        let parent = View(frame: Rect(x: 0, y: 0, width: 300, height: 300))
        let child = RecordingView(frame: Rect(x: 10, y: 10, width: 50, height: 50))
        child.handles = false
        h.root.addSubview(parent); parent.addSubview(child)
        h.down(1, 20, 20)
        h.up(1, 20, 20)
        #expect(child.log == ["began 1", "ended"])
        #expect(owner.log == ["began", "ended"])
    }

    @Test func tapCountCountsQuickTapsInOnePlace() {
        let h = Harness()
        var counts: [Int] = []
        final class Tapper: View {
            var onBegan: (Int) -> Void = { _ in }
            override func touchesBegan(_ t: Set<Touch>, event: TouchEvent) { onBegan(t.first!.tapCount) }
            override func touchesEnded(_ t: Set<Touch>, event: TouchEvent) {}
        }
        let v = Tapper(frame: Rect(x: 0, y: 0, width: 400, height: 400))
        v.onBegan = { counts.append($0) }
        h.root.addSubview(v)
        h.down(1, 100, 100); h.up(1, 100, 100, dt: 0.05)
        h.down(1, 104, 103, dt: 0.1); h.up(1, 104, 103, dt: 0.05)   // same id reused: a new Touch
        h.down(1, 104, 103, dt: 0.1); h.up(1, 104, 103, dt: 0.05)
        h.down(1, 104, 103, dt: 0.5); h.up(1, 104, 103, dt: 0.05)   // too late
        h.down(1, 200, 200, dt: 0.1); h.up(1, 200, 200, dt: 0.05)   // too far
        #expect(counts == [1, 2, 3, 1, 1])
    }

    @Test func touchLocationsConvertIntoViews() {
        let h = Harness()
        var seen: [Point] = []
        final class Where: View {
            var record: (Touch) -> Void = { _ in }
            override func touchesMoved(_ t: Set<Touch>, event: TouchEvent) { record(t.first!) }
            override func touchesBegan(_ t: Set<Touch>, event: TouchEvent) {}
        }
        let v = Where(frame: Rect(x: 100, y: 100, width: 100, height: 100))
        v.record = { seen.append($0.location(in: v)); seen.append($0.previousLocation(in: v)) }
        h.root.addSubview(v)
        h.down(1, 110, 120)
        h.move(1, 130, 140)
        #expect(seen == [Point(x: 30, y: 40), Point(x: 10, y: 20)])
    }
}

@Suite struct CompositingDamageTests {
    @Test func anUnchangedFrameDamagesNothing() {
        let h = Harness()
        h.root.addSubview(RecordingView(frame: Rect(x: 10, y: 10, width: 50, height: 50)))
        #expect(h.frame().area == 800 * 600)
        #expect(h.frame().isEmpty)
    }

    @Test func aViewChangedInOneRootThenMovedIntoAnotherStillDamagesThere() {
        // A scene's view changes in its own root, then the shell's window shows it.
        let scene = Harness(), window = Harness()
        let v = RecordingView(frame: Rect(x: 100, y: 100, width: 50, height: 50))
        scene.root.addSubview(v)
        scene.frame()
        v.center = Point(x: 200, y: 125) // marked dirty in the scene's root, never flushed there
        window.root.addSubview(v)
        window.frame()
        v.center = Point(x: 400, y: 125)
        let d = window.frame()
        #expect(d.contains(x: 180, y: 110) && d.contains(x: 390, y: 110), "\(d)")
    }

    @Test func aMovedViewDamagesItsOldAndNewRectsOnlyAndIsNotRedrawn() {
        let h = Harness()
        let v = RecordingView(frame: Rect(x: 100, y: 100, width: 50, height: 50))
        h.root.addSubview(v)
        h.frame()
        #expect(v.drawCount == 1)
        v.center = Point(x: 300, y: 125)
        let d = h.frame()
        #expect(d.area == 2 * 50 * 50, "\(d)")
        #expect(d.contains(x: 110, y: 110) && d.contains(x: 290, y: 110) && !d.contains(x: 200, y: 110))
        #expect(v.drawCount == 1) // moved, not redrawn
        #expect(h.rgb(290, 110) == (255, 255, 255) && h.rgb(110, 110) == (0, 0, 0))
        v.alpha = 0.5
        v.transform = AffineTransform(rotationAngle: 0.3)
        h.frame()
        #expect(v.drawCount == 1)
        v.setNeedsDisplay()
        h.frame()
        #expect(v.drawCount == 2)
    }

    @Test func alphaAndPlainBackgroundsComposite() {
        let h = Harness()
        let v = View(frame: Rect(x: 0, y: 0, width: 100, height: 100))
        v.backgroundColor = Color(red: 1, green: 0, blue: 0)
        v.alpha = 0.5
        h.root.addSubview(v)
        h.frame()
        let (r, g, _) = h.rgb(50, 50)
        #expect(abs(r - 128) <= 2 && g == 0)
        let child = View(frame: Rect(x: 0, y: 0, width: 10, height: 10))
        child.backgroundColor = .white
        v.addSubview(child)
        h.frame()
        #expect(abs(h.rgb(5, 5).1 - 128) <= 2) // alpha multiplies down the tree: white at 0.5
    }

    @Test func clipsToBoundsClipsSubviews() {
        let h = Harness()
        let p = View(frame: Rect(x: 100, y: 100, width: 100, height: 100))
        p.clipsToBounds = true
        let c = View(frame: Rect(x: 50, y: 50, width: 200, height: 200))
        c.backgroundColor = .white
        h.root.addSubview(p); p.addSubview(c)
        h.frame()
        #expect(h.rgb(190, 190) == (255, 255, 255))
        #expect(h.rgb(250, 250) == (0, 0, 0))
    }

    @Test func originsSnapToWholePixels() {
        let h = Harness()
        let v = RecordingView(frame: Rect(x: 10.3, y: 10.6, width: 20, height: 20))
        h.root.addSubview(v)
        h.frame()
        // Fully white or black: no half-covered (blurry) edge pixels.
        for x in 8...32 { let c = h.rgb(x, 20).0; #expect(c == 0 || c == 255, "x=\(x): \(c)") }
    }

    @Test func hiddenAndRemovedViewsDamageWhereTheyWere() {
        let h = Harness()
        let v = RecordingView(frame: Rect(x: 100, y: 100, width: 40, height: 40))
        h.root.addSubview(v)
        h.frame()
        v.isHidden = true
        #expect(h.frame().area == 1600)
        v.isHidden = false
        h.frame()
        v.removeFromSuperview()
        #expect(h.frame().area == 1600)
        #expect(h.rgb(110, 110) == (0, 0, 0))
    }
}
