import ArgumentParser
import KioskCore
#if canImport(Glibc)
import Glibc
#endif

extension KioskCommand {
    /// `kiosk.service`'s main process: the panel's compositor, chosen for its display, with
    /// Kiosk in it, run as the kiosk's user (see `SessionSupervisor`).
    struct Session: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "session",
            abstract: "Run the kiosk on this machine's panel: a compositor (cage, or weston where cage cannot drive the display) with Kiosk in it.",
            discussion: """
                Started by kiosk.service as root: the compositor and Kiosk run as --user, cage through \
                seatd, weston (on Debian 12) in a logind session. Options it does not know go to the \
                compositor, e.g. `kiosk session --compositor cage -r` turns cage's output.
                """)

        @Option(help: "cage, weston, or auto: cage (0.2 and later on any display, 0.1 where a display device can import PRIME buffers), else weston.")
        var compositor: String = "auto"
        @Option(help: "The user the compositor and Kiosk run as (when started as root).")
        var user: String = "kiosk"
        @Option(help: "The terminal of weston's logind session (when started as root).")
        var tty: String = "tty1"
        @Argument(parsing: .allUnrecognized, help: "Options passed to the compositor.")
        var compositorOptions: [String] = []

        /// What `cage -v` says, or nil when it says nothing readable (then cage counts as 0.1).
        /// Spawned and reaped here, before the supervisor takes SIGCHLD: no other thread may
        /// handle that signal (Foundation's Process installs a handler that does).
        func cageVersion() -> CageVersion? {
            var pipe: [Int32] = [0, 0]
            guard Glibc.pipe(&pipe) == 0 else { return nil }
            var actions = posix_spawn_file_actions_t()
            posix_spawn_file_actions_init(&actions)
            defer { posix_spawn_file_actions_destroy(&actions) }
            posix_spawn_file_actions_adddup2(&actions, pipe[1], 1)
            posix_spawn_file_actions_adddup2(&actions, pipe[1], 2)
            posix_spawn_file_actions_addclose(&actions, pipe[0])
            var pid: pid_t = 0
            let argv: [UnsafeMutablePointer<CChar>?] = [strdup(Compositor.cage.path), strdup("-v"), nil]
            defer { argv.forEach { free($0) } }
            let spawned = posix_spawn(&pid, Compositor.cage.path, &actions, nil, argv, environ) == 0
            close(pipe[1])
            var output: [UInt8] = []
            var chunk = [UInt8](repeating: 0, count: 256)
            while spawned, output.count < 4096, case let n = read(pipe[0], &chunk, chunk.count), n > 0 { output += chunk[..<n] }
            close(pipe[0])
            var status: Int32 = 0
            if spawned { while waitpid(pid, &status, 0) < 0 && errno == EINTR {} }
            return String(decoding: output, as: UTF8.self).split(separator: "\n").lazy
                .compactMap { CageVersion(versionLine: String($0)) }.first
        }

        func run() throws {
            let log = makeLogger(verbose: false)
            let requested: Compositor?
            if compositor == "auto" { requested = nil } else if let c = Compositor(rawValue: compositor) { requested = c } else {
                throw fail(log, "--compositor \(compositor): expected auto, cage or weston")
            }
            let installed = Set(Compositor.allCases.filter { access($0.path, X_OK) == 0 })
            let cards = DisplayCards.present()
            let choice: CompositorChoice
            let cage = requested == nil && installed.contains(.cage) ? cageVersion() : nil
            switch CompositorChoice.choose(requested: requested, cards: cards, installed: installed, cageVersion: cage) {
            case .success(let c): choice = c
            case .failure(let e): throw fail(log, "session: \(e)")
            }
            log.notice("session: running \(choice.compositor.rawValue): \(choice.reason)")
            if let w = choice.warning { log.warning("session: \(w)") }

            let asRoot = geteuid() == 0
            let account = asRoot ? getpwnam(user) : getpwuid(geteuid())
            guard let pw = account?.pointee else { throw fail(log, "session: no user \(user): reinstall the kiosk package (it creates the user)") }
            let runtime: String
            do { runtime = try runtimeDirectory(owner: asRoot ? pw : nil) } catch { throw fail(log, "session: \(error)") }
            let launch = CompositorLaunch.make(choice.compositor, kiosk: ownExecutable(), extra: compositorOptions, runtimeDirectory: runtime,
                                              devices: choice.devices)

            var env = currentEnvironment()
            for (k, v) in launch.defaults where env[k] == nil { env[k] = v }
            if asRoot {
                env["HOME"] = String(cString: pw.pw_dir)
                env["USER"] = String(cString: pw.pw_name)
                env["LOGNAME"] = String(cString: pw.pw_name)
                env["SHELL"] = String(cString: pw.pw_shell)
            }
            env["XDG_RUNTIME_DIR"] = runtime // a logind session (weston) brings its own
            let identity = asRoot ? SessionSupervisor.Identity(user: user, pamService: launch.pamService, tty: launch.pamService == nil ? nil : tty) : nil
            let supervisor = SessionSupervisor(
                log: log, name: choice.compositor.rawValue,
                child: .init(path: launch.path, arguments: launch.arguments, environment: env, identity: identity),
                compositorLog: choice.compositor == .weston ? "\(runtime)/weston.log" : nil,
                notifierUID: pw.pw_uid)
            let code: Int32
            do { code = try supervisor.run() } catch { throw fail(log, "session: \(error)") }
            if code != 0 { throw ExitCode(code) }
        }

        /// systemd's `RuntimeDirectory=` (or /run/kiosk) given to the kiosk's user when started
        /// as root; the caller's own `XDG_RUNTIME_DIR` otherwise.
        private func runtimeDirectory(owner: passwd?) throws -> String {
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

        private func ownExecutable() -> String {
            var buf = [CChar](repeating: 0, count: 4096)
            let n = readlink("/proc/self/exe", &buf, buf.count - 1)
            return n > 0 ? String(decoding: buf.prefix(n).map { UInt8(bitPattern: $0) }, as: UTF8.self) : "/usr/bin/kiosk"
        }

        private func currentEnvironment() -> [String: String] {
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
}
