import CSession
import KioskCore
#if canImport(Glibc)
import Glibc
#endif

/// The main process of `kiosk.service`: starts the compositor (which starts Kiosk), passes
/// Kiosk's READY=1, STATUS= and watchdog pings on to systemd, and stops every process it
/// started — however they were started — when it is stopped or the compositor ends.
///
/// Why a process between systemd and the compositor: systemd takes notifications only from a
/// unit's own processes or its main process, and a logind session (which weston on Debian 12
/// needs) moves its processes out of the unit; relayed by the main process, they count. The
/// main process stays in the unit, so the journal stream it was given, inherited by the
/// compositor and Kiosk, keeps their lines under `journalctl -u kiosk`.
final class SessionSupervisor {
    struct Child {
        var path: String
        var arguments: [String]
        var environment: [String: String]
        var identity: Identity?
        /// The Kiosk executable, asked to stop first.
        var kiosk: String
    }
    struct Identity {
        var user: String
        var pamService: String?
        var tty: String?
    }

    private let log: Logger
    private let child: Child
    private let name: String
    /// Read when the compositor fails before the kiosk was on screen (weston logs to a file).
    private let compositorLog: String?
    /// Who may notify through the relay: the kiosk's user, and root.
    private let notifierUID: uid_t?
    private let upstream: String?
    /// The command that turns the screen on (true) or off, run when Kiosk asks and the
    /// compositor cannot (`KIOSK_SCREEN=on|off`); nil where nothing may (a session not run as root).
    private let screenCommand: ((Bool) -> [String])?

    private var signals: Int32 = -1
    private var relay: Int32 = -1
    private var compositor: pid_t = 0
    private var started = 0.0
    private var ready = false
    private var stopping = false
    private var notifications = NotifyFilter()
    /// When the compositor is asked to stop, if it has not ended with Kiosk by then.
    private var compositorDeadline: Double?
    /// When the processes still running get SIGKILL.
    private var killDeadline: Double?
    /// The screen Kiosk last asked for, the one last given to the helper (nil: never turned,
    /// so on), and the helper running now: one at a time, Kiosk's latest wish last.
    private var screenWanted: Bool?
    private var screenSet: Bool?
    private var screenHelper: pid_t = 0

    init(log: Logger, name: String, child: Child, compositorLog: String?, notifierUID: uid_t?,
         screenCommand: ((Bool) -> [String])? = SessionSupervisor.systemdScreenCommand,
         upstream: String? = getenv("NOTIFY_SOCKET").map { String(cString: $0) }) {
        self.screenCommand = screenCommand
        self.log = log
        self.name = name
        self.child = child
        self.compositorLog = compositorLog
        self.notifierUID = notifierUID
        self.upstream = upstream
    }

    /// Runs until the compositor has ended and every process it left is gone; the exit code.
    func run() throws -> Int32 {
        signals = kiosk_session_signalfd()
        guard signals >= 0 else { throw SessionError.system("cannot create a signalfd: \(String(cString: strerror(errno)))") }
        _ = kiosk_session_set_subreaper()
        let relayName = "\(SessionRelay.namePrefix)\(getpid())"
        relay = kiosk_session_notify_socket(relayName)
        guard relay >= 0 else { throw SessionError.system("cannot create the notification relay: \(String(cString: strerror(errno)))") }
        defer { close(relay); close(signals) }

        var env = child.environment
        env["NOTIFY_SOCKET"] = "@\(relayName)"
        // The watchdog is Kiosk's to ping (it names no process: every child of the unit may).
        env["WATCHDOG_PID"] = nil
        notify("STATUS=starting \(name)")
        started = MonotonicClock.now()
        compositor = try spawn(env)
        return loop()
    }

