import CSession
import KioskCore
#if canImport(Glibc)
import Glibc
#endif

/// kiosk-session: the one program of the kiosk that runs as root. It links libc and the
/// kiosk's plain values only (no Wayland, pixman, fonts or images: a test says so) and opens
/// PAM at run time, in the child that needs it.

@main
enum SessionMain {
    static let log = makeLogger(verbose: false)

    static func main() {
        let options: SessionOptions
        switch SessionOptions.parse(Array(CommandLine.arguments.dropFirst())) {
        case .success(let o): options = o
        case .failure(let e): failing("session: \(e)")
        }
        if options.help { print(SessionOptions.usage); exit(0) }
        if options.version { print(kioskVersion); exit(0) }
        if let on = options.screen { exit(setScreen(on: on, options)) }
        if let action = options.keys { exit(action == .lock ? lockKeys(options) : unlockKeys()) }
        if options.audit { exit(Audit().run()) }
        exit(run(options))
    }

    static func failing(_ message: String) -> Never {
        log.error("\(message)")
        exit(1)
    }

    /// `--screen on|off`: every means the panel has, each said in the journal with the device
    /// it used, and why the others were not used.
    static func setScreen(on: Bool, _ o: SessionOptions) -> Int32 {
        let outcome = ScreenPower(ddcDevices: o.ddcDevices, cecDevices: o.cecDevices).set(on: on)
        let state = on ? "on" : "off"
        for line in outcome.done { log.notice("screen \(state): \(line)") }
        if outcome.done.isEmpty {
            log.notice("screen: nothing here turns the screen \(state) (\(outcome.notUsed.joined(separator: "; "))); it stays \(on ? "as it is" : "black, lit")")
        } else {
            for line in outcome.notUsed { log.notice("screen: not used: \(line)") }
        }
        return 0
    }

    /// The inhibitor of logind's key handling, held by the unit's main process until it stops.
    static let inhibitor = ["/usr/bin/systemd-inhibit", "--what=handle-power-key:handle-suspend-key:handle-hibernate-key:handle-reboot-key",
                            "--mode=block", "--who=Kiosk", "--why=A public panel: its keyboard must not switch it off, suspend or reboot it",
                            "/usr/bin/sleep", "infinity"]

    /// `--lock-keys`: the locks, said in one line, READY=1, then logind's inhibitor in this
    /// process's place (with CAP_SYS_BOOT only, what logind asks of it).
    static func lockKeys(_ o: SessionOptions) -> Int32 {
        let setting = MaintenanceKeys.allowed(settings: o.settings)
        if let problem = setting.problem { log.warning("keys: \(problem)") }
        guard !setting.allowed else {
            log.notice("keys: not locked: [admin] maintenance_keys = true in \(o.settings) lets a keyboard at the panel reach the system (SysRq, the power key, Ctrl+Alt+Del, other consoles) and the kiosk's F12")
            notifySystemd("READY=1")
            return 0
        }
        let locked = SystemKeys().lock(log: log) + ["the power, suspend, hibernate and reboot keys (logind)"]
        log.notice("keys: locked while the kiosk runs: \(locked.joined(separator: ", ")); [admin] maintenance_keys = true in \(o.settings) allows them")
        notifySystemd("READY=1")
        if case let r = kiosk_bounding_set_keep_only(22 /* CAP_SYS_BOOT */), r != 0 { log.warning("keys: cannot drop capabilities: \(String(cString: strerror(-r)))") }
        withCStrings(inhibitor) { argv in _ = execv(inhibitor[0], argv) }
        failing("keys: cannot run \(inhibitor[0]): \(String(cString: strerror(errno))); the power key still works")
    }

    /// `--unlock-keys`: what the lock took, given back.
    static func unlockKeys() -> Int32 {
        let back = SystemKeys().unlock(log: log)
        if !back.isEmpty { log.notice("keys: given back as they were: \(back.joined(separator: ", "))") }
        return 0
    }

    static func notifySystemd(_ text: String) {
        guard let socket = getenv("NOTIFY_SOCKET") else { return }
        _ = text.withCString { kiosk_session_notify_send(socket, $0, strlen($0)) }
    }

    /// Chooses the compositor, readies the user's runtime folder and environment, and supervises
    /// the compositor until it ends; the exit status.
    static func run(_ o: SessionOptions) -> Int32 {
        let installed = Set(Compositor.allCases.filter { access($0.path, X_OK) == 0 })
        let cage = o.compositor == nil && installed.contains(.cage) ? cageVersion() : nil
        let choice = chooseOnceTheDisplayIsThere(requested: o.compositor, installed: installed, cageVersion: cage)
        log.notice("session: running \(choice.compositor.rawValue): \(choice.reason)")
        if let w = choice.warning { log.warning("session: \(w)") }
        // A compositor told to run headless (the tests) needs no input device.
        if getenv("WLR_BACKENDS") == nil { waitForAnInputDevice(choice.compositor) }

        let asRoot = geteuid() == 0
        guard let pw = (asRoot ? getpwnam(o.user) : getpwuid(geteuid()))?.pointee else {
            failing("session: no user \(o.user): reinstall the kiosk package (it creates the user)")
        }
        let runtime: String
        do { runtime = try runtimeDirectory(owner: asRoot ? pw : nil, user: o.user) } catch { failing("session: \(error)") }
        let launch = CompositorLaunch.make(choice.compositor, kiosk: o.kiosk, extra: o.compositorOptions,
                                           runtimeDirectory: runtime, devices: choice.devices)

        var env = currentEnvironment()
        if asRoot {
            env = UserEnvironment.forUser(env, home: String(cString: pw.pw_dir), user: String(cString: pw.pw_name),
                                          shell: String(cString: pw.pw_shell))
        }
        for (k, v) in launch.defaults where env[k] == nil { env[k] = v }
        env["XDG_RUNTIME_DIR"] = runtime // also in a logind session: /run/user is out of the unit's sight
        let pam = o.pamService ?? launch.pamService
        // The terminal is weston's (its logind session holds the VT); cage reaches the seat by seatd.
        let tty = pam != nil && choice.compositor == .weston ? o.tty : nil
        let identity = asRoot ? SessionSupervisor.Identity(user: o.user, pamService: pam, tty: tty) : nil
        let supervisor = SessionSupervisor(
            log: log, name: choice.compositor.rawValue,
            child: .init(path: launch.path, arguments: launch.arguments, environment: env, identity: identity, kiosk: o.kiosk),
            compositorLog: choice.compositor == .weston ? "\(runtime)/weston.log" : nil,
            notifierUID: pw.pw_uid,
            screenCommand: screenCommand(o, asRoot: asRoot))
        do { return try supervisor.run() } catch { failing("session: \(error)") }
    }

