import ArgumentParser
import KioskCore
#if canImport(Glibc)
import Glibc
#endif

extension KioskCommand {
    /// `kiosk session` is a name for `kiosk-session`, the small program that runs as root (the
    /// units start it directly): this binary, with the UI's libraries, only hands over to it.
    struct Session: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "session",
            abstract: "Run the kiosk on this machine's panel (kiosk-session: a compositor with Kiosk in it).",
            discussion: """
                Runs kiosk-session (\(sessionProgram)) with these arguments and this kiosk: it picks \
                the compositor (cage, or weston where cage cannot drive the display), runs it with \
                Kiosk as --user and passes Kiosk's notifications on to systemd. Options it does not \
                know go to the compositor, e.g. `kiosk session --compositor cage -r`. See kiosk-session --help.
                """)

        @Argument(parsing: .captureForPassthrough, help: "kiosk-session's options (--compositor, --user, --tty, --pam-service) and the compositor's.")
        var arguments: [String] = []

        func run() throws { try Self.runSession(arguments) }

        /// kiosk-session with these arguments, told which kiosk to run: this one.
        static func runSession(_ arguments: [String]) throws -> Never {
            try handOver(["--kiosk", ownExecutable()] + arguments)
        }

        /// Replaces this process with kiosk-session (the one beside this binary, else the
        /// package's) and these arguments.
        static func handOver(_ arguments: [String]) throws -> Never {
            let me = ownExecutable()
            let sibling = String(me[..<(me.lastIndex(of: "/") ?? me.startIndex)]) + "/kiosk-session"
            let program = access(sibling, X_OK) == 0 ? sibling : sessionProgram
            let argv = [program] + arguments
            var pointers = argv.map { strdup($0) } + [nil]
            execv(program, &pointers)
            let log = makeLogger(verbose: false)
            throw fail(log, "session: cannot run \(program): \(String(cString: strerror(errno))) (reinstall the kiosk package)")
        }

        static let sessionProgram = "/usr/libexec/kiosk/kiosk-session"

        static func ownExecutable() -> String {
            var buf = [CChar](repeating: 0, count: 4096)
            let n = readlink("/proc/self/exe", &buf, buf.count - 1)
            return n > 0 ? String(decoding: buf.prefix(n).map { UInt8(bitPattern: $0) }, as: UTF8.self) : "/usr/bin/kiosk"
        }
    }

    /// `kiosk audit`: kiosk-session's audit (root's part of the kiosk reads root's settings).
    struct Audit: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "audit",
            abstract: "How open this panel is to a person standing at it: OK or RISK, with the fix, per item (as root).",
            discussion: """
                One line per item: SysRq, the power, suspend, hibernate and reboot keys, Ctrl+Alt+Del, \
                other consoles and their login prompts, a root login on a serial console, SSH \
                password logins, automounting of USB storage, the hardware watchdog, and the \
                exposure (systemd-analyze security) of the kiosk's units. Exits 1 when anything \
                is at risk. docs/deploying.md says what the package closes by itself and what is \
                the operator's.
                """)

        func run() throws {
            guard geteuid() == 0 else { throw fail(makeLogger(verbose: false), "audit: run it as root (sudo kiosk audit): it reads root's settings") }
            try Session.handOver(["--audit"])
        }
    }
}