    private func spawn(_ env: [String: String]) throws -> pid_t {
        let argv = [child.path] + child.arguments
        let envp = env.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }
        let pid = withCStrings(argv) { a in
            withCStrings(envp) { e in
                withIdentity(child.identity) { kiosk_session_spawn(child.path, a, e, $0) }
            }
        }
        guard pid > 0 else { throw SessionError.system("cannot start \(name): \(String(cString: strerror(errno)))") }
        return pid
    }

    private func loop() -> Int32 {
        var fds = [pollfd(fd: signals, events: Int16(POLLIN), revents: 0), pollfd(fd: relay, events: Int16(POLLIN), revents: 0)]
        var exitStatus: Int32?
        while true {
            let next = [compositorDeadline, killDeadline].compactMap { $0 }.min()
            let timeout = next.map { Int32(max(0, ($0 - MonotonicClock.now()) * 1000)) } ?? -1
            for i in fds.indices { fds[i].revents = 0 }
            if poll(&fds, nfds_t(fds.count), timeout) < 0, errno != EINTR { break }
            if fds[1].revents & Int16(POLLIN) != 0 { relayNotifications() }
            if fds[0].revents & Int16(POLLIN) != 0 {
                while case let sig = kiosk_session_signalfd_read(signals), sig != 0 {
                    if sig == SIGCHLD {
                        if let s = reapChildren() { exitStatus = s; compositorEnded(s) }
                    } else {
                        stop(because: sig)
                    }
                }
            }
            if let d = compositorDeadline, MonotonicClock.now() >= d {
                kill(compositor, SIGTERM)
                compositorDeadline = nil
            }
            if let d = killDeadline, MonotonicClock.now() >= d {
                for pid in descendants() { kill(pid, SIGKILL) }
                killDeadline = MonotonicClock.now() + 1
            }
            if let s = exitStatus, descendants().isEmpty {
                restoreScreen()
                return exitCode(s)
            }
        }
        return 1
    }

    /// kiosk-screen@.service (it may write /sys and open the I²C and CEC devices, which this
    /// unit may not); systemctl waits for it, so the helpers run one after another.
    static func systemdScreenCommand(_ on: Bool) -> [String] {
        ["/usr/bin/systemctl", "start", "kiosk-screen@\(on ? "on" : "off").service"]
    }

    /// Starts the helper when Kiosk's wish differs from what was last set and none is running.
    private func updateScreen() {
        guard screenHelper == 0, let wanted = screenWanted, wanted != (screenSet ?? true) else { return }
        guard let screenCommand else {
            log.notice("session: the screen stays lit: only kiosk-session started as root (kiosk.service) turns it off outside Wayland")
            screenWanted = nil
            return
        }
        let argv = screenCommand(wanted)
        let pid = withCStrings(argv) { a in
            withCStrings(["PATH=\(UserEnvironment.defaultPath)"]) { kiosk_session_spawn(argv[0], a, $0, nil) }
        }
        guard pid > 0 else {
            log.error("session: cannot run \(argv[0]) to turn the screen \(wanted ? "on" : "off"): \(String(cString: strerror(errno)))")
            screenWanted = screenSet
            return
        }
        screenHelper = pid
        screenSet = wanted
    }

    /// A screen left off is turned on when the session ends (a stopped kiosk must not leave the
    /// panel dark; a kiosk started after hours turns it off again). Waited for a few seconds.
    private func restoreScreen() {
        guard screenSet == false else { return }
        screenWanted = true
        updateScreen()
        let deadline = MonotonicClock.now() + 5
        var status: Int32 = 0
        while screenHelper > 0, MonotonicClock.now() < deadline {
            if waitpid(screenHelper, &status, WNOHANG) == screenHelper { screenHelper = 0 } else { usleep(50_000) }
        }
    }

    /// Reaps every child that has ended; the compositor's wait status when it was one of them.
    private func reapChildren() -> Int32? {
        var compositorStatus: Int32?
        var status: Int32 = 0
        while case let pid = waitpid(-1, &status, WNOHANG), pid > 0 {
            if pid == compositor { compositorStatus = status }
            if pid == screenHelper {
                screenHelper = 0
                if status != 0, let argv = screenCommand?(screenSet ?? true) { log.warning("session: the screen's helper (\(argv[0])) \(describe(status))") }
                updateScreen()
            }
        }
        return compositorStatus
    }

    private func compositorEnded(_ status: Int32) {
        let seconds = MonotonicClock.now() - started
        let how = describe(status)
        if stopping {
            log.info("session: \(name) \(how)")
        } else if !ready {
            log.error("session: \(name) \(how) after \(format1(seconds)) s, before the kiosk was on screen")
            quoteCompositorLog()
        } else if status != 0 {
            log.error("session: \(name) \(how)")
        } else {
            log.notice("session: \(name) ended (the kiosk exited)")
        }
        // What it left behind (Kiosk under weston is in a session of its own) goes too.
        compositorDeadline = nil
        for pid in descendants() { kill(pid, SIGTERM) }
        killDeadline = min(killDeadline ?? .infinity, MonotonicClock.now() + 2)
    }

    private func stop(because sig: Int32) {
        if sig == SIGABRT {
            // systemd's watchdog: Kiosk stopped pinging. Nothing hung is asked twice.
            log.error("session: the watchdog fired (the kiosk stopped answering): stopping \(name) and the kiosk")
            for pid in descendants() { kill(pid, SIGKILL) }
            killDeadline = MonotonicClock.now() + 1
        } else if !stopping {
            // Kiosk first (it saves what a visitor was doing); the compositor ends with it, as
            // cage and weston ([autolaunch] watch) do. cage 0.1.4 asked first can abort in its
            // teardown (wl_display_terminate's assertion) and waits for Kiosk forever.
            log.info("session: signal \(sig): stopping the kiosk and \(name)")
            notify("STOPPING=1")
            for pid in descendants() where pid != compositor && Self.runs(child.kiosk, pid) { kill(pid, SIGTERM) }
            compositorDeadline = MonotonicClock.now() + 3
            killDeadline = MonotonicClock.now() + 6
        }
        stopping = true
    }

    /// Kiosk's notifications: what it says of its state passed on as this process's own; what
    /// would change how systemd treats the service (NotifyFilter) logged once by name, not sent.
    private func relayNotifications() {
        var buf = [CChar](repeating: 0, count: 4096)
        var uid: Int64 = -1
        while case let n = kiosk_session_notify_receive(relay, &buf, buf.count, &uid), n >= 0 {
            guard uid == 0 || uid == Int64(getuid()) || notifierUID.map({ Int64($0) == uid }) == true else { continue }
            var text = String(decoding: buf.prefix(n).map { UInt8(bitPattern: $0) }, as: UTF8.self)
            if let (wish, rest) = Self.screenRequest(in: text) {
                text = rest
                screenWanted = wish
                updateScreen()
            }
            let (lines, refused) = notifications.filter(text)
            for name in refused { log.warning("session: ignored \(name)= from uid \(uid): only the kiosk's state is passed on to systemd") }
            if !ready, lines.contains("READY=1") {
                ready = true
                log.info("session: the kiosk is on screen, \(format1(MonotonicClock.now() - started)) s after \(name) started")
                keepTheVersionOnTrial()
            }
            notify(lines.joined(separator: "\n"))
        }
    }

    static let updateHelper = "/usr/libexec/kiosk/kiosk-update"

    /// A version on trial after an update is kept once it is on screen (`kiosk-update came-up`,
    /// docs/updating.md). Run from here, not as the unit's ExecStartPost=: systemd sets the
    /// unit's RuntimeDirectory= up again, as root's, for each command it runs, and the
    /// compositor's socket in it was then closed to the kiosk's user (Tests/E2E/compositors.md).
    private func keepTheVersionOnTrial() {
        guard upstream != nil, getuid() == 0, access(Self.updateHelper, X_OK) == 0,
              let (status, text) = programOutput(Self.updateHelper, ["came-up"]) else { return }
        for line in text.split(separator: "\n") {
            if status == 0 { log.notice("\(line)") } else { log.warning("\(line)") }
        }
    }

    /// Kiosk's `KIOSK_SCREEN=on|off` (the last one in a message) and the message without it:
    /// the session's own field, never passed to systemd.
    static func screenRequest(in text: String) -> (on: Bool, rest: String)? {
        var wish: Bool?, rest: [Substring] = []
        for line in text.split(separator: "\n") {
            if let w = SessionRelay.screenWish(line) { wish = w } else { rest.append(line) }
        }
        return wish.map { ($0, rest.joined(separator: "\n")) }
    }

    private func notify(_ text: String) {
        guard let upstream, !text.isEmpty else { return }
        _ = text.withCString { kiosk_session_notify_send(upstream, $0, strlen($0)) }
    }

    private func quoteCompositorLog() {
        guard let path = compositorLog, case .success(let text) = readRegularFile(path, limit: 1 << 20) else { return }
        let lines = String(decoding: text, as: UTF8.self).split(separator: "\n").suffix(12)
        guard !lines.isEmpty else { return }
        log.warning("session: the last lines of \(path):")
        for l in lines { log.warning("  \(l)") }
    }

    private func exitCode(_ status: Int32) -> Int32 {
        if stopping { return 0 }
        let code = wifexited(status) ? wexitstatus(status) : 128 + wtermsig(status)
        return ready ? code : max(code, 1)
    }

    /// Every process below this one, found through /proc (children of children, then those
    /// re-parented here when their parent ended).
    private func descendants() -> [pid_t] {
        var found: [pid_t] = []
        var queue = [getpid()]
        while let p = queue.popLast() {
            for c in Self.children(of: p) where !found.contains(c) {
                found.append(c)
                queue.append(c)
            }
        }
        return found
    }

    /// Whether `pid` runs `executable` (Kiosk, under either compositor), by the name it was
    /// started with: /proc/PID/exe of another user's process needs CAP_SYS_PTRACE, which the
    /// confined unit does not give root; its command line does not.
    static func runs(_ executable: String, _ pid: pid_t) -> Bool {
        guard let line = readKernelFile("/proc/\(pid)/cmdline"), let first = line.split(separator: "\0").first else { return false }
        return first == executable || first.split(separator: "/").last == executable.split(separator: "/").last
    }

    static func children(of pid: pid_t) -> [pid_t] {
        directoryEntries("/proc/\(pid)/task").filter { Int($0) != nil }.flatMap { tid in
            (readKernelFile("/proc/\(pid)/task/\(tid)/children") ?? "").split(whereSeparator: { $0 == " " || $0 == "\n" }).compactMap { pid_t($0) }
        }
    }

    private func describe(_ status: Int32) -> String {
        wifexited(status) ? "exited with status \(wexitstatus(status))" : "was ended by signal \(wtermsig(status))"
    }
    private func format1(_ v: Double) -> String { String(Double(Int(v * 10)) / 10) }
}

