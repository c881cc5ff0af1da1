import Testing
#if canImport(Glibc)
import Glibc
#endif
@testable import Kiosk
@testable import KioskPlatform
@testable import KioskScenes
@testable import KioskUI
@testable import KioskCore
@testable import KioskRender

/// Real panels' recorded patterns and a person's touches, through the path live touches take:
/// the seat's accumulator (wl_touch events, frames), the filter, the shell, with the
/// screensaver's controller and the application's cancel at a change of what shows.
@Suite struct TouchFilterTests {
    final class LivePath {
        let scheduler = ManualScheduler()
        let shell: Shell
        let saver: ScreensaverController
        let filter: TouchFilter
        var seat = TouchAccumulator()
        var ignored: [TouchFilter.Ignored] = []
        var stuck: [Point] = []
        var now: Double { scheduler.now }
        static let panel = Size(width: 800, height: 480)

        init(start: String = "tiles", idle: Double = 30, blank: Double = 0) {
            let fonts = FontCache(), s = scheduler
            shell = Shell.make(SceneMaking(fonts: fonts, scheduler: s), names: SceneCatalog.standard.benchScenes, start: start, home: start)
            saver = ScreensaverController(shell: shell, scheduler: s, idleTimeout: idle, blankDelay: blank)
            filter = TouchFilter(scheduler: s)
            filter.bounds = { Self.panel }
            filter.deliver = { [unowned self] in self.shell.handle($0) }
            filter.onIgnored = { [unowned self] in self.ignored.append($0) }
            filter.onStuck = { [unowned self] in self.stuck.append($0) }
            // As the application does: a change of what shows ends the fingers down across it.
            shell.showingChanged.add { [unowned self] _ in
                let change = self.scheduler.now
                self.scheduler.schedule(after: 0) { self.filter.cancelAll(beganBefore: change, at: self.scheduler.now) }
            }
            shell.layout(DisplayInfo(size: Self.panel))
            shell.advance(to: 0)
        }

        func at(_ t: Double) {
            // Frames at 60 Hz up to t, as the live loop draws them.
            var f = now
            while f + 1.0 / 60 < t { f += 1.0 / 60; scheduler.advance(to: f); shell.advance(to: f) }
            scheduler.advance(to: t)
            shell.advance(to: t)
        }
        private func frame() { if let b = seat.frame() { filter.handle(b) } }
        func down(_ id: Int32, _ p: Point, at t: Double) { at(t); seat.down(id: id, at: p, time: t); frame() }
        func move(_ id: Int32, _ p: Point, at t: Double) { at(t); seat.motion(id: id, to: p, time: t); frame() }
        func up(_ id: Int32, at t: Double) { at(t); _ = seat.up(id: id, time: t); frame() }
        /// A person's tap: down, 80 ms, up (the booted tests' finger).
        func tap(_ p: Point, at t: Double, lasting d: Double = 0.08, id: Int32 = 1) {
            down(id, p, at: t)
            up(id, at: t + d)
        }
        /// Touch Display 2's phantom: down and up at one timestamp, in one frame or in two.
        func phantom(_ p: Point, at t: Double, frames: Int = 1) {
            at(t)
            seat.down(id: 7, at: p, time: t)
            if frames == 2 { frame() }
            _ = seat.up(id: 7, time: t)
            frame()
        }
        var tiles: TileBoardScene { shell.current as! TileBoardScene }
        func landerAndItsEngineButton() -> (LanderScene, Point) {
            let lander = shell.current as! LanderScene
            let b = lander.pad.buttons[ControlPad.Role.fire.rawValue]
            return (lander, b.convert(Point(x: b.bounds.midX, y: b.bounds.midY), to: nil))
        }
        func tileCentre(_ i: Int) -> Point { tiles.board.convert(tiles.tileFrame(index: i).center, to: nil) }
    }

    // MARK: Touch Display 2: a zero-duration tap every 12.864 s

    @Test(arguments: [1, 2]) func touchDisplay2sPhantomTapsNeitherSelectNorKeepTheScreensaverAway(frames: Int) {
        let r = LivePath(idle: 30)
        let spot = r.tileCentre(0)
        var t = 1.0
        while t < 81 {
            r.phantom(spot, at: t, frames: frames)
            t += 12.864
        }
        r.at(81)
        #expect(r.tiles.model.selectedIDs.isEmpty, "a phantom selected the tile under it")
        #expect(r.shell.showing == .screensaver, "the screensaver never started")
        #expect(r.ignored.count == 7 && r.ignored.allSatisfy { $0.rule == .noDuration || $0.rule == .beat })
        // A person's tap wakes the scene (pressing nothing); the next selects the tile.
        r.tap(spot, at: 82)
        r.at(83)
        #expect(r.shell.showing == .scene && r.tiles.model.selectedIDs.isEmpty)
        r.tap(r.tileCentre(0), at: 84)
        r.at(85)
        #expect(r.tiles.model.selectedIDs == [0])
    }

