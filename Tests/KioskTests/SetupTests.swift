import Testing
#if canImport(Glibc)
import Glibc
#endif
@testable import Kiosk
@testable import KioskUI
@testable import KioskRender
@testable import KioskCore

/// The setup screen as an installer walks it: in the shell's window, on a stage that turns and
/// calibrates touches as the live kiosk does, with a touchscreen that reports every finger
/// somewhere else (`skew`: the raw position the panel sends for a finger on the glass).
@Suite struct SetupTests {
    final class Rig {
        let scheduler = ManualScheduler()
        let shell: Shell
        let stage: Stage
        /// The settings as the live kiosk has them: an empty file, a state folder of its own.
        let settings: SettingsController
        let controller: SetupController
        let setup: SetupScene
        let skew: (Point) -> Point
        let folder = "/tmp/kiosk-setup-rig-\(getpid())-\(Int.random(in: 0..<1_000_000_000))"
        var now: Double { scheduler.now }
        let size = Size(width: 1280, height: 800)

        init(skew: @escaping (Point) -> Point, step: SetupScene.Step = .touch, fromAdmin: Bool = false) {
            self.skew = skew
            let fonts = FontCache()
            let s = scheduler
            let store = StateStore(directory: folder)
            store.save(SetupChoices(), name: "empty") // makes the folder
            _ = system("touch '\(folder)/kiosk.toml'")
            let log = makeLogger(verbose: false)
            settings = SettingsController(configPath: folder + "/kiosk.toml", overrides: Overrides(), store: store, log: log, languages: loadShippedLanguages)
            let current = settings.current
            shell = Shell.make(SceneMaking(fonts: fonts, scheduler: s), names: current.scenes, start: current.start, home: current.start)
            let stage = Stage(scene: shell, info: DisplayInfo(size: size))
            self.stage = stage
            // What the application does with settings, for the stage's part.
            let orientation = PanelOrientation(scheduler: s, say: { _ in })
            orientation.onTurn = { stage.setRotation($0) }
            settings.apply = { new, _ in stage.apply(new); orientation.apply(new) }
            let shell = shell
            controller = SetupController(settings: settings, store: store, log: log, scheduler: s, shell: shell, stage: stage, fonts: fonts) { then in
                s.schedule(after: 0) { if shell.showing.isAdmin { shell.show(.scene) }; then() }
            }
            controller.open(at: step, fromAdmin: fromAdmin)
            setup = shell.overlay as! SetupScene
            wait(1)
        }
        deinit { _ = system("rm -rf '\(folder)'") }

        /// The choices "Start the kiosk" kept.
        var outcome: SetupChoices? { setup.finished ? settings.savedSetup : nil }

        func wait(_ dt: Double) { stage.advance(to: now + dt) }
        /// A finger on the glass at `p` (window coordinates), as the panel reports it.
        func send(_ id: Int32, _ phase: TouchPhase, _ p: Point) {
            let raw = skew(p)
            shell.handle(stage.toScene(TouchBatch(time: now, points: [touch(id, phase, raw.x, raw.y)])))
        }
        func tapGlass(_ p: Point) {
            send(1, .began, p)
            wait(0.08)
            send(1, .ended, p)
            wait(0.2)
        }
        /// Taps what is drawn at scene point `p`: where it shows on the glass.
        func tap(_ p: Point) { tapGlass(stage.sceneToWindow.apply(p)) }
        func tap(_ v: View) { tap(v.convert(Point(x: v.bounds.midX, y: v.bounds.midY), to: nil)) }
    }

    /// A touch controller mounted mirrored left to right, a little small and off.
    static func mirrored(_ p: Point) -> Point { Point(x: 1280 - p.x * 0.97 - 12, y: p.y * 1.02 + 8) }
    /// One with its axes swapped (as if turned and flipped).
    static func swapped(_ p: Point) -> Point { Point(x: p.y * 1280 / 800, y: p.x * 800 / 1280) }

