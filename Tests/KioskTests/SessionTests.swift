import Testing
#if canImport(Glibc)
import Glibc
#endif
@testable import KioskSession

@Suite struct CompositorChoiceTests {
    let gpu = DisplayCard(name: "card0", driver: "virtio_gpu", primeImport: true)
    let plain = DisplayCard(name: "card0", driver: "bochs-drm", primeImport: false)
    let both: Set<Compositor> = [.cage, .weston]

    @Test func aDisplayThatImportsPrimeGetsCage() {
        let c = try? CompositorChoice.choose(requested: nil, cards: [gpu], installed: both).get()
        #expect(c?.compositor == .cage && c?.warning == nil)
        #expect(c?.reason == "card0 (virtio_gpu) imports PRIME buffers, as cage 0.1.4 needs")
    }

    @Test func cageOnWlroots018DrivesPlainFramebuffersToo() {
        let v = CageVersion(versionLine: "Cage version 0.2.0")
        #expect(v == CageVersion([0, 2, 0]) && v?.description == "0.2.0")
        #expect(CageVersion(versionLine: "Cage version 0.1.4")?.drivesPlainFramebuffers == false)
        #expect(CageVersion(versionLine: "cage: invalid option -- 'v'") == nil)
        let c = try? CompositorChoice.choose(requested: nil, cards: [plain], installed: both, cageVersion: v).get()
        #expect(c?.compositor == .cage && c?.reason == "cage 0.2.0 drives card0 (bochs-drm)")
        let old = try? CompositorChoice.choose(requested: nil, cards: [plain], installed: both, cageVersion: CageVersion([0, 1, 4])).get()
        #expect(old?.compositor == .weston)
    }

    @Test func aPlainFramebufferGetsWestonAndSaysWhy() {
        let c = try? CompositorChoice.choose(requested: nil, cards: [plain], installed: both).get()
        #expect(c?.compositor == .weston)
        #expect(c?.reason.contains("card0 (bochs-drm) cannot import PRIME buffers, which cage 0.1.4 needs") == true)
        // One card of several that can import is enough for cage (it uses that one).
        let second = DisplayCard(name: "card1", driver: "i915", primeImport: true)
        #expect((try? CompositorChoice.choose(requested: nil, cards: [plain, second], installed: both).get())?.compositor == .cage)
    }

    /// A Raspberry Pi's v3d (or vgem) only renders and may be card0; the display is vc4's.
    @Test func aRenderOnlyDeviceIsNeverTheDisplay() {
        let renderOnly = DisplayCard(name: "card0", driver: "vgem", primeImport: true, hasDisplay: false)
        let display = DisplayCard(name: "card1", driver: "virtio_gpu", primeImport: true)
        let c = try? CompositorChoice.choose(requested: nil, cards: [renderOnly, display], installed: both, cageVersion: CageVersion([0, 2, 0])).get()
        #expect(c?.reason == "cage 0.2.0 drives card1 (virtio_gpu); card0 (vgem) has no display" && c?.devices == ["card1"])
        // Debian 12: the render-only device's PRIME import does not make the display cage's.
        let simple = DisplayCard(name: "card1", driver: "simpledrm", primeImport: false)
        let old = try? CompositorChoice.choose(requested: nil, cards: [renderOnly, simple], installed: both).get()
        #expect(old?.compositor == .weston && old?.devices == ["card1"])
        let asked = try? CompositorChoice.choose(requested: .weston, cards: [renderOnly, display], installed: both).get()
        #expect(asked?.devices == ["card1"] && asked?.reason == "as asked (--compositor weston); card0 (vgem) has no display")
        #expect((try? CompositorChoice.choose(requested: nil, cards: [display], installed: both).get())?.devices == [])
        #expect(CompositorChoice.choose(requested: nil, cards: [renderOnly], installed: both) == .failure(.renderOnly("card0 (vgem)")))
        #expect(SessionError.renderOnly("card0 (v3d)").description.hasPrefix("card0 (v3d): render-only, no display device yet"))
    }

    /// At boot the display's driver may load after the unit starts: only a missing display is
    /// waited for, never a missing compositor.
    @Test func onlyAMissingDisplayIsWaitedFor() {
        #expect(SessionError.noDisplay.displayMayComeYet && SessionError.renderOnly("card0 (v3d)").displayMayComeYet)
        #expect(!SessionError.noCompositor.displayMayComeYet && !SessionError.notInstalled(.cage).displayMayComeYet)
    }