    @Test func atNightPhantomTapsLeaveThePanelBlack() {
        let r = LivePath(idle: 30)
        r.saver.openingHoursChanged(open: false)
        r.at(1)
        #expect(r.shell.showing == .closed)
        var t = 2.0
        while t < 120 { r.phantom(Point(x: 95 * 3.8, y: 2.4 * 3.8), at: t); t += 12.864 }
        r.at(121)
        #expect(r.shell.showing == .closed, "a phantom woke the black panel")
        r.tap(Point(x: 400, y: 240), at: 122)
        r.at(123)
        #expect(r.shell.showing == .afterHoursWake, "a person's touch wakes it")
    }

    // MARK: The 7" panel: spurious contacts at its last pixel and outside it

    @Test func sevenInchPanelsCornerAndOutsideContactsAreIgnored() {
        let r = LivePath(idle: 30)
        var rng = SplitMix64(seed: 4749)
        var t = 0.5, n = 0
        while t < 40 {
            // ~2.2 a second, each lasting 5-30 ms; one in ten at 499,-3616.
            let p = n % 10 == 9 ? Point(x: 499, y: -3616) : Point(x: 799, y: 479)
            r.down(3, p, at: t)
            r.up(3, at: t + 0.005 + rng.next(below: 0.025))
            t += 0.2 + rng.next(below: 0.5)
            n += 1
        }
        r.at(41)
        #expect(r.shell.showing == .screensaver)
        #expect(r.ignored.count == n)
        #expect(Set(r.ignored.map(\.rule)) == [.lastPixel, .outside])
    }

    @Test func aSwipeInFromTheLastColumnIsDeliveredWhole() {
        let r = LivePath(start: "tiles")
        let before = r.shell.currentName
        r.down(1, Point(x: 799.5, y: 240), at: 1)
        for i in 1...10 { r.move(1, Point(x: 799.5 - 30 * Double(i), y: 240), at: 1 + 0.02 * Double(i)) }
        r.up(1, at: 1.22)
        r.at(2)
        #expect(r.ignored.isEmpty)
        #expect(r.shell.currentName != before, "the edge swipe switched no scene")
    }

    // MARK: A person

    @Test func aPersonsQuickestTapStillSelects() {
        let r = LivePath()
        // One controller scan (8 ms at 120 Hz) is the shortest a finger can be seen.
        r.tap(r.tileCentre(1), at: 1, lasting: 0.008)
        r.at(2)
        #expect(r.tiles.model.selectedIDs == [1])
        #expect(r.ignored.isEmpty)
    }

    @Test func removingTheNoDurationRuleWouldLetThePhantomSelect() {
        // The same phantom, but lasting the rule's limit: it acts, so the rule is what stops it.
        let r = LivePath()
        r.tap(r.tileCentre(0), at: 1, lasting: TouchFilter.shortestTouch)
        r.at(2)
        #expect(r.tiles.model.selectedIDs == [0])
    }

    @Test func twoFingersTappedThreeTimesTurnSpeechOn() {
        let r = LivePath(idle: 0)
        r.at(30)
        var t = 30.0
        for _ in 0..<3 {
            r.down(1, Point(x: 300, y: 200), at: t)
            r.down(2, Point(x: 360, y: 200), at: t)
            r.up(1, at: t + 0.07)
            r.up(2, at: t + 0.07)
            t += 0.22
        }
        r.at(t + 1)
        #expect(r.shell.window.screenReader.isOn)
    }

    @Test func threeFingersHeldInTheCornerStillOpenTheAdminPanel() {
        let r = LivePath(idle: 0)
        r.shell.adminCorner = .topLeft
        var asked = 0
        r.shell.adminAsked.add { asked += 1 }
        for (i, p) in [(40.0, 40.0), (90.0, 60.0), (60.0, 110.0)].enumerated() { r.down(Int32(i + 1), Point(x: p.0, y: p.1), at: 1) }
        r.at(1 + Shell.adminHold + 0.2)
        #expect(asked == 1)
    }

    // MARK: The beat

    @Test func contactsOnOneSpotOnARegularBeatAreIgnoredFromTheThird() {
        let r = LivePath(start: "touch", idle: 0)
        let touchTest = r.shell.current as! TouchTestScene
        // Not zero-duration (10 ms): only the beat rule can catch them.
        for k in 0..<6 { r.tap(Point(x: 361.25, y: 300.5), at: 1 + 12.864 * Double(k), lasting: 0.01) }
        r.at(80)
        #expect(touchTest.model.totalTouches == 2)
        #expect(r.ignored.map(\.rule) == Array(repeating: .beat, count: 4))
        #expect(touchTest.model.ignoredTotal == 0, "the shell forwards ignored contacts only in the app")
        // A person tapping nearby on the same beat is not the controller.
        r.tap(Point(x: 380, y: 320), at: 1 + 12.864 * 6, lasting: 0.08)
        r.at(90)
        #expect(touchTest.model.totalTouches == 3)
    }

