import Testing
@testable import Kiosk
@testable import KioskScenes
@testable import KioskUI
@testable import KioskRender
@testable import KioskCore

@Suite struct AdminGestureTests {
    /// Three fingers in the top-left corner of a 1280×800 screen (96 dpi: 40 mm ≈ 151 pt).
    let corner = [(40.0, 40.0), (90.0, 60.0), (60.0, 110.0)]

    func down(_ r: ShellTests.Rig, _ pts: [(Double, Double)], from id: Int32 = 1) {
        r.shell.handle(TouchBatch(time: r.now, points: pts.enumerated().map { touch(id + Int32($0.offset), .began, $0.element.0, $0.element.1) }))
    }

    @Test(arguments: ["tiles", "touch", "lander"]) func threeFingersHeldInTheCornerAskForThePanelOnEveryScene(scene: String) {
        let r = ShellTests.Rig(idle: 0, start: scene)
        r.shell.adminCorner = .topLeft
        var asked = 0
        r.shell.adminAsked.add { asked += 1 }
        r.wait(0.5)
        down(r, corner)
        for _ in 0..<Int(Shell.adminHold * 60) + 12 { r.wait(1.0 / 60) }
        #expect(asked == 1, "\(scene)")
    }

    @Test func threeFingersHeldInTheCornerAskForThePanelAndLeaveNothingPressed() {
        let r = ShellTests.Rig(idle: 0, start: "tiles")
        r.shell.adminCorner = .topLeft
        var asked = 0
        r.shell.adminAsked.add { asked += 1 }
        r.wait(0.5)
        down(r, corner)
        r.wait(Shell.adminHold - 0.1)
        #expect(asked == 0)
        r.wait(0.2)
        #expect(asked == 1)
        // The lifts are swallowed: no tile toggles and nothing is left tracking.
        r.shell.handle(TouchBatch(time: r.now, points: (1...3).map { touch(Int32($0), .ended, 60, 60) }))
        r.wait(0.5)
        #expect(r.tiles.model.selectedIDs.isEmpty)
    }

    @Test func twoFingersAMovingFingerAnotherCornerOrOffDoNothing() {
        for variant in 0..<4 {
            let r = ShellTests.Rig(idle: 0, start: "touch")
            r.shell.adminCorner = variant == 3 ? nil : .topLeft
            var asked = 0
            r.shell.adminAsked.add { asked += 1 }
            switch variant {
            case 0: down(r, Array(corner.prefix(2)))
            case 1:
                down(r, corner)
                r.wait(1)
                r.shell.handle(TouchBatch(time: r.now, points: [touch(2, .moved, 200, 60)]))
            case 2: down(r, corner.map { (1280 - $0.0, $0.1) })
            default: down(r, corner)
            }
            r.wait(Shell.adminHold + 1)
            #expect(asked == 0, "variant \(variant)")
        }
    }

    @Test func theOverlayTakesInputUntilClosedAndTheScreensaverClosesIt() {
        let r = ShellTests.Rig(idle: 30, start: "tiles")
        var outcomes: [AdminPanel.Outcome] = []
        let panel = AdminPanel(fonts: FontCache(), scheduler: r.scheduler, settings: Settings()) { outcomes.append($0) }
        r.shell.show(.admin(panel))
        r.wait(0.1)
        r.shell.handle(KeyEvent(keysym: 0xff1b, text: "", pressed: true, time: r.now)) // Escape
        #expect(outcomes == [.cancel])
        r.shell.show(.scene)
        #expect(r.shell.overlay == nil)
        r.shell.show(.admin(AdminPanel(fonts: FontCache(), scheduler: r.scheduler, settings: Settings()) { _ in }))
        r.wait(31)
        #expect(r.shell.showingScreensaver && r.shell.overlay == nil)
    }
}

@Suite struct AdminPanelTests {
    @Test func buttonsChangeValuesAndSaveReportsOnlyTheChanges() {
        var outcome: AdminPanel.Outcome?
        let s = ManualScheduler()
        let panel = AdminPanel(fonts: FontCache(), scheduler: s, settings: Settings()) { outcome = $0 }
        panel.layout(DisplayInfo(size: Size(width: 1280, height: 800)))
        func find(_ v: View) -> [Button] { (v as? Button).map { [$0] } ?? [] + v.subviews.flatMap(find) }
        func tap(_ title: String, _ n: Int = 0) {
            let b = find(panel.view).filter { $0.title == title && !$0.isHidden }[n]
            let p = b.convert(Point(x: b.bounds.width / 2, y: b.bounds.height / 2), to: nil)
            panel.handle(TouchBatch(time: s.now, points: [touch(9, .began, p.x, p.y)]))
            panel.advance(to: s.now + 0.05)
            panel.handle(TouchBatch(time: s.now, points: [touch(9, .ended, p.x, p.y)]))
            panel.advance(to: s.now + 0.05)
        }
        tap("+", 0)          // speed 150 → 200
        tap("+", 0)          // → 300
        tap("Left")
        tap("−", 1); tap("−", 1) // idle 120 → 60 → 30
        tap("90°")
        #expect(panel.values == ["words.speed": "300", "lander.pad": "\"left\"", "shell.idle_timeout": "30", "shell.rotate": "90"])
        tap("Left"); tap("Right") // back to the starting side: not a change
        tap("Save")
        #expect(outcome == .save(PanelSettings(["words.speed": "300", "shell.idle_timeout": "30", "shell.rotate": "90"])))
    }

