import Testing
@testable import Kiosk
@testable import KioskScenes
@testable import KioskCore
#if canImport(Glibc)
import Glibc
#endif

@Suite struct SettingsTests {
    /// One file wins, the same one kiosk.toml(5) names and root's kiosk-keys reads: the panel's.
    @Test func thePanelsFileIsLookedForFirst() {
        #expect(Settings.candidatePaths().first == "/etc/kiosk/kiosk.toml")
        #expect(Settings.candidatePaths().last?.hasSuffix("/kiosk/kiosk.toml") == true)
    }

    @Test func aGoodFileSetsEverything() {
        let text = """
        [shell]
        scenes = ["lander", "tiles"]
        start = "tiles"
        idle_timeout = 30
        rotate = 270
        scene_bar = false
        idle_reset = false
        theme = "/srv/kiosk/theme"
        stats = true

        [words]
        phrases = ["Hello", "Grüße 春"]
        speed = 90.5
        interval = 1
        color = "#112233"

        [lander]
        pad = "left"
        """
        let (s, problems) = Settings.parse(text, file: "k.toml")
        #expect(problems.isEmpty, "\(problems)")
        #expect(s.scenes == ["lander", "tiles"] && s.start == "tiles" && s.idleTimeout == 30 && s.rotate == Rotation(quarterTurns: 3))
        #expect(!s.sceneBar && !s.idleReset && s.theme == "/srv/kiosk/theme" && s.stats)
        let words = s.sections[FallingWordsConfig.self]
        #expect(words.phrases == ["Hello", "Grüße 春"] && words.speed == 90.5 && words.interval == 1)
        #expect(words.color == Color(rgb: 0x112233) && s.sections[LanderSettings.self].pad == .left)
    }

    @Test func badValuesAreReportedWithLineAndColumnAndReplacedByDefaults() {
        let text = """
        [shell]
        idle_timeout = -5
        rotate = 45
          scene_bar = "yes"
        idle_reset = 1

        [words]
        color = "purple"
        wobble = 3
        """
        let (s, problems) = Settings.parse(text, file: "k.toml")
        #expect(problems.map(\.description) == [
            "k.toml:9:1: unknown setting 'words.wobble'",
            "k.toml:2:16: idle_timeout must be a number from 0 to 86400; using 120",
            "k.toml:3:10: rotate must be \"auto\", 0, 90, 180 or 270; using \"auto\"",
            "k.toml:4:15: scene_bar must be true or false; using true",
            "k.toml:5:14: idle_reset must be true or false; using true",
            "k.toml:8:9: color must look like \"#8e24aa\"; using the default",
        ])
        // Every bad value replaced by its default; the file still named them.
        var defaults = Settings()
        defaults.fileKeys = s.fileKeys
        #expect(s == defaults)
    }

    @Test func openingHoursAreReadAsOneStringOrAListAndABadOneIsPointedAt() {
        let (s, none) = Settings.parse("[shell]\nhours = [\"Mon-Fri 08:00-20:00\", \"Sat 10:00-16:00\"]\nafter_hours_wake = 30\n", file: "k.toml")
        #expect(none.isEmpty && s.hours.rules.count == 2 && s.afterHoursWake == 30)
        let (bad, problems) = Settings.parse("[shell]\nhours = \"Mon-Fry 08:00-20:00\"\n", file: "k.toml")
        #expect(problems.map(\.description) == ["k.toml:2:14: hours: 'fry' is not a day (Mon, Tue, Wed, Thu, Fri, Sat, Sun); open always"])
        #expect(bad.hours.isAlwaysOpen)
    }

    @Test func aSyntaxErrorKeepsEveryDefaultAndSaysWhere() {
        let (s, problems) = Settings.parse("[shell]\nidle_timeout = = 3\n", file: "k.toml")
        #expect(s == Settings())
        #expect(problems.count == 1 && problems[0].line == 2 && problems[0].file == "k.toml")
    }

    @Test func anUnreadableFileIsOneProblem() {
        let (s, problems) = Settings.load(path: "/nonexistent/kiosk.toml")
        #expect(s == Settings() && problems.count == 1 && problems[0].description.hasPrefix("/nonexistent/kiosk.toml:1:1: cannot read"))
    }

    @Test func theFilesThatUsedToAbortTheKioskAreOneProblemEach() {
        for text in ["[#]", "[é]", "[", "[.]", "[a..b]"] {
            let (s, problems) = Settings.parse(text, file: "k.toml")
            #expect(s == Settings() && problems.count == 1 && problems[0].line == 1, "\(text): \(problems)")
        }
    }

    @Test func windowsLineEndsAByteOrderMarkAndNULAreHandled() {
        let crlf = Settings.parse("[shell]\r\nidle_timeout = 30\r\nrotate = 45\r\n", file: "k.toml")
        #expect(crlf.1.map(\.description) == ["k.toml:3:10: rotate must be \"auto\", 0, 90, 180 or 270; using \"auto\""])
        #expect(crlf.0.idleTimeout == 30)
        let bom = Settings.parse([0xEF, 0xBB, 0xBF] + Array("[shell]\nidle_timeout = 30\n".utf8), file: "k.toml")
        #expect(bom.0.idleTimeout == 30 && bom.1.map(\.description) == ["k.toml:1:1: the file starts with a byte order mark, which is ignored"])
        let nul = Settings.parse("[admin]\npin = \"1234\\u0000abc\"\n", file: "k.toml")
        #expect(nul.1.map(\.description) == ["k.toml:2:12: NUL characters are not allowed in strings"])
        #expect(nul.0 == Settings())
    }

    @Test func onlyRegularFilesOfAtMost256KiBAreRead() throws {
        let dir = String(cString: mkdtemp(strdup("/tmp/kiosk-settings-XXXXXX"))!)
        defer { _ = system("rm -rf \(dir)") }
        // A FIFO would block a plain open until someone writes to it: refused at once instead.
        #expect(mkfifo(dir + "/fifo.toml", 0o600) == 0)
        let fifo = Settings.load(path: dir + "/fifo.toml")
        #expect(fifo.1.map(\.message) == ["not a regular file (a FIFO); only regular files are read"])
        #expect(symlink(dir + "/fifo.toml", dir + "/link.toml") == 0)
        #expect(Settings.load(path: dir + "/link.toml").1.map(\.message) == ["not a regular file (a FIFO); only regular files are read"])
        #expect(Settings.load(path: dir).1.map(\.message) == ["not a regular file (a folder); only regular files are read"])
        let big = dir + "/big.toml"
        let f = fopen(big, "w")!
        for _ in 0..<(300 * 1024 / 16) { fputs("# padding line\n\n", f) }
        fclose(f)
        #expect(Settings.load(path: big).1.map(\.message) == ["the file is 300 KiB; at most 256 KiB is read"])
    }

    @Test func commandLineOverridesTheFile() {
        var s = Settings.parse("[shell]\nidle_timeout = 30\nrotate = 90\n", file: "k").0
        Overrides(scene: nil, idleTimeout: 2, rotate: 0).apply(to: &s)
        #expect(s.idleTimeout == 2 && s.rotate == .upright)
    }
}

