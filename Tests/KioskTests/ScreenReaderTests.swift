import Testing
@testable import Kiosk
@testable import KioskScenes
@testable import KioskUI
@testable import KioskRender
@testable import KioskCore

/// Explore by touch: what a visitor who cannot see the screen hears and does, by touch alone,
/// with touches that carry their own times (pauses included).
@Suite struct ScreenReaderTests {
    final class Rig {
        let scheduler = ManualScheduler()
        let shell: Shell
        var heard: [String] = []
        var now: Double { scheduler.now }
        var reader: ScreenReader { shell.window.screenReader }

        init(language: Language = .english, start: String = "lander") {
            let fonts = FontCache(), s = scheduler
            shell = Shell.make(SceneMaking(fonts: fonts, scheduler: s), names: SceneCatalog.standard.visitorScenes, start: start, home: start)
            shell.setLanguages([kioskTexts(language)])
            shell.layout(DisplayInfo(size: Size(width: 1280, height: 800)))
            shell.advance(to: 0)
            reader.speak = { [unowned self] in self.heard.append($0.text) }
        }
        func wait(_ dt: Double) { shell.advance(to: now + dt) }
        func send(_ points: [TouchPoint]) { shell.handle(TouchBatch(time: now, points: points)) }
        func tap(_ p: Point, fingers: Int = 1) {
            send((0..<fingers).map { touch(Int32($0 + 1), .began, p.x + Double($0) * 60, p.y) })
            wait(0.08)
            send((0..<fingers).map { touch(Int32($0 + 1), .ended, p.x + Double($0) * 60, p.y) })
        }
        /// One finger resting on `p` for `seconds`, then lifted.
        func rest(_ p: Point, seconds: Double = 0.4) {
            send([touch(1, .began, p.x, p.y)])
            wait(seconds)
            send([touch(1, .ended, p.x, p.y)])
        }
        func doubleTap(_ p: Point) {
            tap(p)
            wait(0.15)
            tap(p)
        }
        func turnSpeechOn() {
            for _ in 0..<3 { tap(Point(x: 500, y: 400), fingers: 2); wait(0.15) }
            wait(1)
        }
        /// One finger put down at `from`, slid to `to` in `steps`, lifted.
        func slide(from: Point, to: Point, steps: Int = 20, seconds: Double = 1) {
            send([touch(1, .began, from.x, from.y)])
            for i in 1...steps {
                wait(seconds / Double(steps))
                let f = Double(i) / Double(steps)
                send([touch(1, .moved, from.x + (to.x - from.x) * f, from.y + (to.y - from.y) * f)])
            }
            send([touch(1, .ended, to.x, to.y)])
        }
        var pills: [Rect] { shell.sceneBarFrames }
    }

    @Test func twoFingersTappedThreeTimesTurnSpeechOnAndOffFromAnywhere() {
        let r = Rig()
        r.wait(30) // a visitor arrives after a pause
        r.turnSpeechOn()
        #expect(r.reader.isOn)
        #expect(r.heard.first?.hasPrefix("Speech on.") == true)
        // Two taps are not three; a pause breaks the count.
        r.tap(Point(x: 300, y: 300), fingers: 2)
        r.wait(0.15)
        r.tap(Point(x: 300, y: 300), fingers: 2)
        r.wait(5)
        r.tap(Point(x: 300, y: 300), fingers: 2)
        #expect(r.reader.isOn)
        r.wait(1)
        r.turnSpeechOn()
        #expect(!r.reader.isOn && r.heard.last == "Speech off.")
    }

    @Test func aFingerSlidingAlongTheSceneBarHearsEachPillAndChangesNothing() {
        let r = Rig()
        r.turnSpeechOn()
        r.heard = []
        let bar = r.pills
        r.slide(from: bar[0].center, to: bar[1].center)
        #expect(r.heard == ["Lander, scene, selected", "Tiles, scene"])
        #expect(r.shell.currentName == "lander", "exploring does not press")
        // A finger resting on a pill hears it without moving.
        r.heard = []
        r.wait(10)
        r.send([touch(1, .began, bar[0].midX, bar[0].midY)])
        r.wait(0.5)
        r.send([touch(1, .ended, bar[0].midX, bar[0].midY)])
        #expect(r.heard == ["Lander, scene, selected"])
    }