    @Test(arguments: [0, 1]) func aSkewedPanelIsCalibratedByTapsAloneAndTheSetupWalkedByTouch(which: Int) throws {
        let skews: [(Point) -> Point] = [{ SetupTests.mirrored($0) }, { SetupTests.swapped($0) }]
        let skew = skews[which]
        let r = Rig(skew: skew)
        #expect(r.setup.step == .touch)
        // Touch lands elsewhere: the installer holds a finger still anywhere.
        let centre = Point(x: 640, y: 400)
        r.send(1, .began, centre)
        r.wait(SetupScene.holdToCalibrate + 0.2)
        r.send(1, .ended, centre)
        r.wait(0.1)
        #expect(r.setup.step == .calibrate)
        #expect(r.setup.calibration.isCollecting)
        // Each target as it shows, a little off as fingers are.
        let noise = [Point(x: 1.5, y: -1), Point(x: -2, y: 1), Point(x: 1, y: 2), Point(x: -1, y: -1.5), Point(x: 0.5, y: 1)]
        for i in 0..<5 {
            let target = try #require(r.setup.calibration.run?.targets[r.setup.calibration.run!.asking!])
            r.tapGlass(target + noise[i])
        }
        #expect(!r.setup.calibration.isCollecting)
        let fit = try #require(r.setup.calibration.lastFit)
        let mm = DisplayInfo.fallbackPointsPerMillimetre
        #expect(fit.errorsAfter.allSatisfy { $0 < 3 * mm })
        #expect(fit.errorsBefore.max()! > 20 * mm)
        #expect(r.stage.touchMatrix != nil && r.setup.choices.touchMatrix == r.stage.touchMatrix)
        // Now a tap lands where the finger is: the step buttons answer.
        r.tap(r.setup.stepButtons[SetupScene.Step.rotate.rawValue])
        #expect(r.setup.step == .rotate)
        r.tap(r.setup.rotation.buttons[1])
        #expect(r.stage.rotation == Rotation(quarterTurns: 1))
        r.wait(0.5)
        // Turned: the check circle is where it is drawn now, and touch follows the calibration.
        r.tap(r.setup.rotation.check)
        #expect(r.setup.rotation.check.backgroundColor == Color.leaf)
        r.tap(r.setup.stepButtons[SetupScene.Step.pin.rawValue])
        for k in ["1", "2", "3", "4", "OK", "1", "2", "3", "4", "OK"] {
            r.tap(r.setup.pin.keys.first { $0.title == k }!)
        }
        #expect(r.setup.choices.pin == "1234")
        r.tap(r.setup.stepButtons[SetupScene.Step.scenes.rawValue])
        r.tap(r.setup.scenes.starts[1]) // start on the tiles
        r.tap(r.setup.finishButton)
        let out = try #require(r.outcome)
        #expect(out.done && out.pin == "1234" && out.rotate == 1 && out.start == "tiles")
        #expect(out.touchMatrix == r.stage.touchMatrix)
    }

    @Test func theFittedMatrixUndoesTheSkewAsLibinputWould() throws {
        let r = Rig(skew: Self.mirrored, step: .calibrate)
        for _ in 0..<5 {
            let target = try #require(r.setup.calibration.run?.targets[r.setup.calibration.run!.asking!])
            r.tapGlass(target)
        }
        let m = try #require(r.stage.touchMatrix)
        let t = try #require(TouchCalibration.transform(libinputMatrix: m, size: r.size))
        for p in [Point(x: 100, y: 100), Point(x: 1000, y: 700), Point(x: 640, y: 200)] {
            #expect(t.apply(Self.mirrored(p)).distance(to: p) < 0.5)
        }
        // A mirrored x: libinput's a is about −1.
        #expect(m[0] < -0.9)
    }

    @Test func twoFingersHeldAreATestNotAHold() {
        let r = Rig(skew: { $0 })
        r.send(1, .began, Point(x: 400, y: 400))
        r.send(2, .began, Point(x: 700, y: 500))
        r.wait(SetupScene.holdToCalibrate + 1)
        #expect(r.setup.step == .touch)
        r.send(1, .ended, Point(x: 400, y: 400))
        r.send(2, .ended, Point(x: 700, y: 500))
        // One finger alone, held still: calibration.
        r.send(3, .began, Point(x: 400, y: 400))
        r.wait(SetupScene.holdToCalibrate + 0.1)
        #expect(r.setup.step == .calibrate)
    }