@Suite struct TouchMatrixSettingTests {
    @Test func aMatrixIsSixNumbersThatCanBeUndone() {
        let (s, problems) = Settings.parse("[touch]\nmatrix = [-1, 0, 1, 0, 1.0, 0]\n", file: "k.toml")
        #expect(problems.isEmpty && s.touchMatrix == [-1, 0, 1, 0, 1, 0])
        // Identity is no matrix at all.
        #expect(Settings.parse("[touch]\nmatrix = [1, 0, 0, 0, 1, 0]\n", file: "k.toml").0.touchMatrix == nil)
        for (text, says) in [("[touch]\nmatrix = [1, 0, 0]\n", "k.toml:2:10: matrix must be six numbers"),
                             ("[touch]\nmatrix = [1, 2, 0, 2, 4, 0]\n", "k.toml:2:10: matrix [1.0, 2.0, 0.0, 2.0, 4.0, 0.0] cannot be undone"),
                             ("[touch]\nmatrix = \"mirrored\"\n", "k.toml:2:10: matrix must be six numbers")] {
            let (bad, problems) = Settings.parse(text, file: "k.toml")
            #expect(bad.touchMatrix == nil)
            #expect(problems.count == 1 && problems[0].description.hasPrefix(says), "\(problems)")
        }
    }

    @Test func theStageTurnsTouchesButNotTheMouse() throws {
        let r = try HeadlessRenderer(scene: BlackScreen(), info: DisplayInfo(size: Size(width: 1000, height: 500)))
        var s = Settings()
        s.touchMatrix = [-1, 0, 1, 0, 1, 0] // a mirrored x undone
        r.stage.apply(s)
        let b = r.stage.toScene(TouchBatch(time: 0, points: [TouchPoint(id: 0, phase: .began, location: Point(x: 100, y: 50)),
                                                             TouchPoint(id: TouchPoint.pointerID, phase: .began, location: Point(x: 100, y: 50))]))
        #expect(b.points[0].location == Point(x: 900, y: 50))
        #expect(b.points[1].location == Point(x: 100, y: 50))
        // With the app's own turn after it.
        r.stage.setRotation(Rotation(quarterTurns: 1))
        let turned = r.stage.toScene(TouchBatch(time: 0, points: [TouchPoint(id: 0, phase: .began, location: Point(x: 100, y: 50))]))
        #expect(turned.points[0].location == r.stage.toScene(Point(x: 900, y: 50)))
    }
}
