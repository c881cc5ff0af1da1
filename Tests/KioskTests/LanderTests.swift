import Testing
@testable import Kiosk
@testable import KioskScenes
@testable import KioskRender
@testable import KioskCore
#if canImport(Glibc)
import Glibc
#endif

@Suite struct LanderPhysicsTests {
    func freshModel() -> LanderModel {
        var m = LanderModel(seed: 7, aspect: 16.0 / 9)
        m.reset()
        return m
    }

    @Test func freeFallFollowsLunarGravity() {
        var m = freshModel()
        let y0 = m.positionMetres.y
        m.advance(by: 0.25); m.advance(by: 0.25); m.advance(by: 0.25); m.advance(by: 0.25) // 1 s
        let fall = y0 - m.positionMetres.y
        #expect(m.steps == 120)
        #expect(abs(fall - 0.5 * LanderModel.gravity) < 0.01 * 0.5 * LanderModel.gravity + 0.01, "fell \(fall)")
        #expect(abs(m.state.vy + LanderModel.gravity) < 1e-9)
    }

    @Test func thrustAcceleratesAlongTheHeadingAndBurnsFuel() {
        var m = freshModel()
        m.engineOn = true
        m.advance(by: 0.25); m.advance(by: 0.25)
        #expect(abs(m.state.vy - 0.5 * (LanderModel.thrust - LanderModel.gravity)) < 1e-9)
        #expect(abs(m.state.fuel - (100 - 0.5 * LanderModel.burnRate)) < 1e-9)
        // Tilted a quarter turn: thrust pushes sideways.
        var side = freshModel()
        side.state.heading = .pi / 2
        side.engineOn = true
        side.advance(by: 0.25); side.advance(by: 0.25)
        #expect(abs(side.state.vx - 0.5 * LanderModel.thrust) < 1e-9)
    }

    @Test func anEmptyTankStopsTheEngine() {
        var m = freshModel()
        m.state.fuel = 0.5
        m.engineOn = true
        m.advance(by: 0.25); m.advance(by: 0.25)
        #expect(m.state.fuel == 0)
        #expect(!m.engineFiring)
        let vy = m.state.vy
        m.advance(by: 0.25)
        #expect(abs((m.state.vy - vy) + 0.25 * LanderModel.gravity) < 1e-9) // gravity only
    }

    @Test func turningChangesHeadingAtTheTurnRate() {
        var m = freshModel()
        m.setTurning(1)
        m.advance(by: 0.25); m.advance(by: 0.25)
        #expect(abs(m.state.heading - 0.5 * LanderModel.turnRate) < 1e-9)
    }

    @Test func theSameInputsGiveTheSameFlight() {
        func fly(_ chunks: [Double]) -> LanderState {
            var m = freshModel()
            var t = 0.0
            for c in chunks { t += c; m.engineOn = Int(t * 3) % 2 == 0; m.setTurning(Int(t) % 3 - 1); m.advance(by: c) }
            return m.state
        }
        // Different frame rates, same fixed steps.
        let a = fly(Array(repeating: 1.0 / 60, count: 600))
        let b = fly(Array(repeating: 1.0 / 60, count: 600))
        #expect(a == b)
    }

    @Test func touchdownTable() {
        let t = LanderModel.touchdown
        #expect(t(true, 0, 0, -1.9) == .landed)
        #expect(t(true, 0.17, 0.9, -2) == .landed)            // 9.7°, 0.9 m/s across
        #expect(t(true, 0, 0, -3) == .hardLanding)
        #expect(t(true, 0, 0, -5) == .hardLanding)
        #expect(t(true, 0, 0, -5.1) == .crashed)
        #expect(t(true, 0.2, 0, -1) == .crashed)              // 11.5° tilt
        #expect(t(true, 0, 1.2, -1) == .crashed)              // sliding sideways
        #expect(t(false, 0, 0, -0.5) == .crashed)             // off the pad
    }