    @Test func aMistapIsAskedAgainAndResetLeavesTouchAsSent() throws {
        let r = Rig(skew: { $0 }, step: .calibrate)
        for i in 0..<5 {
            let target = try #require(r.setup.calibration.run?.targets[r.setup.calibration.run!.asking!])
            r.tapGlass(i == 2 ? target + Point(x: -150, y: -90) : target)
        }
        // The third was far off the fit of the others: asked again.
        #expect(r.setup.calibration.run?.asking == 2)
        r.tapGlass(r.setup.calibration.run!.targets[2])
        #expect(!r.setup.calibration.isCollecting)
        #expect(r.setup.calibration.lastFit!.errorsAfter.max()! < 0.5)
        // "No calibration": identity, kept as a choice.
        r.setup.calibration.onReset?()
        #expect(r.stage.touchMatrix == nil)
        #expect(r.setup.choices.touchMatrix == TouchCalibration.identityMatrix)
    }

    @Test func theTwoPINsMustAgree() {
        let r = Rig(skew: { $0 }, step: .pin)
        for k in ["1", "2", "3", "4", "OK", "4", "3", "2", "1", "OK"] { r.tap(r.setup.pin.keys.first { $0.title == k }!) }
        #expect(r.setup.choices.pin == nil)
        for k in ["1", "2", "OK"] { r.tap(r.setup.pin.keys.first { $0.title == k }!) }
        #expect(r.setup.choices.pin == nil)
    }

    /// With speech on, each step says its name and what to do there.
    @Test func withSpeechEachStepIsSaid() {
        let r = Rig(skew: { $0 })
        var heard: [String] = []
        r.shell.window.screenReader.speak = { heard.append($0.text) }
        r.shell.window.screenReader.setOn(true, saying: false)
        r.setup.go(to: .rotate)
        r.setup.go(to: .rotate)
        #expect(heard == ["3 Rotate. Turn the picture; touch turns with it. Tap the circle to check."])
    }

    @Test func theSetupWaitsForTheInstallerNotTheScreensaver() {
        let r = Rig(skew: { $0 })
        let saver = ScreensaverController(shell: r.shell, scheduler: r.scheduler, idleTimeout: 5)
        r.shell.show(.scene)
        r.shell.show(.admin(r.setup))
        r.wait(60)
        #expect(r.shell.showing.isAdmin)
        // Opened from the admin panel and left: the screensaver, as after the panel itself.
        r.controller.open(at: .touch, fromAdmin: true)
        r.wait(6)
        #expect(r.shell.showing == .screensaver)
        _ = saver
    }

    @Test func aSetupLeftUnfinishedLeavesThePanelAsTheSettingsHaveIt() throws {
        let r = Rig(skew: Self.mirrored, step: .calibrate, fromAdmin: true)
        let saver = ScreensaverController(shell: r.shell, scheduler: r.scheduler, idleTimeout: 30)
        for _ in 0..<5 {
            let target = try #require(r.setup.calibration.run?.targets[r.setup.calibration.run!.asking!])
            r.tapGlass(target)
        }
        r.tap(r.setup.stepButtons[SetupScene.Step.rotate.rawValue])
        r.tap(r.setup.rotation.buttons[1])
        // Shown at once, through the settings.
        #expect(r.stage.rotation == Rotation(quarterTurns: 1) && r.settings.current.rotate == r.stage.rotation)
        #expect(r.stage.touchMatrix != nil && r.settings.current.touchMatrix == r.stage.touchMatrix)
        // The operator walks away; the screensaver takes over.
        r.wait(31)
        #expect(r.shell.showing == .screensaver)
        #expect(r.stage.rotation == .upright && r.stage.touchMatrix == nil)
        #expect(r.settings.current.rotate == .upright && r.settings.current.touchMatrix == nil && r.settings.setupPreview == nil)
        #expect(r.settings.savedSetup == nil, "nothing of it kept")
        // The admin panel agrees: the turn is the accelerometer's again (upright without one).
        let panel = AdminPanel(fonts: FontCache(), scheduler: r.scheduler, settings: r.settings.current, lock: AdminLock()) { _ in }
        #expect(panel.values["shell.rotate"] == "\"auto\"")
        _ = saver
    }