// The wait-status macros of <sys/wait.h>, which Swift does not import.
func wifexited(_ s: Int32) -> Bool { s & 0x7f == 0 }
func wexitstatus(_ s: Int32) -> Int32 { (s >> 8) & 0xff }
func wtermsig(_ s: Int32) -> Int32 { s & 0x7f }

func withCStrings<R>(_ strings: [String], _ body: (UnsafePointer<UnsafeMutablePointer<CChar>?>) -> R) -> R {
    var pointers = strings.map { strdup($0) } + [nil]
    defer { for p in pointers { free(p) } }
    return pointers.withUnsafeMutableBufferPointer { body($0.baseAddress!) }
}

private func withIdentity<R>(_ id: SessionSupervisor.Identity?, _ body: (UnsafePointer<kiosk_identity>?) -> R) -> R {
    guard let id else { return body(nil) }
    return id.user.withCString { user in
        withOptionalCString(id.pamService) { service in
            withOptionalCString(id.tty) { tty in
                var who = kiosk_identity(user: user, pam_service: service, tty: tty)
                return body(&who)
            }
        }
    }
}

private func withOptionalCString<R>(_ s: String?, _ body: (UnsafePointer<CChar>?) -> R) -> R {
    guard let s else { return body(nil) }
    return s.withCString { body($0) }
}