    @Test func aGentleDescentOntoThePadLands() {
        var m = freshModel()
        let pad = (m.terrain.padStart + m.terrain.padEnd) / 2
        m.state.x = pad / m.worldWidth
        // 0.5 m above the pad at 1 m/s: v² = 1 + 2·1.62·0.5 → 1.62 m/s at touchdown.
        m.state.y = (m.terrain.padHeight + 0.5) / LanderModel.worldHeight
        m.state.vy = -1
        m.advance(by: 0.25); m.advance(by: 0.25); m.advance(by: 0.25); m.advance(by: 0.25)
        #expect(m.state.outcome == .landed)
        let steps = m.steps
        m.advance(by: 1)
        #expect(m.steps == steps) // nothing moves after touchdown
    }

    @Test func leavingSidewaysWrapsAround() {
        var m = freshModel()
        m.state.x = 0.999
        m.state.vx = 20
        m.advance(by: 0.25)
        #expect(m.state.x < 0.1)
    }

    @Test func resizingKeepsTheFlightInProportion() {
        var m = freshModel()
        m.state.x = 0.3; m.state.vx = 2
        let t1 = m.terrain
        m.resize(aspect: 9.0 / 16)
        #expect(m.state.x == 0.3 && m.state.vx == 2)
        #expect(abs(m.worldWidth - 56.25) < 1e-9)
        m.resize(aspect: 16.0 / 9)
        #expect(m.terrain == t1) // the same ground again from the same seed
        #expect(abs(m.terrain.padEnd - m.terrain.padStart - 14) < 1e-9)
    }

    @Test func savedValuesOutOfRangeAreNotPlausible() {
        var s = LanderState()
        #expect(s.isPlausible)
        s.fuel = 150
        #expect(!s.isPlausible)
        s = LanderState(); s.x = .nan
        #expect(!s.isPlausible)
    }
}

@Suite struct LanderSceneTests {
    typealias Rig = SceneRig<LanderScene>
    func rig(store: StateStore? = nil, size: Size = Size(width: 1920, height: 1080), report: @escaping (String) -> Void = { _ in }) -> Rig {
        Rig(size: size) { LanderScene(fonts: $0, scheduler: $1, store: store, report: report) }
    }
    func centre(_ r: Rig, _ role: ControlPad.Role) -> Point {
        let b = r.scene.pad.buttons[role.rawValue]
        return b.convert(Point(x: b.bounds.midX, y: b.bounds.midY), to: nil)
    }

    @Test func twoThumbsFireAndTurnAtOnceAndEachLiftStopsItsOwn() {
        let r = rig()
        let fire = centre(r, .fire), port = centre(r, .port)
        r.send([touch(1, .began, fire.x, fire.y), touch(2, .began, port.x, port.y)])
        #expect(r.scene.model.engineOn && r.scene.model.turning == -1)
        #expect(r.scene.pad.buttons[1].alpha == 0.75 && r.scene.pad.buttons[2].alpha == 0.5)
        r.send([touch(2, .ended, port.x, port.y)])
        #expect(r.scene.model.engineOn && r.scene.model.turning == 0)
        r.send([touch(1, .cancelled, fire.x, fire.y)])
        #expect(!r.scene.model.engineOn)
    }