    @Test func theCompositorIsGivenTheDisplayDevice() {
        let cage = CompositorLaunch.make(.cage, kiosk: "/usr/bin/kiosk", extra: [], runtimeDirectory: "/run/kiosk", devices: ["card1"])
        #expect(cage.defaults["WLR_DRM_DEVICES"] == "/dev/dri/card1")
        let weston = CompositorLaunch.make(.weston, kiosk: "/usr/bin/kiosk", extra: [], runtimeDirectory: "/run/kiosk", devices: ["card1"])
        #expect(weston.arguments.last == "--drm-device=card1")
        #expect(CompositorLaunch.make(.cage, kiosk: "/usr/bin/kiosk", extra: [], runtimeDirectory: "/run/kiosk").defaults["WLR_DRM_DEVICES"] == nil)
    }

    @Test func withoutWestonCageIsTriedWithAWarning() {
        let c = try? CompositorChoice.choose(requested: nil, cards: [plain], installed: [.cage]).get()
        #expect(c?.compositor == .cage)
        #expect(c?.warning?.contains("install weston") == true)
    }

    @Test func whatCannotRunIsSaidInOneLine() {
        #expect(CompositorChoice.choose(requested: nil, cards: [], installed: both) == .failure(.noDisplay))
        #expect(CompositorChoice.choose(requested: nil, cards: [gpu], installed: []) == .failure(.noCompositor))
        #expect(CompositorChoice.choose(requested: .weston, cards: [gpu], installed: [.cage]) == .failure(.notInstalled(.weston)))
        #expect(SessionError.notInstalled(.weston).description == "weston is not installed (/usr/bin/weston): apt install weston")
    }

    @Test func theOperatorsChoiceWins() {
        let c = try? CompositorChoice.choose(requested: .weston, cards: [gpu], installed: both).get()
        #expect(c?.compositor == .weston && c?.reason == "as asked (--compositor weston)")
    }

    @Test func cageRunsKioskThroughSeatdWithTheOperatorsOptions() {
        let l = CompositorLaunch.make(.cage, kiosk: "/usr/bin/kiosk", extra: ["-r"], runtimeDirectory: "/run/kiosk")
        #expect(l.path == "/usr/bin/cage")
        #expect(l.arguments == ["-d", "-r", "--", "/usr/bin/kiosk"])
        #expect(l.defaults["LIBSEAT_BACKEND"] == "seatd" && l.defaults["WLR_RENDERER"] == "pixman")
        #expect(l.defaults["WLR_LIBINPUT_NO_DEVICES"] == nil && l.defaults["XCURSOR_PATH"] == "/usr/share/kiosk/cursor-theme")
        #expect(l.pamService == nil)
    }

    @Test func westonGetsALogindSessionAndLogsToAFile() {
        let l = CompositorLaunch.make(.weston, kiosk: "/usr/bin/kiosk", extra: [], runtimeDirectory: "/run/kiosk")
        #expect(l.arguments == ["--config=/etc/kiosk/weston.ini", "--use-pixman", "--log=/run/kiosk/weston.log"])
        #expect(l.pamService == "kiosk")
    }
}

@Suite struct DisplayCardsTests {
    /// A node udev made before its driver is there (ENOENT, ENODEV on open): not a display yet,
    /// so the start waits for it rather than choosing a compositor for nothing (seen booted on an
    /// emulated Pi: "cage drives card1 (cannot open: No such device)").
    @Test func aCardThatCannotOpenForWantOfItsDriverIsNotThereYet() throws {
        let dir = try #require(mkdtemp(strdup("/tmp/kiosk-dri-XXXXXX")).map { String(cString: $0) })
        defer { unlink(dir + "/card1"); unlink(dir + "/card0"); rmdir(dir) }
        symlink(dir + "/gone", dir + "/card1")
        #expect(DisplayCards.present(devices: dir).isEmpty)
        // One that opens is there (a plain file stands for it: not a display device it can ask).
        let f = fopen(dir + "/card0", "w"); fclose(f)
        #expect(DisplayCards.present(devices: dir).map(\.name) == ["card0"])
    }
}

@Suite struct SessionOptionsTests {
    @Test func ownOptionsAreReadAndTheRestGoToTheCompositor() throws {
        let o = try SessionOptions.parse(["--compositor", "cage", "-r", "--user=visitor", "--tty", "tty2", "-s"]).get()
        #expect(o.compositor == .cage && o.user == "visitor" && o.tty == "tty2")
        #expect(o.compositorOptions == ["-r", "-s"])
        #expect(try SessionOptions.parse(["--compositor", "auto"]).get().compositor == nil)
        #expect(try SessionOptions.parse(["--kiosk", "/opt/k", "--pam-service", "login"]).get() ==
                SessionOptions(pamService: "login", kiosk: "/opt/k"))
    }

    @Test func theTerminalIsOnlyAVirtualTerminalsName() {
        for good in ["tty1", "tty7", "tty63"] { #expect(SessionOptions.isTerminalName(good), "\(good)") }
        for bad in ["tty0", "tty64", "ttyS0", "tty+1", "tty01", "tty", "../etc/shadow", "tty1/../../etc/shadow", "pts/0", ""] {
            #expect(!SessionOptions.isTerminalName(bad), "\(bad)")
        }
        guard case .failure(let e) = SessionOptions.parse(["--tty", "../etc/shadow"]) else { Issue.record("accepted"); return }
        #expect(e.description == "--tty ../etc/shadow: expected a virtual terminal's name, tty1 to tty63 (kiosk-session --help)")
    }

    @Test func anOptionWithoutItsValueOrAnUnknownCompositorIsOneLine() {
        guard case .failure(let e) = SessionOptions.parse(["--user"]) else { Issue.record("accepted"); return }
        #expect(e.description == "--user needs a value (kiosk-session --help)")
        guard case .failure(let f) = SessionOptions.parse(["--compositor", "sway"]) else { Issue.record("accepted"); return }
        #expect(f.description == "--compositor sway: expected auto, cage or weston (kiosk-session --help)")
    }
}

