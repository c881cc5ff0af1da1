#if canImport(Glibc)
import Glibc
#endif
import KioskCore

/// systemd's service notification protocol, spoken directly (no libsystemd): one datagram of
/// `KEY=value` lines to the socket named by `$NOTIFY_SOCKET`. The units run cage (or weston) as
/// the main process and Kiosk as its child, with `NotifyAccess=all`, so Kiosk's messages count:
/// `READY=1` once the first frame is on screen, `STATUS=` with what it shows, `STOPPING=1` at
/// shutdown, and `WATCHDOG=1` while its event loop runs.
final class SystemdNotifier {
    private let fd: Int32
    private var address = sockaddr_un()
    private let addressLength: socklen_t
    /// How often to ping the watchdog (half of `WATCHDOG_USEC`), or nil when this process is
    /// not the one systemd watches.
    let watchdogInterval: Double?
    /// Whether the socket is kiosk-session's relay (`@kiosk-session-PID`), which also takes
    /// `KIOSK_SCREEN=on|off` and turns the screen by means outside Wayland.
    let reachesKioskSession: Bool

    /// Nil when not started by systemd with a notification socket.
    init?(environment env: [String: String] = SystemdNotifier.environment()) {
        guard let path = env["NOTIFY_SOCKET"], !path.isEmpty,
              path.hasPrefix("/") || path.hasPrefix("@"), path.utf8.count < MemoryLayout.size(ofValue: address.sun_path) else { return nil }
        let fd = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { return nil }
        self.fd = fd
        address.sun_family = sa_family_t(AF_UNIX)
        var bytes = Array(path.utf8)
        if bytes[0] == UInt8(ascii: "@") { bytes[0] = 0 } // the abstract namespace
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            for (k, c) in bytes.enumerated() { raw[k] = c }
        }
        addressLength = socklen_t(MemoryLayout<sa_family_t>.size + bytes.count + (bytes[0] == 0 ? 0 : 1))
        watchdogInterval = SystemdNotifier.watchdogInterval(env, pid: getpid(), parent: getppid())
        reachesKioskSession = path.hasPrefix("@" + SessionRelay.namePrefix)
    }

    deinit { close(fd) }

    /// Half of `WATCHDOG_USEC` when this process should ping: `WATCHDOG_PID` unset, naming this
    /// process, or naming its parent — the compositor the unit started, which passes its
    /// environment on to Kiosk and never pings itself.
    static func watchdogInterval(_ env: [String: String], pid: pid_t, parent: pid_t) -> Double? {
        guard let usec = env["WATCHDOG_USEC"].flatMap(UInt64.init), usec > 0 else { return nil }
        if let p = env["WATCHDOG_PID"].flatMap(Int32.init), p != pid, p != parent { return nil }
        return Double(usec) / 2e6
    }

    static func environment() -> [String: String] {
        var env: [String: String] = [:]
        for name in ["NOTIFY_SOCKET", "WATCHDOG_USEC", "WATCHDOG_PID"] {
            if let v = getenv(name) { env[name] = String(cString: v) }
        }
        return env
    }

    /// Sends `lines` as one notification; failures are ignored (systemd may have gone).
    func send(_ lines: String...) {
        let text = Array(lines.joined(separator: "\n").utf8)
        _ = withUnsafePointer(to: &address) { ptr in
            ptr.withMemoryRebound(to: sockaddr.self, capacity: 1) { sa in
                text.withUnsafeBytes { sendto(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL), sa, addressLength) }
            }
        }
    }
}