    // MARK: Stuck contacts, changes under a finger, a touchscreen unplugged

    @Test func aHeldEngineButtonFiresForAMinuteThenAStuckContactIsCancelled() {
        let r = LivePath(start: "lander", idle: 0)
        let (lander, fire) = r.landerAndItsEngineButton()
        r.down(1, fire, at: 1)
        r.at(30)
        #expect(lander.model.engineOn, "a held engine button stopped firing")
        #expect(r.stuck.isEmpty)
        r.at(1 + TouchFilter.stuckAfter + 1)
        #expect(!lander.model.engineOn, "a contact still for a minute stayed pressed")
        #expect(r.stuck.count == 1)
        r.up(1, at: 70)
        r.at(71)
        #expect(r.stuck.count == 1)
    }

    @Test func aFingerMovingNowAndThenIsNeverStuck() {
        let r = LivePath(start: "lander", idle: 0)
        let (lander, fire) = r.landerAndItsEngineButton()
        r.down(1, fire, at: 1)
        for k in 1...5 { r.move(1, Point(x: fire.x + Double(k % 2) * 2, y: fire.y), at: 1 + 40 * Double(k)) }
        r.at(200)
        #expect(lander.model.engineOn && r.stuck.isEmpty)
    }

    @Test func aFingerDownWhenTheScreensaverStartsPressesNothingAfter() {
        let r = LivePath(idle: 10)
        let spot = r.tileCentre(2)
        r.down(1, spot, at: 1)
        r.at(12)
        #expect(r.shell.showing == .screensaver)
        r.up(1, at: 13)
        r.at(14)
        #expect(r.shell.showing == .screensaver, "the lift of a finger held across the change woke it")
        #expect(r.tiles.model.selectedIDs.isEmpty)
    }

    @Test func aTapBegunAfterTheChangeOutlivesTheCancelThatComesLate() {
        // An operator's first PIN key, read in the same pass as the change's cancel: it began
        // after the change, so it is not the contact the change ended.
        let r = LivePath(start: "touch", idle: 0)
        let touchTest = r.shell.current as! TouchTestScene
        r.down(1, Point(x: 300, y: 300), at: 1)
        r.at(2)
        r.down(2, Point(x: 400, y: 300), at: 2.5)
        r.filter.cancelAll(beganBefore: 2.4, at: 2.5)
        r.up(2, at: 2.6)
        r.up(1, at: 2.7)
        r.at(3)
        #expect(touchTest.model.totalTouches == 2 && touchTest.model.touchCount == 0)
        #expect(touchTest.model.fading.map(\.id) == [2], "the later tap ended as a tap, the earlier contact was cancelled")
    }

    @Test func aTouchscreenUnpluggedWithAFingerDownLeavesNothingHeld() {
        let r = LivePath(start: "touch", idle: 0)
        let touchTest = r.shell.current as! TouchTestScene
        r.down(1, Point(x: 300, y: 300), at: 1)
        r.at(1.1)
        #expect(touchTest.model.touchCount == 1)
        // Seat.releaseTouch: the capability gone, every point known above cancelled.
        if let b = r.seat.cancel(at: 1.2) { r.filter.handle(b) }
        r.at(1.3)
        #expect(touchTest.model.touchCount == 0)
        r.tap(Point(x: 320, y: 320), at: 2)
        r.at(2.2)
        #expect(touchTest.model.totalTouches == 2 && touchTest.model.touchCount == 0)
    }

    // MARK: Blanking by day

    @Test func afterTheBlankDelayThePanelGoesOffAndPhantomsKeepItOff() {
        let r = LivePath(idle: 5, blank: 5)
        var dark: [Bool] = []
        r.shell.darkChanged.add { dark.append($0) }
        r.at(11)
        #expect(r.shell.showing == .blank && dark == [true])
        var t = 12.0
        while t < 60 { r.phantom(Point(x: 100, y: 100), at: t); t += 12.864 }
        r.at(61)
        #expect(r.shell.showing == .blank && dark == [true])
        r.tap(r.tileCentre(0), at: 62)
        r.at(63)
        #expect(r.shell.showing == .scene && dark == [true, false])
        #expect(r.tiles.model.selectedIDs.isEmpty, "the waking touch pressed the tile")
    }
}

@Suite struct TouchHealthTests {
    final class Rig {
        let scheduler = ManualScheduler()
        var lines: [String] = []
        lazy var health = TouchHealth(scheduler: scheduler, log: { [unowned self] in self.lines.append($0) },
                                      warn: { [unowned self] in self.lines.append("warning: " + $0) })
    }