@Suite struct UserEnvironmentTests {
    @Test func onlyWhatIsMeantForTheSessionPassesAndTheAccountIsTheUsers() {
        let root = [
            "TERM": "linux", "LANG": "de_DE.UTF-8", "LC_TIME": "C", "TZ": "Europe/Berlin", "PATH": "/usr/sbin:/usr/bin",
            "JOURNAL_STREAM": "8:123", "WATCHDOG_USEC": "20000000", "XDG_STATE_HOME": "/var/lib", "XDG_SESSION_TYPE": "wayland",
            "WLR_DRM_DEVICES": "/dev/dri/card1", "KIOSK_VERBOSE": "1", "LIBSEAT_BACKEND": "logind",
            "HOME": "/root", "USER": "root", "LOGNAME": "root", "SHELL": "/bin/bash", "MAIL": "/var/mail/root",
            "LD_PRELOAD": "/tmp/x.so", "CREDENTIALS_DIRECTORY": "/run/credentials/kiosk.service", "SSH_AUTH_SOCK": "/tmp/a",
            "MANAGERPID": "1", "SYSTEMD_EXEC_PID": "400", "NOTIFY_SOCKET": "/run/systemd/notify", "LC_": "x", "XDG_": "y",
        ]
        let env = UserEnvironment.forUser(root, home: "/var/lib/kiosk", user: "kiosk", shell: "/usr/sbin/nologin")
        #expect(env == [
            "TERM": "linux", "LANG": "de_DE.UTF-8", "LC_TIME": "C", "TZ": "Europe/Berlin", "PATH": "/usr/sbin:/usr/bin",
            "JOURNAL_STREAM": "8:123", "WATCHDOG_USEC": "20000000", "XDG_STATE_HOME": "/var/lib", "XDG_SESSION_TYPE": "wayland",
            "WLR_DRM_DEVICES": "/dev/dri/card1", "KIOSK_VERBOSE": "1", "LIBSEAT_BACKEND": "logind",
            "HOME": "/var/lib/kiosk", "USER": "kiosk", "LOGNAME": "kiosk", "SHELL": "/usr/sbin/nologin",
        ])
        #expect(UserEnvironment.forUser([:], home: "/h", user: "k", shell: "/s")["PATH"] == "/usr/local/bin:/usr/bin:/bin")
    }
}

@Suite struct NotifyFilterTests {
    @Test func onlyTheKiosksStatePassesAndEachOtherFieldIsNamedOnce() {
        var f = NotifyFilter()
        let first = f.filter("READY=1\nSTATUS=tiles\nMAINPID=1\nWATCHDOG_USEC=1\nNOTIFYACCESS=all\nWATCHDOG=1")
        #expect(first.passed == ["READY=1", "STATUS=tiles", "WATCHDOG=1"])
        #expect(first.newlyRefused == ["MAINPID", "WATCHDOG_USEC", "NOTIFYACCESS"])
        let second = f.filter("WATCHDOG=trigger\nSTOPPING=1\nRELOADING=1\nERRNO=5\nMAINPID=7\nEXTEND_TIMEOUT_USEC=9\nBARRIER=1\nFDSTORE=1")
        #expect(second.passed == ["WATCHDOG=trigger", "STOPPING=1", "RELOADING=1", "ERRNO=5"])
        #expect(second.newlyRefused == ["EXTEND_TIMEOUT_USEC", "BARRIER", "FDSTORE"])
    }

    @Test func aLookalikeOrAHostileNameIsRefusedAndLoggedPrintably() {
        var f = NotifyFilter()
        let r = f.filter("READY=10\nWATCHDOG=0\nREADY=1 \nX\u{1b}[2J=1\n" + String(repeating: "A", count: 500))
        #expect(r.passed.isEmpty)
        #expect(r.newlyRefused == ["READY", "WATCHDOG", "X[2J", String(repeating: "A", count: 64)])
    }
}