    @Test func aFinishedSetupIsKeptAndTheAdminPanelsOwnTurnGivesWay() throws {
        let r = Rig(skew: { $0 }, step: .rotate, fromAdmin: true)
        r.settings.panelClosed(.save(PanelSettings(["shell.rotate": "180"])))
        #expect(r.stage.rotation == Rotation(quarterTurns: 2))
        r.tap(r.setup.rotation.buttons[1])
        #expect(r.stage.rotation == Rotation(quarterTurns: 1))
        r.tap(r.setup.finishButton)
        #expect(r.shell.showing == .scene)
        // The newest choice wins, now and after a restart.
        #expect(r.stage.rotation == Rotation(quarterTurns: 1) && r.settings.current.rotate == r.stage.rotation)
        #expect(r.settings.savedSetup?.rotate == 1)
    }

    // MARK: Choices, kept and applied

    @Test func choicesApplyWhereTheFileIsSilentAndTheFileWinsElsewhere() {
        let choices = SetupChoices(done: true, touchMatrix: [-1, 0, 1, 0, 1, 0], rotate: 1, pin: "2468", scenes: ["lander"], start: "lander")
        var plain = Settings()
        choices.apply(to: &plain)
        #expect(plain.touchMatrix == [-1, 0, 1, 0, 1, 0] && plain.rotate == Rotation(quarterTurns: 1))
        #expect(plain.adminPIN == "2468" && plain.scenes == ["lander"])
        var (file, problems) = Settings.parse("[shell]\nrotate = 180\n[touch]\nmatrix = [1, 0, 0, 0, -1, 1]\n", file: "k.toml", languages: shippedLanguages)
        #expect(problems.isEmpty)
        choices.apply(to: &file)
        #expect(file.rotate == Rotation(quarterTurns: 2) && file.touchMatrix == [1, 0, 0, 0, -1, 1])
        #expect(file.adminPIN == "2468")
        // A saved file edited by hand: what cannot be used is left out, each said, as in the
        // file (a PIN that cannot be typed turns the gesture off).
        var edited = Settings()
        let said = SetupChoices(touchMatrix: [0, 0, 0, 0, 0, 0], rotate: 7, pin: "12", scenes: ["words"], start: "touch").apply(to: &edited)
        #expect(said.count == 4 && said.allSatisfy { $0.hasPrefix("setup.json: ") }, "\(said)")
        #expect(edited.adminGesture == nil)
        edited.adminCorner = Settings().adminCorner
        #expect(edited == Settings())
    }

    @Test func theInstallerChoosesTheKiosksLanguageAndTheSetupSpeaksItAtOnce() throws {
        let r = Rig(skew: { $0 }, step: .scenes)
        #expect(r.setup.scenes.languageButtons.map(\.title) == ["English", "العربية", "Deutsch", "Español", "Français", "日本語"])
        r.tap(r.setup.scenes.languageButtons[1])
        #expect(r.setup.texts.language.code == "ar" && r.setup.view.isRightToLeft)
        #expect(r.setup.finishButton.title == "تشغيل الكشك")
        // Mirrored: step 1 on the right, the finish on the left.
        #expect(r.setup.stepButtons[0].frame.minX > r.setup.stepButtons[4].frame.minX)
        #expect(r.setup.finishButton.frame.minX < r.setup.stepButtons[4].frame.minX)
        r.tap(r.setup.scenes.languageButtons[4])
        #expect(r.setup.finishButton.title == "Lancer le kiosque" && !r.setup.view.isRightToLeft)
        r.tap(r.setup.finishButton)
        let choices = try #require(r.outcome)
        #expect(choices.language == "fr")
        var s = Settings()
        s.knownLanguages = shippedLanguages
        choices.apply(to: &s)
        #expect(s.language.code == "fr" && s.kioskTexts["tiles.refill"] == "Remplir")
        // A language in the file wins.
        var file = Settings.parse("[shell]\nlanguage = \"de\"\n", file: "k.toml", languages: shippedLanguages).0
        choices.apply(to: &file)
        #expect(file.language.code == "de")
    }

