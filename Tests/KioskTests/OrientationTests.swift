import Testing
@testable import Kiosk
@testable import KioskScenes
@testable import KioskCore
import KioskRender

/// The picture's turn from the panel's accelerometer (`PanelOrientation`): readings as
/// iio-sensor-proxy sends them, each at its own time on a fake clock.
@Suite struct OrientationTests {
    final class Rig {
        let scheduler = ManualScheduler()
        let orientation: PanelOrientation
        var turns: [Int] = []

        init(_ settings: Settings = Settings(), landscape: Bool = true) {
            orientation = PanelOrientation(scheduler: scheduler, say: { _ in })
            orientation.onTurn = { [unowned self] in turns.append($0.degrees) }
            orientation.apply(settings)
            orientation.panel(landscape: landscape)
        }

        /// The proxy's reports, as a kiosk gets them at start on a panel with an accelerometer.
        func sensorFound(_ first: SensorOrientation?) {
            orientation.sensor(.hasAccelerometer(true))
            orientation.sensor(.orientation(first))
        }

        func read(_ o: SensorOrientation?, after seconds: Double = 0) {
            wait(seconds)
            orientation.sensor(.orientation(o))
        }

        func wait(_ seconds: Double) { scheduler.advance(to: scheduler.now + seconds) }
        var degrees: Int { orientation.rotation.degrees }
    }

    @Test func eachEdgeUpTurnsThePictureToStandUpright() {
        // iio-sensor-proxy's names for which edge of the panel is up, and the clockwise turn of
        // the picture that undoes the panel's: mutter's and KDE's mapping.
        #expect(SensorOrientation.rightUp.rotation.degrees == 90)
        #expect(SensorOrientation.bottomUp.rotation.degrees == 180)
        #expect(SensorOrientation.leftUp.rotation.degrees == 270)
        #expect(Orientation(turned: Rotation(quarterTurns: 1), onLandscapePanel: true) == .portrait)
        #expect(Orientation(turned: Rotation(quarterTurns: 3), onLandscapePanel: true) == .portraitUpsideDown)
        #expect(Orientation(turned: Rotation(quarterTurns: 1), onLandscapePanel: false) == .landscape)
        #expect(Orientation(turned: Rotation(quarterTurns: 2), onLandscapePanel: false) == .portraitUpsideDown)
    }

    @Test func theFirstReadingIsFollowedAtOnceAndAChangeOnceItHeld() {
        let r = Rig()
        r.sensorFound(.leftUp)
        #expect(r.degrees == 270 && r.turns == [270], "the panel stands as it stands at start")
        r.read(.rightUp, after: 5)
        #expect(r.degrees == 270, "not before the reading held")
        r.wait(PanelOrientation.settle - 0.05)
        #expect(r.degrees == 270)
        r.wait(0.1)
        #expect(r.degrees == 90 && r.turns == [270, 90])
    }

    @Test func aPanelCarriedPastAnAngleDoesNotFlap() {
        let r = Rig()
        r.sensorFound(.normal)
        // Turned, past right-up for a moment, and back: readings a few tenths apart.
        r.read(.rightUp, after: 3)
        r.read(.normal, after: 0.3)
        r.read(.rightUp, after: 0.2)
        r.read(.normal, after: 0.2)
        r.wait(3)
        #expect(r.turns == [], "nothing turned: \(r.turns)")
        // Lying flat (undefined) keeps the picture as it was.
        r.read(.bottomUp, after: 1)
        r.read(nil, after: 0.2)
        r.wait(3)
        #expect(r.degrees == 0)
    }

    @Test func anOrientationTheSiteDoesNotAllowKeepsThePictureAsItIs() throws {
        var s = Settings.parse("[shell]\norientations = [\"landscape\", \"landscape-upside-down\"]\n", file: "k.toml").0
        #expect(s.orientations == [.landscape, .landscapeUpsideDown])
        let r = Rig(s)
        r.sensorFound(.normal)
        r.read(.rightUp, after: 2)
        r.wait(2)
        #expect(r.degrees == 0, "portrait is not allowed")
        r.read(.bottomUp, after: 1)
        r.wait(2)
        #expect(r.degrees == 180)
        // Only portrait, on a landscape panel reading normal: the first allowed turn, portrait.
        s = Settings.parse("[shell]\norientations = [\"portrait\"]\n", file: "k.toml").0
        let p = Rig(s)
        p.sensorFound(.normal)
        #expect(p.degrees == 90)
    }

    @Test func aFixedRotateWinsAndDroppingItFollowsTheSensorAgain() {
        let fixed = Settings.parse("[shell]\nrotate = 90\n", file: "k.toml").0
        #expect(fixed.rotateFixed && !Settings().rotateFixed)
        let r = Rig(fixed)
        r.sensorFound(.leftUp)
        r.read(.bottomUp, after: 2)
        r.wait(2)
        #expect(r.degrees == 90, "the site's rotate = 90")
        // "Use file settings" with a file that is silent: the panel's reading again.
        r.orientation.apply(Settings())
        #expect(r.degrees == 180)
        // rotate = 0 fixes the picture upright; "auto" gives it back to the sensor.
        r.orientation.apply(Settings.parse("[shell]\nrotate = 0\n", file: "k.toml").0)
        #expect(r.degrees == 0)
        let auto = Settings.parse("[shell]\nrotate = \"auto\"\n", file: "k.toml")
        #expect(auto.1.isEmpty && !auto.0.rotateFixed)
        r.orientation.apply(auto.0)
        #expect(r.degrees == 180)
    }

