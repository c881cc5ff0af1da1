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

        func run() throws { try Self.handOver(arguments) }

        /// Replaces this process with kiosk-session, telling it which kiosk to run: this one.
        static func handOver(_ arguments: [String]) throws -> Never {
            let me = ownExecutable()
            let sibling = String(me[..<(me.lastIndex(of: "/") ?? me.startIndex)]) + "/kiosk-session"
            let program = access(sibling, X_OK) == 0 ? sibling : sessionProgram
            let argv = [program, "--kiosk", me] + arguments
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
}