    @Test func setupShowsOnlyWithoutAPINWithoutAnEarlierSetupAndWithoutASceneAsked() {
        var s = Settings()
        #expect(SetupChoices.isNeeded(settings: s, saved: nil, sceneAsked: false, ranBefore: false))
        // Begun and interrupted (a power cut mid-setup): again.
        #expect(SetupChoices.isNeeded(settings: s, saved: SetupChoices(done: false), sceneAsked: false, ranBefore: true))
        #expect(!SetupChoices.isNeeded(settings: s, saved: SetupChoices(done: true), sceneAsked: false, ranBefore: false))
        #expect(!SetupChoices.isNeeded(settings: s, saved: nil, sceneAsked: true, ranBefore: false))
        // Upgraded from a kiosk without setups: it was set up then.
        #expect(!SetupChoices.isNeeded(settings: s, saved: nil, sceneAsked: false, ranBefore: true))
        s.adminPIN = "1234"
        #expect(!SetupChoices.isNeeded(settings: s, saved: nil, sceneAsked: false, ranBefore: false))
    }

    @Test func theChoicesComeBackAfterARestartAndUseFileSettingsKeepsOnlyThePIN() throws {
        let dir = "/tmp/kiosk-setup-test-\(getpid())-\(Int.random(in: 0..<1_000_000))"
        defer { _ = system("rm -rf '\(dir)'") }
        let store = StateStore(directory: dir)
        store.save(SetupChoices(), name: "empty") // makes the folder
        let file = dir + "/kiosk.toml"
        #expect(system("printf '[words]\\nspeed = 90\\n' > '\(file)'") == 0)
        let log = makeLogger(verbose: false)
        let controller = SettingsController(configPath: file, overrides: Overrides(), store: store, log: log, languages: loadShippedLanguages)
        controller.setupFinished(SetupChoices(done: true, touchMatrix: [0, 1, 0, 1, 0, 0], rotate: 3, pin: "9999", scenes: ["tiles"], start: "tiles"))
        let again = SettingsController(configPath: file, overrides: Overrides(), store: store, log: log, languages: loadShippedLanguages)
        #expect(again.current.touchMatrix == [0, 1, 0, 1, 0, 0] && again.current.rotate == Rotation(quarterTurns: 3))
        #expect(again.current.scenes == ["tiles"] && again.current.start == "tiles" && again.current.adminPIN == "9999")
        again.panelClosed(.useFile)
        #expect(again.current.touchMatrix == nil && again.current.rotate == .upright && again.current.scenes == SceneCatalog.standard.defaultScenes)
        #expect(again.current.adminPIN == "9999")
        #expect(again.savedSetup?.done == true)
    }

    @Test func visitorsGetTheLanderAndTheTilesAndStartOnTheLander() {
        let s = Settings()
        #expect(s.scenes == ["lander", "tiles"] && s.start == "lander")
        // An operator may still put the touch test in the bar (a bench).
        let (bench, problems) = Settings.parse("[shell]\nscenes = [\"touch\", \"tiles\"]\nstart = \"touch\"\n", file: "k.toml", languages: shippedLanguages)
        #expect(problems.isEmpty && bench.scenes == ["touch", "tiles"] && bench.start == "touch")
    }

    @Test func theUdevLineIsLibinputsMatrix() {
        #expect(SetupScene.udevLine([-1, 0, 1, 0, 1.000049, 0]) == "ENV{LIBINPUT_CALIBRATION_MATRIX}=\"-1 0 1 0 1 0\"")
        #expect(String(rounded: -0.00001, digits: 4) == "0")
    }
}