    /// `--screen-helper`, else kiosk-screen@.service, which only root may start.
    static func screenCommand(_ o: SessionOptions, asRoot: Bool) -> ((Bool) -> [String])? {
        if let helper = o.screenHelper { return { [helper, $0 ? "on" : "off"] } }
        guard asRoot else { return nil }
        return { SessionSupervisor.systemdScreenCommand($0) }
    }

    /// At boot the unit may start before the display's driver has loaded (a Pi's vc4 comes
    /// after its v3d): the choice waits for it a while, so a slow boot logs no error and no
    /// restart; after `displayWait` it fails as before and systemd starts the unit again.
    static let displayWait: UInt64 = 30_000_000_000

    static func chooseOnceTheDisplayIsThere(requested: Compositor?, installed: Set<Compositor>,
                                            cageVersion: CageVersion?) -> CompositorChoice {
        let start = MonotonicClock.nanoseconds()
        var waiting = false
        while true {
            switch CompositorChoice.choose(requested: requested, cards: DisplayCards.present(), installed: installed, cageVersion: cageVersion) {
            case .success(let c):
                if waiting { log.notice("session: the display device is there after \(secondsSince(start)) s") }
                return c
            case .failure(let e) where e.displayMayComeYet && MonotonicClock.nanoseconds() - start < displayWait:
                if !waiting { log.notice("session: waiting up to \(displayWait / 1_000_000_000) s for the display's driver: \(e)") }
                waiting = true
                usleep(200_000)
            case .failure(let e): failing("session: \(e)")
            }
        }
    }

    /// Seconds since the monotonic `start` (nanoseconds), to a tenth: "3.5".
    static func secondsSince(_ start: UInt64) -> String {
        let tenths = (MonotonicClock.nanoseconds() - start) / 100_000_000
        return "\(tenths / 10).\(tenths % 10)"
    }

    /// cage and weston end at once without an input device, and at boot a touchscreen may still
    /// be udev's for a while after the display is there: the start waits for one as long as for
    /// the display, so a slow boot logs no error; then it goes on as before (and systemd retries).
    static func waitForAnInputDevice(_ compositor: Compositor, paths: InputDevices.Paths = .init()) {
        guard InputDevices.initialised(paths).isEmpty else { return }
        log.notice("session: waiting up to \(displayWait / 1_000_000_000) s for an input device (a touchscreen, a keyboard): \(compositor.rawValue) does not start without one")
        let start = MonotonicClock.nanoseconds()
        while MonotonicClock.nanoseconds() - start < displayWait {
            usleep(200_000)
            let found = InputDevices.initialised(paths)
            if !found.isEmpty {
                log.notice("session: an input device is there after \(secondsSince(start)) s (\(found.joined(separator: ", ")))")
                return
            }
        }
        log.notice("session: still no input device: starting \(compositor.rawValue) all the same")
    }

    /// What `cage -v` says, or nil when it says nothing readable (then cage counts as 0.1).
    /// Run and reaped here, before the supervisor takes SIGCHLD.
    static func cageVersion() -> CageVersion? {
        guard let (_, text) = programOutput(Compositor.cage.path, ["-v"], limit: 4096) else { return nil }
        return text.split(separator: "\n").lazy.compactMap { CageVersion(versionLine: String($0)) }.first
    }

    /// systemd's `RuntimeDirectory=` (or /run/kiosk) given to the kiosk's user when started as
    /// root; the caller's own `XDG_RUNTIME_DIR` otherwise.
    static func runtimeDirectory(owner: passwd?, user: String) throws -> String {
        guard let owner else {
            guard let dir = getenv("XDG_RUNTIME_DIR").map({ String(cString: $0) }), !dir.isEmpty else {
                throw SessionError.system("XDG_RUNTIME_DIR is not set")
            }
            return dir
        }
        let dir = getenv("RUNTIME_DIRECTORY").map { String(String(cString: $0).split(separator: ":").first ?? "") } ?? "/run/kiosk"
        if mkdir(dir, 0o700) != 0, errno != EEXIST { throw SessionError.system("cannot create \(dir): \(String(cString: strerror(errno)))") }
        guard chown(dir, owner.pw_uid, owner.pw_gid) == 0, chmod(dir, 0o700) == 0 else {
            throw SessionError.system("cannot give \(dir) to \(user): \(String(cString: strerror(errno)))")
        }
        return dir
    }

    static func currentEnvironment() -> [String: String] {
        var env: [String: String] = [:]
        var p = environ
        while let entry = p.pointee {
            let s = String(cString: entry)
            if let eq = s.firstIndex(of: "=") { env[String(s[..<eq])] = String(s[s.index(after: eq)...]) }
            p += 1
        }
        return env
    }
}
