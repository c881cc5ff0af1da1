import Testing
@testable import Kiosk
@testable import KioskScenes
@testable import KioskUI
@testable import KioskRender
@testable import KioskCore
#if canImport(Glibc)
import Glibc
#endif

/// Updates seen from the running kiosk: what the package wrote down (Packaging/kiosk-update), the
/// restart into a newer version only when nobody is at the panel, and which panel this is.
@Suite struct UpdateTests {
    static func folder(_ files: [String: String]) throws -> String {
        let dir = try #require(mkdtemp(strdup("/tmp/kiosk-update-XXXXXX")).map { String(cString: $0) })
        for (name, text) in files { try AtomicFile.write(Array(text.utf8), to: "\(dir)/\(name)", mode: 0o644, durable: false) }
        return dir
    }

    @Test func theRecordReadsTheLastInstallAndEachRollbackAndSkipsWhatItCannotRead() throws {
        let dir = try Self.folder(["installed": "0.2.1 0.2.0 1765000000\n",
                                   "rollbacks": "1765000100 0.2.2 0.2.1\nnot a line\n1765000200 0.2.3 0.2.1\n"])
        let r = UpdateRecord.read(folder: dir)
        #expect(r.installed == .init(version: "0.2.1", from: "0.2.0", time: 1_765_000_000))
        #expect(r.rollbacks.map(\.failed) == ["0.2.2", "0.2.3"] && r.rollbacks.last?.putBack == "0.2.1")
        #expect(UpdateRecord.read(folder: try Self.folder(["installed": "0.2.0 - 1765000000\n"])).installed?.from == nil)
        #expect(UpdateRecord.read(folder: try Self.folder(["installed": "garbage\n"])) == UpdateRecord())
        #expect(UpdateRecord.read(folder: "/nonexistent") == UpdateRecord())
    }

    final class Rig {
        let r: ShellTests.Rig
        let dir: String
        var restarts: [String] = []
        var update: UpdateRestart!
        init(idle: Double = 10, installed: String, screensaver: Bool = false) throws {
            r = ShellTests.Rig(idle: idle, start: "lander", screensaver: screensaver)
            dir = try UpdateTests.folder(["installed": "\(installed) 0.2.0 1765000000\n"])
            update = UpdateRestart(shell: r.shell, scheduler: r.scheduler, log: Logger(level: .error), folder: dir, ownVersion: "0.2.0",
                                   register: nil) { [unowned self] in self.restarts.append($0) }
        }
        /// Touches every `every` seconds for `seconds`, each carrying its own time.
        func visitor(for seconds: Double, every: Double = 3) {
            let end = r.now + seconds
            while r.now + every <= end {
                r.wait(every - 0.05)
                r.tap(640, 300)
            }
        }
    }

    @Test func theSameVersionWaitsForNothing() throws {
        let rig = try Rig(installed: "0.2.0")
        #expect(rig.update.pending == nil)
        rig.r.wait(60)
        #expect(rig.restarts.isEmpty)
    }

    @Test func aNewerVersionWaitsWhileAVisitorTouchesAndRestartsWhenTheScreensaverComes() throws {
        let rig = try Rig(idle: 10, installed: "0.2.1")
        #expect(rig.update.pending?.version == "0.2.1")
        rig.visitor(for: 120)
        #expect(rig.restarts.isEmpty, "a visitor's touches keep the old version on screen")
        rig.r.wait(10.5) // the screensaver's idle timeout passes
        #expect(rig.r.shell.showing == .screensaver)
        #expect(rig.restarts.count == 1 && rig.restarts[0].contains("kiosk 0.2.1 installed: restarting into it now"))
        rig.r.wait(60)
        #expect(rig.restarts.count == 1)
    }

    @Test func aKioskInTheScreensaverRestartsAtOnce() throws {
        let rig = try Rig(installed: "0.2.1", screensaver: true)
        #expect(rig.restarts.count == 1 && rig.restarts[0].contains("the screensaver is showing"))
    }

    @Test func aVersionWrittenWhileItRunsIsSeen() throws {
        let rig = try Rig(idle: 10, installed: "0.2.0")
        try AtomicFile.write(Array("0.2.1 0.2.0 1765000000\n".utf8), to: "\(rig.dir)/installed", mode: 0o644, durable: false)
        rig.update.check()
        #expect(rig.update.pending?.version == "0.2.1" && rig.restarts.isEmpty)
        rig.r.wait(11)
        #expect(rig.restarts.count == 1)
    }

    @Test func withoutAScreensaverTheUpdateWaitsItsBoundThenForAQuietMinute() throws {
        let rig = try Rig(idle: 0, installed: "0.2.1")
        rig.visitor(for: UpdateRestart.longestWait + 600, every: 30)
        #expect(rig.restarts.isEmpty, "touches every 30 s: never a quiet minute")
        rig.r.wait(UpdateRestart.quietEnough + 1)
        #expect(rig.restarts.count == 1 && rig.restarts[0].contains("nobody has touched it for 60 s"))
    }