    @Test func aTapOnTheEngineKeepsItBurningWhileOneFingerTurnsAndTheNextTapStopsIt() {
        let r = rig()
        let fire = centre(r, .fire), port = centre(r, .port)
        r.send([touch(1, .began, fire.x, fire.y)], after: 2) // after a pause, as a visitor comes
        r.send([touch(1, .ended, fire.x, fire.y)], after: 0.12)
        r.wait(1)
        #expect(r.scene.model.engineOn && r.scene.pad.buttons[1].alpha == 0.75, "left burning, and lit")
        r.send([touch(1, .began, port.x, port.y)], after: 0.5)
        #expect(r.scene.model.engineOn && r.scene.model.turning == -1, "one finger turns meanwhile")
        r.send([touch(1, .ended, port.x, port.y)], after: 0.5)
        #expect(r.scene.model.engineOn && r.scene.model.turning == 0)
        r.send([touch(1, .began, fire.x, fire.y)], after: 0.5)
        r.send([touch(1, .ended, fire.x, fire.y)], after: 0.1)
        #expect(!r.scene.model.engineOn, "the next tap stops it")
        // A hold burns while held and stops when lifted, as before.
        r.send([touch(1, .began, fire.x, fire.y)], after: 0.5)
        r.send([touch(1, .ended, fire.x, fire.y)], after: 0.8)
        #expect(!r.scene.model.engineOn)
        // A burning engine does not carry over into a new flight.
        r.send([touch(1, .began, fire.x, fire.y)], after: 0.5)
        r.send([touch(1, .ended, fire.x, fire.y)], after: 0.1)
        r.scene.reset()
        #expect(!r.scene.model.engineOn && r.scene.pad.buttons[1].alpha == 0.5)
    }

    /// A visitor who can use one finger at a time lands on the pad: the engine is tapped on and
    /// off, a turn button held alone; never two fingers down at once.
    @Test func oneFingerAtATimeLandsOnThePad() {
        let r = rig()
        let button = ControlPad.Role.allCases.map { centre(r, $0) }
        var held: ControlPad.Role?
        var fingersDown = 0, taps = 0, burningUntouched = 0
        func press(_ role: ControlPad.Role) {
            #expect(fingersDown == 0, "one finger at a time")
            fingersDown += 1
            r.send([touch(1, .began, button[role.rawValue].x, button[role.rawValue].y)])
        }
        func lift(_ role: ControlPad.Role) {
            fingersDown -= 1
            r.send([touch(1, .ended, button[role.rawValue].x, button[role.rawValue].y)], after: 0.05)
        }
        let t = r.scene.model.terrain, pad = (t.padStart + t.padEnd) / 2
        for _ in 0..<(120 * 60) where r.scene.model.isFlying {
            let m = r.scene.model, p = m.positionMetres, s = m.state
            let altitude = p.y - t.height(at: p.x)
            // Over the pad: upright and sinking slowly; on the way: leaning toward it.
            let wantVX = max(-3, min(3, (pad - p.x) * 0.25))
            let wantHeading = altitude < 12 || abs(pad - p.x) < 1 ? -s.vx * 0.15 : max(-0.35, min(0.35, (wantVX - s.vx) * 0.3))
            let wantVY = altitude > 30 ? -4.0 : -max(0.8, altitude * 0.12)
            if m.engineOn && fingersDown == 0 { burningUntouched += 1 }
            let needsEngine = s.vy < wantVY - 0.4 ? true : s.vy > wantVY + 0.4 ? false : m.engineOn
            if needsEngine != m.engineOn {
                if let h = held { lift(h); held = nil }
                press(.fire)
                lift(.fire)
                taps += 1
                continue
            }
            let error = wantHeading - s.heading
            let turn: ControlPad.Role? = abs(error) < 0.03 ? nil : error > 0 ? .starboard : .port
            if turn != held {
                if let h = held { lift(h) }
                if let turn { press(turn) }
                held = turn
            } else {
                r.wait(1.0 / 60)
            }
        }
        #expect(r.scene.model.state.outcome == .landed, "\(r.scene.model.state)")
        #expect(taps >= 2, "the engine tapped on and off")
        #expect(burningUntouched > 2 * 60, "the engine burnt \(burningUntouched) frames with no finger on it")
    }