    @Test func aDoubleTapAnywhereActivatesWhatWasLastSpoken() {
        let r = Rig()
        r.turnSpeechOn()
        let bar = r.pills
        r.slide(from: bar[0].center, to: bar[1].center)
        r.wait(3)
        r.doubleTap(Point(x: 900, y: 500))
        r.wait(0.5)
        #expect(r.shell.currentName == "tiles")
        // The tiles say where they are; a double tap selects the one spoken (a tap on it).
        r.heard = []
        let tiles = r.shell.current as! TileBoardScene
        let first = tiles.tileViews.values.min { $0.convert($0.bounds, to: nil).minY * 10_000 + $0.convert($0.bounds, to: nil).minX
            < $1.convert($1.bounds, to: nil).minY * 10_000 + $1.convert($1.bounds, to: nil).minX }!
        let c = first.convert(first.bounds, to: nil).center
        r.rest(c)
        #expect(r.heard == ["Tile 1 of 24, button"])
        r.wait(2)
        r.doubleTap(Point(x: 600, y: 700))
        r.wait(0.5)
        #expect(tiles.model.selectedIDs.count == 1)
        #expect(r.heard.last == "Tile 1 of 24, button, selected. 1 selected", "the new state, then the board's hint")
        r.heard = []
        r.rest(Point(x: c.x + 3, y: c.y))
        #expect(r.heard.isEmpty, "still the focused tile: not said again")
        r.slide(from: Point(x: c.x + 3, y: c.y), to: Point(x: c.x + 300, y: c.y))
        r.slide(from: Point(x: c.x + 300, y: c.y), to: c, seconds: 1)
        #expect(r.heard.last == "Tile 1 of 24, button, selected")
        // Remove, chosen the same way: the selected tile goes and the board's hint is said.
        let remove = tiles.removeButton.convert(tiles.removeButton.bounds, to: nil).center
        r.wait(1)
        r.rest(remove)
        r.wait(1)
        r.doubleTap(Point(x: 600, y: 700))
        r.wait(1)
        #expect(tiles.model.tiles.count == 23)
        #expect(r.heard.last?.hasSuffix("Tap or drag across tiles to select them") == true, "\(r.heard)")
    }

    @Test func aVisitorWithoutSightFliesTheLanderByDoubleTapsAndHearsTheLanding() {
        let r = Rig()
        r.turnSpeechOn()
        let lander = r.shell.current as! LanderScene
        let pad = lander.pad.buttons.map { $0.convert($0.bounds, to: nil).center }
        let start = lander.model.state
        r.wait(30)
        #expect(lander.model.state == start, "the rocket waits while the visitor explores")
        r.heard = []
        r.rest(pad[1])
        #expect(r.heard == ["Thrust, button"])
        r.wait(1)
        r.doubleTap(Point(x: 400, y: 500))
        #expect(lander.model.engineOn && r.heard.last == "Thrust, button, selected", "\(r.heard)")
        for _ in 0..<120 { r.wait(1.0 / 60) }
        #expect(lander.model.state.y > start.y, "flying from the first use of a control: it climbs")
        r.doubleTap(Point(x: 400, y: 500))
        #expect(!lander.model.engineOn && r.heard.last == "Thrust, button")
        r.rest(pad[2])
        let heading = lander.model.state.heading
        r.wait(1)
        r.doubleTap(Point(x: 400, y: 500))
        #expect(approx(lander.model.state.heading, heading + LanderModel.turnStep))
        #expect(r.heard.last == "Tilted 15° right", "what the turn did is said")
        r.rest(pad[0])
        r.wait(1)
        r.doubleTap(Point(x: 400, y: 500))
        #expect(r.heard.last == "Upright")
        // The readout is there to be heard; the flight's end is said as it happens.
        r.rest(lander.readout.convert(lander.readout.bounds, to: nil).center)
        #expect(r.heard.last?.hasPrefix(lander.readout.text) == true, "\(r.heard)")
        lander.model.state.vy = -30
        for _ in 0..<600 where lander.model.isFlying { r.wait(1.0 / 60) }
        #expect(r.heard.last == "Crashed")
    }

    @Test func aFlickRightOrLeftMovesToTheNextOrPreviousThing() {
        let r = Rig()
        r.turnSpeechOn()
        r.heard = []
        r.slide(from: Point(x: 400, y: 600), to: Point(x: 520, y: 605), steps: 3, seconds: 0.15)
        #expect(r.heard == ["Lander, scene, selected"], "the first thing on screen")
        r.wait(1)
        r.slide(from: Point(x: 400, y: 600), to: Point(x: 520, y: 605), steps: 3, seconds: 0.15)
        #expect(r.heard.last == "Tiles, scene")
        r.wait(1)
        r.slide(from: Point(x: 520, y: 600), to: Point(x: 400, y: 605), steps: 3, seconds: 0.15)
        #expect(r.heard.last == "Lander, scene, selected")
        #expect(r.shell.currentName == "lander")
    }