    @Test func aPatternIsSaidWhenSeenAndWhenItStops() {
        let r = Rig()
        var t = 1.0
        for _ in 0..<40 {
            r.scheduler.advance(to: t)
            r.health.contactIgnored(.init(rule: .lastPixel, location: Point(x: 799.3, y: 479.6), time: t))
            t += 0.45
        }
        #expect(r.lines == ["touch: phantom taps at 799,479 about every 0.45 s (on the screen's last pixel): ignored"])
        r.scheduler.advance(to: t + 59)
        #expect(r.lines.count == 1)
        r.scheduler.advance(to: t + 62)
        #expect(r.lines.last == "touch: phantom taps at 799,479 stopped (40 ignored over 18 s)")
        #expect(r.health.ignored[.lastPixel] == 40)
    }

    @Test func aLoneIgnoredContactIsCountedNotSaid() {
        let r = Rig()
        r.health.contactIgnored(.init(rule: .noDuration, location: Point(x: 5, y: 5), time: 1))
        r.scheduler.advance(to: 200)
        #expect(r.lines.isEmpty && r.health.ignored[.noDuration] == 1)
    }

    @Test func aDayOfOpeningHoursWithoutATouchIsSaid() {
        let r = Rig()
        r.health.opening(true, now: 0)
        r.health.personTouched(now: 100)
        r.health.opening(false, now: 9 * 3600)
        #expect(r.lines.isEmpty, "someone touched today")
        r.health.opening(true, now: 24 * 3600)
        r.health.opening(false, now: 33 * 3600)
        #expect(r.lines == ["warning: touch: nobody touched the panel through 9 h of opening hours: is the touchscreen working? (kiosk_touch_quiet_open_seconds)"])
        #expect(r.health.quietOpenSeconds(now: 40 * 3600) == 9 * 3600 * 2 - 100)
        r.health.opening(true, now: 48 * 3600)
        r.health.personTouched(now: 49 * 3600)
        #expect(r.lines.last?.hasPrefix("touch: touched again, after 19 h") == true)
        #expect(r.health.quietOpenSeconds(now: 50 * 3600) == 3600)
    }

    @Test func alwaysOpenADayWithoutATouchIsSaidOnce() {
        let r = Rig()
        r.health.opening(true, now: 0)
        r.scheduler.advance(to: 23 * 3600)
        #expect(r.lines.isEmpty)
        r.scheduler.advance(to: 25 * 3600)
        #expect(r.lines.count == 1 && r.lines[0].contains("through 24 h of opening hours"))
        r.scheduler.advance(to: 60 * 3600)
        #expect(r.lines.count == 1)
    }

    @Test func theTouchscreenComingAndGoingIsSaid() {
        let r = Rig()
        r.health.touchscreen(present: true)
        r.health.touchscreen(present: true)
        r.health.touchscreen(present: false)
        r.health.touchscreen(present: true)
        #expect(r.lines == ["warning: touch: the touchscreen is gone (the seat lost touch): any finger down was cancelled",
                            "touch: a touchscreen is back on the seat"])
    }
}

@Suite struct ClockTrustTests {
    @Test func theHoursWaitForAClockThatIsNotSynchronised() {
        let s = ManualScheduler()
        var synced = false
        let clock = ClockTrust(scheduler: s) { synced ? .ntp : nil }
        // 03:07:30 UTC, :07, :22, :37 or :52 past in any time zone: closed by these hours.
        let hours = try! OpeningHours.parse("Mon-Sun 00:00-00:01")
        var changes: [Bool] = []
        let c = OpeningHoursController(hours: hours, scheduler: s, clockTrusted: clock.isTrusted, wallClock: { 1_764_385_650 }) { changes.append($0) }
        clock.onTrusted = { c.clockTrusted = true }
        #expect(c.isOpen && changes.isEmpty)
        s.advance(to: 100)
        #expect(c.isOpen)
        synced = true
        s.advance(to: 130)
        #expect(!c.isOpen && changes == [false])
    }

    @Test func anRTCThatSetTheClockAtBootIsBelieved() throws {
        // As sysfs has it: rtc0's hctosys "1", its size a page (what fstat says of an attribute).
        let folder = try #require(mkdtemp(strdup("/tmp/kiosk-rtc-XXXXXX")).map { String(cString: $0) })
        mkdir(folder + "/rtc0", 0o755)
        #expect(!ClockTrust.rtcSetTheClock(in: folder))
        let page = Array("1\n".utf8) + [UInt8](repeating: 0x20, count: 4094)
        try AtomicFile.write(page, to: folder + "/rtc0/hctosys", mode: 0o444, durable: false)
        #expect(ClockTrust.rtcSetTheClock(in: folder))
    }
}