    @Test func chosenWithoutTouchingTheEngineTogglesAndATurnButtonTurnsOneStep() {
        let r = rig()
        let heading = r.scene.model.state.heading
        #expect(r.scene.pad.buttons[0].accessibilityActivate())
        #expect(approx(r.scene.model.state.heading, heading - LanderModel.turnStep))
        #expect(r.scene.pad.buttons[2].accessibilityActivate())
        #expect(r.scene.pad.buttons[2].accessibilityActivate())
        #expect(approx(r.scene.model.state.heading, heading + LanderModel.turnStep))
        #expect(r.scene.pad.buttons[1].accessibilityActivate())
        #expect(r.scene.model.engineOn && r.scene.pad.buttons[1].accessibilityTraits.contains(.selected))
        #expect(r.scene.pad.buttons[1].accessibilityActivate())
        #expect(!r.scene.model.engineOn && !r.scene.pad.buttons[1].accessibilityTraits.contains(.selected))
    }

    /// A press counts for as long as it was held wherever its events fall between frames: one
    /// shorter than a frame, one handled only after a busy frame flew past it, and a key's.
    @Test func aTurnCountsForAsLongAsItWasHeldWhereverItsEventsFall() {
        let r = rig()
        let port = centre(r, .port), starboard = centre(r, .starboard)
        r.wait(1)
        func turned(_ press: (Double) -> Void) -> Double {
            let before = r.scene.model.state.heading
            press(r.now)
            r.wait(1.0 / 60)
            r.wait(1.0 / 60) // a turn that ended between steps is finished by the next step
            return r.scene.model.state.heading - before
        }
        let between = turned { now in
            r.scene.handle(TouchBatch(time: now + 0.004, points: [touch(1, .began, port.x, port.y)]))
            r.scene.handle(TouchBatch(time: now + 0.010, points: [touch(1, .ended, port.x, port.y)]))
        }
        #expect(approx(between, -0.006 * LanderModel.turnRate, 1e-9), "held 6 ms, turned \(between)")
        r.wait(0.2) // a busy frame: the press below happened during it
        let late = turned { now in
            r.scene.handle(TouchBatch(time: now - 0.15, points: [touch(1, .began, starboard.x, starboard.y)]))
            r.scene.handle(TouchBatch(time: now - 0.05, points: [touch(1, .ended, starboard.x, starboard.y)]))
        }
        #expect(approx(late, 0.1 * LanderModel.turnRate, 1e-9), "held 100 ms, turned \(late)")
        let key = turned { now in
            r.scene.handle(KeyEvent(keysym: 0xff53, text: "", pressed: true, time: now + 0.001))
            r.scene.handle(KeyEvent(keysym: 0xff53, text: "", pressed: false, time: now + 0.013))
        }
        #expect(approx(key, 0.012 * LanderModel.turnRate, 1e-9), "held 12 ms, turned \(key)")
    }

    @Test func slidingAFingerSwitchesButtons() {
        let r = rig()
        let port = centre(r, .port), fire = centre(r, .fire), star = centre(r, .starboard)
        r.send([touch(1, .began, port.x, port.y)])
        #expect(r.scene.model.turning == -1)
        r.send([touch(1, .moved, fire.x, fire.y)])
        #expect(r.scene.model.turning == 0 && r.scene.model.engineOn)
        r.send([touch(1, .moved, star.x, star.y)])
        #expect(r.scene.model.turning == 1 && !r.scene.model.engineOn)
        r.send([touch(1, .ended, star.x, star.y)])
        #expect(r.scene.model.turning == 0)
    }

    @Test func thrustMakesTheShipClimb() {
        let r = rig()
        let fire = centre(r, .fire)
        let y0 = r.scene.model.positionMetres.y
        r.send([touch(1, .began, fire.x, fire.y)])
        for _ in 0..<60 { r.scene.advance(to: r.now + 1.0 / 60) }
        #expect(r.scene.model.positionMetres.y > y0)
        #expect(r.scene.ship.center.y < r.scene.view.bounds.height * 0.3) // drawn higher up
    }