    /// A flick that starts on a tile and takes 0.15 s (as fingers do, and as it came live under
    /// weston) moves to the next thing; it does not first explore the tiles it passes over.
    @Test func aFlickStartingOnAControlMovesOnWithoutExploringOnTheWay() {
        let r = Rig(start: "tiles")
        r.turnSpeechOn()
        let tiles = r.shell.current as! TileBoardScene
        let c = tiles.tileViews.values.map { $0.convert($0.bounds, to: nil) }.min { ($0.minY, $0.minX) < ($1.minY, $1.minX) }!.center
        r.rest(c)
        r.heard = []
        r.wait(1)
        r.slide(from: c, to: Point(x: c.x + 150, y: c.y + 2), steps: 3, seconds: 0.16)
        #expect(r.heard == ["Tile 2 of 24, button"])
    }

    /// Every control of the visitors' scenes and the scene bar says what it is, in every language
    /// the kiosk has, in the usual and the large mode (where the tiles come a page at a time): a
    /// control without a spoken label fails here.
    @Test(arguments: shippedLanguages) func everyControlSaysWhatItIsInEveryLanguage(language: Language) {
        for (scene, large) in [("lander", false), ("tiles", false), ("lander", true), ("tiles", true)] {
            let r = Rig(language: language, start: scene)
            if large {
                // What the stage gives the shell in the large mode on this 1280×800 screen.
                var info = DisplayInfo(size: Size(width: 640, height: 400), scale: 2)
                info.isLarge = true
                r.shell.isLarge = true
                r.shell.layout(info)
                r.wait(1)
                let tiles = r.shell.current as? TileBoardScene
                #expect(tiles.map { !$0.nextPage.isHidden } ?? true, "the tiles come a page at a time")
            }
            let texts = kioskTexts(language)
            var controls: [View] = []
            func visit(_ v: View) {
                guard !v.isHidden else { return }
                if v is Button || v is PadButton || v is TileView { controls.append(v) }
                v.subviews.forEach(visit)
            }
            visit(r.shell.window)
            #expect(controls.count >= (scene == "tiles" && !large ? 28 : 6), "\(scene): found \(controls.count) controls")
            let elements = r.shell.window.accessibilityElements()
            for c in controls where c.alpha > 0.01 {
                let said = c.spokenDescription(texts) ?? ""
                #expect(elements.contains { $0 === c }, "\(language) \(scene): \(c.accessibilityIdentifier ?? "\(type(of: c))") is not read")
                #expect(!said.isEmpty && !["access.", "lander.", "tiles.", "panel."].contains { said.contains($0) },
                        "\(language) \(scene): '\(said)'")
                // A name in words, not a symbol read out (an arrow button titled "▶").
                #expect((c.spokenLabel ?? "").contains { $0.isLetter }, "\(language) \(scene): '\(c.spokenLabel ?? "")' names nothing")
            }
        }
    }

    /// With speech on, a touch still wakes the screensaver; the fresh start for the next visitor
    /// brings back the site's default (`[access] speech`), saying nothing to an empty room.
    @Test func theScreensaverWakesToATouchAndTheNextVisitorGetsTheSitesDefault() {
        let r = Rig()
        let saver = ScreensaverController(shell: r.shell, scheduler: r.scheduler, idleTimeout: 10)
        r.shell.resetsOnWake = true
        r.shell.siteMode.speaks = true
        r.reader.setOn(true)
        r.turnSpeechOn() // the visitor turns it off
        #expect(!r.reader.isOn)
        r.wait(20)
        #expect(r.shell.showing == .screensaver)
        r.heard = []
        r.tap(Point(x: 640, y: 400))
        r.wait(2)
        #expect(r.shell.showing == .scene && r.reader.isOn && r.heard.isEmpty)
        _ = saver
    }

    /// With speech on a visitor has longer (`[access] idle_timeout`), and is asked on screen and
    /// aloud whether they need more time before it runs out; any touch gives it.
    @Test func aVisitorWithSpeechHasLongerAndIsAskedBeforeTheirTimeRunsOut() {
        let r = Rig()
        let saver = ScreensaverController(shell: r.shell, scheduler: r.scheduler, idleTimeout: 60)
        saver.accessibleIdleTimeout = 300
        r.wait(59)
        r.turnSpeechOn() // at 59 s: the visitor's time starts again, five minutes long
        r.heard = []
        r.wait(200)
        #expect(r.shell.showing == .scene && !r.shell.isAskingForMoreTime)
        r.wait(75) // 30 s before the end
        #expect(r.shell.isAskingForMoreTime)
        #expect(r.heard == ["Do you need more time? Touch the screen to go on."])
        r.rest(Point(x: 900, y: 600)) // the first touch after a long pause answers it
        #expect(!r.shell.isAskingForMoreTime)
        r.wait(290)
        #expect(r.shell.showing == .scene, "the time counted again from the touch")
        r.wait(15)
        #expect(r.shell.showing == .screensaver && !r.shell.isAskingForMoreTime)
        // The next visitor: the fresh start turns speech off again (the site's default), the
        // site's own timeout applies, and nobody is asked.
        r.tap(Point(x: 640, y: 400))
        r.wait(1)
        #expect(!r.reader.isOn)
        r.heard = []
        r.wait(61)
        #expect(r.shell.showing == .screensaver && r.heard.isEmpty)
        _ = saver
    }

    /// A key held down is one step: its repeats move nothing and choose nothing again.
    @Test func aHeldKeyDoesNotRepeatItsStep() {
        let r = Rig()
        r.turnSpeechOn()
        func key(_ k: UInt32, pressed: Bool = true, repeated: Bool = false) {
            r.shell.handle(KeyEvent(keysym: k, text: "", pressed: pressed, isRepeat: repeated, time: r.now))
            r.wait(0.1)
        }
        r.heard = []
        key(Key.tab)
        for _ in 0..<5 { key(Key.tab, repeated: true) }
        key(Key.tab, pressed: false)
        #expect(r.heard == ["Lander, scene, selected"])
        key(Key.tab); key(Key.tab, pressed: false)
        key(Key.return)
        for _ in 0..<5 { key(Key.return, repeated: true) }
        key(Key.return, pressed: false)
        r.wait(1)
        #expect(r.shell.currentName == "tiles")
        #expect(r.heard.filter { $0.hasPrefix("Tiles, scene, selected") }.count == 1, "\(r.heard)")
    }

    /// A keypad or keyboard, as on ticket machines: Tab moves a visible ring (and speaks, with
    /// speech on), Enter chooses, Escape leaves; without speech the arrows stay the lander's.
    @Test func aKeypadMovesARingThroughTheControlsAndEnterChooses() {
        let r = Rig()
        func press(_ k: UInt32, _ mods: Modifiers = []) {
            r.shell.handle(KeyEvent(keysym: k, text: "", pressed: true, modifiers: mods, time: r.now))
            r.shell.handle(KeyEvent(keysym: k, text: "", pressed: false, modifiers: mods, time: r.now + 0.05))
            r.wait(0.1)
        }
        press(Key.tab)
        #expect(r.reader.focused?.accessibilityIdentifier == "scene bar lander" && r.heard.isEmpty, "speech off: nothing said")
        let ring = r.shell.window.subviews.last!
        #expect(ring is FocusRing && ring.frame.contains(r.pills[0].center))
        press(Key.tab)
        #expect(r.reader.focused?.accessibilityIdentifier == "scene bar tiles")
        press(Key.tab, .shift)
        press(Key.tab)
        press(Key.return)
        r.wait(1)
        #expect(r.shell.currentName == "tiles")
        press(Key.escape)
        #expect(r.reader.focused == nil && !(r.shell.window.subviews.last is FocusRing))
        // The arrows are the scene's without speech; with it, they move too.
        press(Key.right)
        #expect(r.reader.focused == nil)
        r.turnSpeechOn()
        r.heard = []
        press(Key.right)
        press(Key.right)
        #expect(r.heard == ["Lander, scene", "Tiles, scene, selected"])
    }

    /// The round pill with the symbol of access: a tap turns speech on; with speech on, it says
    /// what it is and a double tap turns speech off again.
    @Test func theSpeechPillTurnsSpeechOnAndADoubleTapOnItTurnsItOff() {
        let r = Rig(language: shipped("de"))
        let pill = r.shell.chromeBar.speechButton.convert(r.shell.chromeBar.speechButton.bounds, to: nil)
        #expect(r.pills.last == pill)
        r.tap(pill.center)
        #expect(r.reader.isOn && r.heard.first?.hasPrefix("Sprachausgabe an.") == true)
        r.heard = []
        r.rest(pill.center, seconds: 0.4)
        #expect(r.heard == ["Sprachausgabe, Taste, ausgewählt"])
        r.wait(2)
        r.doubleTap(Point(x: 600, y: 600))
        #expect(!r.reader.isOn && r.heard.last == "Sprachausgabe aus.")
    }
}