    @Test func aPinGuardsThePanelAndTooManyWrongTriesRest() {
        var settings = Settings()
        settings.adminPIN = "2580"
        let s = ManualScheduler()
        let panel = AdminPanel(fonts: FontCache(), scheduler: s, settings: settings) { _ in }
        panel.layout(DisplayInfo(size: Size(width: 800, height: 1280)))
        func keys(_ text: String) {
            for c in text { panel.handle(KeyEvent(keysym: c == "\n" ? 0xff0d : 0x30, text: c == "\n" ? "" : String(c), pressed: true, time: s.now)) }
        }
        #expect(!panel.unlocked)
        for _ in 0..<AdminPanel.maxTries { keys("1111\n") }
        keys("2580\n") // right, but the keypad is resting
        #expect(!panel.unlocked)
        s.advance(to: AdminPanel.lockout + 1)
        keys("2580\n")
        #expect(panel.unlocked)
    }

    @Test func theRestAfterWrongPINsIsTheKiosksNotThePanels() {
        var settings = Settings()
        settings.adminPIN = "2580"
        let s = ManualScheduler(), lock = AdminLock()
        func panel() -> AdminPanel {
            let p = AdminPanel(fonts: FontCache(), scheduler: s, settings: settings, lock: lock) { _ in }
            p.layout(DisplayInfo(size: Size(width: 800, height: 1280)))
            return p
        }
        func keys(_ p: AdminPanel, _ text: String) {
            for c in text { p.handle(KeyEvent(keysym: c == "\n" ? 0xff0d : 0x30, text: c == "\n" ? "" : String(c), pressed: true, time: s.now)) }
        }
        // Three wrong here, two in a new panel: the keypad rests...
        let first = panel()
        for _ in 0..<3 { keys(first, "1111\n") }
        let second = panel()
        for _ in 0..<2 { keys(second, "1111\n") }
        // ...and a third panel, opened 6 s later, does not accept the right PIN either.
        s.advance(to: 6)
        let third = panel()
        keys(third, "2580\n")
        #expect(!third.unlocked)
        s.advance(to: AdminLock.lockout + 1)
        keys(third, "2580\n")
        #expect(third.unlocked)
    }

    @Test func withoutAPINTheGestureIsOff() {
        #expect(Settings().adminGesture == nil)
        let (s, problems) = Settings.parse("[admin]\ngesture = \"top-right\"\n", file: "k.toml")
        #expect(s.adminGesture == nil && s.adminCorner == .topRight)
        #expect(problems.map(\.description) == ["k.toml:2:11: the admin gesture needs a pin (4 to 8 digits): it is off until one is set"])
        let (withPIN, none) = Settings.parse("[admin]\npin = \"2580\"\n", file: "k.toml")
        #expect(none.isEmpty && withPIN.adminGesture == .topLeft)
    }

    @Test func anUnattendedPanelCancelsItself() {
        var outcome: AdminPanel.Outcome?
        let s = ManualScheduler()
        let panel = AdminPanel(fonts: FontCache(), scheduler: s, settings: Settings()) { outcome = $0 }
        panel.layout(DisplayInfo(size: Size(width: 1280, height: 800)))
        panel.setActive(true)
        s.advance(to: AdminPanel.inactivity - 1)
        #expect(outcome == nil)
        s.advance(to: AdminPanel.inactivity + 1)
        #expect(outcome == .cancel)
    }

    @Test func panelSettingsSitBetweenTheFileAndTheCommandLine() {
        var s = Settings.parse("[shell]\nidle_timeout = 60\nrotate = 180\n[words]\nspeed = 90\n", file: "k.toml").0
        PanelSettings(["words.speed": "300", "lander.pad": "\"left\"", "shell.rotate": "90"]).apply(to: &s)
        Overrides(scene: nil, idleTimeout: 5, rotate: nil).apply(to: &s)
        #expect(s.sections[FallingWordsConfig.self].speed == 300 && s.sections[LanderSettings.self].pad == .left && s.idleTimeout == 5 && s.rotate == Rotation(quarterTurns: 1))
        let merged = PanelSettings(["words.speed": "300", "shell.rotate": "90"]).merged(with: PanelSettings(["shell.rotate": "180"]))
        #expect(merged == PanelSettings(["words.speed": "300", "shell.rotate": "180"]))
    }

    @Test func adminSettingsParseAndABadPinTurnsTheGestureOff() {
        let (good, p1) = Settings.parse("[admin]\ngesture = \"bottom-right\"\npin = \"0042\"\n", file: "k.toml")
        #expect(p1.isEmpty && good.adminCorner == .bottomRight && good.adminPIN == "0042")
        let (off, _) = Settings.parse("[admin]\ngesture = \"off\"\n", file: "k.toml")
        #expect(off.adminCorner == nil)
        let (bad, p2) = Settings.parse("[admin]\npin = \"12ab\"\n", file: "k.toml")
        #expect(bad.adminCorner == nil && p2.map(\.description) == ["k.toml:2:7: pin must be 4 to 8 digits in quotes; the admin gesture is off until it is fixed"])
    }
}

@Suite struct AdminGoldenTests {
    func render(_ w: Double, _ h: Double, pin: String?) throws -> Image {
        var s = Settings()
        s.adminPIN = pin
        let panel = AdminPanel(fonts: testFonts, scheduler: ManualScheduler(), settings: s) { _ in }
        let r = try HeadlessRenderer(scene: panel, info: DisplayInfo(size: Size(width: w, height: h)))
        if pin != nil { panel.handle(KeyEvent(keysym: 0x31, text: "1", pressed: true, time: 0)) }
        r.run(until: 1)
        return r.image
    }
    @Test func settingsPage() throws { try GoldenImageTests().assertMatches(try render(1280, 720, pin: nil), "admin-settings") }
    @Test func pinPagePortrait() throws { try GoldenImageTests().assertMatches(try render(720, 1280, pin: "1234"), "admin-pin") }
}