    @Test func doubleTapOutsideThePadResetsButNotOnThePad() {
        let r = rig()
        for _ in 0..<60 { r.scene.advance(to: r.now + 1.0 / 60) }
        let fallen = r.scene.model.state.y
        #expect(fallen < 0.75)
        let fire = centre(r, .fire)
        for _ in 0..<2 { r.send([touch(1, .began, fire.x, fire.y)], after: 0.1); r.send([touch(1, .ended, fire.x, fire.y)], after: 0.05) }
        #expect(r.scene.model.state.y < 0.75)
        for _ in 0..<2 { r.send([touch(1, .began, 400, 300)], after: 0.1); r.send([touch(1, .ended, 400, 300)], after: 0.05) }
        #expect(r.scene.model.state.y == 0.75 && r.scene.model.state.vy == 0)
    }

    @Test func holdingTheGripMovesThePadAndItIsRemembered() throws {
        let dir = "/tmp/kiosk-lander-\(getpid())-pad"
        defer { _ = system("rm -rf \(dir)") }
        let store = StateStore(directory: dir)
        let r = rig(store: store)
        let g = r.scene.pad.grip
        let gp = g.convert(Point(x: g.bounds.midX, y: g.bounds.midY), to: nil)
        r.send([touch(1, .began, gp.x, gp.y)])
        r.scene.advance(to: r.now + 1.05)
        r.send([touch(1, .moved, 500, 700)])
        r.send([touch(1, .ended, 500, 700)])
        #expect(abs(r.scene.pad.center.x - 500) < 1e-6 && r.scene.pad.frame.maxY < 700)
        r.scene.saveState()
        let again = rig(store: store)
        #expect(abs(again.scene.pad.center.x - 500) < 1e-6)
    }

    @Test func keyboardFliesTheShip() {
        let r = rig()
        r.scene.handle(KeyEvent(keysym: 0xff52, text: "", pressed: true, time: r.now))
        r.scene.handle(KeyEvent(keysym: 0xff53, text: "", pressed: true, time: r.now))
        #expect(r.scene.model.engineOn && r.scene.model.turning == 1)
        r.scene.handle(KeyEvent(keysym: 0xff52, text: "", pressed: false, time: r.now))
        #expect(!r.scene.model.engineOn)
    }

    @Test func pausedPhysicsStopsAndResumes() {
        let r = rig()
        r.scene.setActive(false)
        let s = r.scene.model.state
        r.scene.advance(to: r.now + 5)
        #expect(r.scene.model.state == s && !r.scene.host.isAnimating)
        r.scene.setActive(true)
        r.scene.advance(to: r.now + 0.1)
        r.scene.advance(to: r.now + 0.1)
        #expect(r.scene.model.state != s)
        #expect(abs(r.scene.model.state.vy + 0.1 * LanderModel.gravity) < 0.02) // resumed, no jump
    }

    @Test func flightStateRoundTripsAndBadFilesFallBack() throws {
        let dir = "/tmp/kiosk-lander-\(getpid())-state"
        defer { _ = system("rm -rf \(dir)") }
        var lines: [String] = []
        let store = StateStore(directory: dir, report: { lines.append($0) })
        let r = rig(store: store)
        for _ in 0..<30 { r.scene.advance(to: r.now + 1.0 / 60) }
        r.scene.saveState()
        let saved = r.scene.model.state
        #expect(rig(store: store).scene.model.state == saved)
        // Corrupt: one line, fresh flight.
        let f = fopen(store.path("lander"), "w")!; fputs("{\"version\": 1, \"flight\": {\"x\": ", f); fclose(f)
        let fresh = rig(store: store)
        #expect(fresh.scene.model.state.y == 0.75 && lines.count == 1 && lines[0].contains("lander.json"))
        // The damaged file was moved aside, not lost.
        #expect(access(store.path("lander"), F_OK) != 0)
        #expect(lines[0].contains("kept as \(store.path("lander")).corrupt-"))
        // Out of range: one more line, fresh flight.
        let g = fopen(store.path("lander"), "w")!
        fputs("{\"version\":1,\"flight\":{\"x\":0.5,\"y\":0.5,\"vx\":0,\"vy\":0,\"heading\":0,\"fuel\":900,\"outcome\":\"flying\"}}", g); fclose(g)
        #expect(rig(store: store, report: { lines.append($0) }).scene.model.state.fuel == 100 && lines.count == 2)
        // The file is private to the kiosk user.
        r.scene.saveState()
        var st = stat()
        stat(store.path("lander"), &st)
        #expect(st.st_mode & 0o777 == 0o600)
    }