    @Test func theSetupsAndTheAdminPanelsTurnFixItAsTheFileDoes() {
        var s = Settings()
        SetupChoices(rotate: 2).apply(to: &s, from: "setup.json")
        #expect(s.rotateFixed && s.rotate.degrees == 180)
        var a = Settings()
        PanelSettings(["shell.rotate": "270"]).apply(to: &a, from: "admin.json")
        #expect(a.rotateFixed && a.rotate.degrees == 270)
        // The admin panel's Auto over a file's fixed turn: the accelerometer's again.
        var f = Settings.parse("[shell]\nrotate = 90\n", file: "k.toml").0
        PanelSettings(["shell.rotate": "\"auto\""]).apply(to: &f, from: "admin.json")
        #expect(!f.rotateFixed)
        var c = Settings()
        Overrides(rotate: 90).apply(to: &c)
        #expect(c.rotateFixed)
    }

    @Test func aBadOrientationsListIsSaidWithItsPlaceAndAllFourKept() {
        let (s, problems) = Settings.parse("[shell]\norientations = [\"landscape\", \"sideways\"]\n", file: "k.toml")
        #expect(s.orientations == Orientation.all)
        #expect(problems.map(\.description) == ["k.toml:2:16: orientations must list some of landscape, portrait, landscape-upside-down, portrait-upside-down; using all four"])
    }

    @Test func theJournalSaysOnceWhatThereIs() {
        var said: [String] = []
        let o = PanelOrientation(scheduler: ManualScheduler(), say: { said.append($0) })
        o.apply(Settings())
        o.sensor(.noProxy("org.freedesktop.DBus.Error.ServiceUnknown: The name is not activatable"))
        o.sensor(.noProxy("org.freedesktop.DBus.Error.ServiceUnknown: The name is not activatable"))
        #expect(said == ["rotation: no iio-sensor-proxy on the system bus (org.freedesktop.DBus.Error.ServiceUnknown: The name is not activatable): the picture does not follow the panel's turns"])
        said = []
        o.sensor(.proxyCame)
        o.sensor(.hasAccelerometer(false))
        o.sensor(.hasAccelerometer(false))
        #expect(said.count == 2 && said[1] == "rotation: iio-sensor-proxy has no accelerometer on this panel: the picture does not follow the panel's turns")
        said = []
        o.sensor(.hasAccelerometer(true))
        #expect(said == ["rotation: following the panel's accelerometer (iio-sensor-proxy) among landscape, portrait, landscape-upside-down, portrait-upside-down"])
        // A reload: said again only when it changed.
        said = []
        o.apply(Settings())
        o.apply(Settings.parse("[shell]\norientations = [\"portrait\", \"landscape\"]\n", file: "k.toml").0)
        o.apply(Settings.parse("[shell]\nrotate = 90\n", file: "k.toml").0)
        #expect(said == ["rotation: following the panel's accelerometer (iio-sensor-proxy) among landscape, portrait",
                         "rotation: [shell] rotate = 90 fixes the picture (kiosk.toml, the setup or the admin panel): the accelerometer is not followed"])
        said = []
        let n = PanelOrientation(scheduler: ManualScheduler(), say: { said.append($0) })
        n.sensor(.noBus("No such file or directory"))
        #expect(said == ["rotation: no system bus (No such file or directory): the picture turns only by [shell] rotate, the setup or the admin panel"])
    }

    @Test func aTurnMidFlightKeepsTheFlight() throws {
        let scene = LanderScene(fonts: FontCache())
        let r = try HeadlessRenderer(scene: scene, info: DisplayInfo(size: Size(width: 1280, height: 800)))
        r.run(until: 2)
        scene.model.engineOn = true
        r.run(until: 3)
        scene.model.engineOn = false
        let before = scene.model.state
        #expect(scene.model.isFlying && before.fuel < 100)
        let orientation = PanelOrientation(scheduler: ManualScheduler(), say: { _ in })
        orientation.onTurn = { r.stage.setRotation($0) }
        orientation.sensor(.hasAccelerometer(true))
        orientation.sensor(.orientation(.rightUp))
        #expect(r.stage.info.size == Size(width: 800, height: 1280))
        r.run(until: r.clock.now + 0.5)
        let after = scene.model.state
        #expect(scene.model.isFlying, "still in the air")
        #expect(after.fuel == before.fuel, "the same flight: its fuel")
        #expect(abs(after.vy - before.vy) < 2 && after.y != before.y, "falling on from where it was: \(before) → \(after)")
    }
}