    @Test func theAdminPanelIsNeverClosedUnderTheOperator() throws {
        let rig = try Rig(idle: 0, installed: "0.2.1")
        rig.r.shell.show(.admin(AdminPanel(fonts: FontCache(), scheduler: rig.r.scheduler, settings: Settings()) { _ in }))
        rig.r.wait(UpdateRestart.longestWait + 120)
        #expect(rig.restarts.isEmpty)
        rig.r.shell.show(.scene)
        rig.r.wait(UpdateRestart.quietEnough + 1)
        #expect(rig.restarts.count == 1)
    }

    static let identity = PanelIdentity(hostname: "panel-7", addresses: ["192.168.1.40", "2001:db8::7"], version: "0.2.1",
                                        uptime: 3 * 3600 + 12 * 60 + 5,
                                        update: UpdateRecord(installed: .init(version: "0.2.1", from: "0.2.0", time: 1_765_000_000)))

    @Test func theIdentityLineSaysWhichPanelThisIs() {
        let texts = Settings().kioskTexts
        setenv("TZ", "UTC", 1); tzset()
        #expect(Self.identity.line(texts) == "panel-7 · 192.168.1.40, 2001:db8::7\nKiosk 0.2.1 · up 3 h 12 min · updated 2025-12-06 05:46 from 0.2.0")
        var rolledBack = Self.identity
        rolledBack.update.rollbacks = [.init(time: 1_765_000_600, failed: "0.2.2", putBack: "0.2.1")]
        #expect(rolledBack.line(texts).hasSuffix("0.2.2 did not start: put back 2025-12-06 05:56"))
        #expect(PanelIdentity.duration(2 * 86400 + 4 * 3600 + 59, texts) == "2 d 4 h" && PanelIdentity.duration(59, texts) == "0 min")
    }

    @Test func theMetricsCarryTheIdentityAsLabelsAndCountRollbacks() {
        var id = Self.identity
        id.update.rollbacks = [.init(time: 1_765_000_600, failed: "0.2.2", putBack: "0.2.1")]
        let text = KioskMetrics(startTime: 0).text(.init(frameDraw: .frameTimes(), open: true, residentBytes: 0, saveFailures: 0, identity: id), now: 0)
        let lines = text.split(separator: "\n").map(String.init)
        #expect(lines.contains("kiosk_version_info{version=\"0.2.1\",hostname=\"panel-7\",addresses=\"192.168.1.40 2001:db8::7\",last_update=\"2025-12-06T05:56:40Z\"} 1"))
        #expect(lines.contains("kiosk_rollbacks_total 1") && lines.contains("kiosk_last_update_time_seconds 1765000600"))
        #expect(lines.contains("kiosk_system_uptime_seconds 11525"))
    }

    @Test func theAdminPanelShowsTheIdentityOnceUnlocked() {
        let s = ManualScheduler()
        var settings = Settings()
        settings.adminPIN = "1234"
        let panel = AdminPanel(fonts: FontCache(), scheduler: s, settings: settings, identity: Self.identity) { _ in }
        panel.layout(DisplayInfo(size: Size(width: 1280, height: 800)))
        func find(_ v: View) -> [Label] { (v as? Label).map { [$0] } ?? [] + v.subviews.flatMap(find) }
        func line() -> Label? { find(panel.view).first { $0.accessibilityIdentifier == "admin identity" } }
        #expect(line()?.isHidden == true, "not before the PIN")
        for c in "1234" { panel.handle(KeyEvent(keysym: 0x30, text: String(c), pressed: true, time: s.now)) }
        panel.handle(KeyEvent(keysym: 0xff0d, text: "", pressed: true, time: s.now))
        #expect(panel.unlocked && line()?.isHidden == false && line()?.text.hasPrefix("panel-7 · 192.168.1.40") == true)
    }
}

/// The admin panel with its identity line, where space is tightest (the 7" panel) and on a
/// larger landscape panel: the line fits above the footer, in two lines at most.
@Suite struct AdminIdentityGoldenTests {
    func render(_ w: Double, _ h: Double) throws -> Image {
        setenv("TZ", "UTC", 1); tzset()
        let s = ManualScheduler()
        let panel = AdminPanel(fonts: FontCache(), scheduler: s, settings: Settings(), identity: UpdateTests.identity) { _ in }
        let r = try HeadlessRenderer(scene: panel, info: DisplayInfo(size: Size(width: w, height: h)))
        r.run(until: 0.5)
        return r.image
    }
    @Test func adminIdentity7Inch() throws { try GoldenImageTests().assertMatches(try render(800, 480), "admin-identity-800x480") }
    @Test func adminIdentityLandscape() throws { try GoldenImageTests().assertMatches(try render(1280, 800), "admin-identity-1280x800") }
}