    @Test func rotationKeepsTheFlightAndMovesThePadToItsCorner() {
        let r = rig()
        r.scene.model.state.x = 0.3
        r.scene.layout(DisplayInfo(size: Size(width: 1080, height: 1920)))
        #expect(r.scene.model.state.x == 0.3)
        #expect(r.scene.pad.frame.maxX <= 1080 && r.scene.pad.frame.maxY <= 1920 && r.scene.pad.frame.maxY > 1700)
        #expect(abs(r.scene.ship.center.x - 0.3 * 1080) < 1e-6)
    }
}

@Suite struct LanderAssetsAndOutcomeTests {
    @Test func themeRocketImagesAreUsedAndABrokenOneIsReportedOnce() throws {
        let dir = "/tmp/kiosk-theme-\(getpid())"
        defer { _ = system("rm -rf \(dir)") }
        mkdir(dir, 0o755)
        let red = Image(pixelSize: PixelSize(width: 20, height: 32))!
        Canvas(image: red).clear(Color(red: 1, green: 0, blue: 0))
        try PNG.write(red, path: dir + "/rocket.png")
        let f = fopen(dir + "/rocket_firing.png", "w")!; fputs("not a png", f); fclose(f)
        var lines: [String] = []
        let scene = LanderScene(fonts: FontCache(), themeDirectory: dir, report: { lines.append($0) })
        let r = try HeadlessRenderer(scene: scene, info: DisplayInfo(size: Size(width: 800, height: 450)))
        r.renderFrame()
        #expect(lines.count == 1 && lines[0].contains("rocket_firing.png"))
        let c = scene.ship.convert(Point(x: scene.ship.bounds.midX, y: scene.ship.bounds.midY), to: nil)
        let px = channels(r.image.pixel(x: Int(c.x), y: Int(c.y)))
        #expect(px.r > 200 && px.g < 40 && px.b < 40) // the PNG, not the white vector rocket
    }

    @Test func aCrashShowsTheMessageAndFlyAgainStartsOver() {
        let scheduler = ManualScheduler()
        let scene = LanderScene(fonts: FontCache(), scheduler: scheduler)
        scene.layout(DisplayInfo(size: Size(width: 1280, height: 720)))
        scene.advance(to: 0)
        scene.model.state.vy = -30 // far too fast
        var t = 0.0
        while scene.model.isFlying && t < 10 { t += 1.0 / 60; scene.advance(to: t) }
        #expect(scene.model.state.outcome == .crashed)
        #expect(!scene.message.isHidden && scene.message.text == "Crashed" && !scene.flyAgain.isHidden)
        #expect(!scene.host.isAnimating) // a finished flight needs no frames
        let b = scene.flyAgain.convert(Point(x: scene.flyAgain.bounds.midX, y: scene.flyAgain.bounds.midY), to: nil)
        scene.handle(TouchBatch(time: t, points: [touch(1, .began, b.x, b.y)]))
        scene.handle(TouchBatch(time: t + 0.05, points: [touch(1, .ended, b.x, b.y)]))
        scene.advance(to: t + 0.1)
        #expect(scene.model.isFlying && scene.message.isHidden && scene.flyAgain.isHidden)
    }
}
