#if canImport(Glibc)
import Glibc
#endif
import KioskCore

/// Which panel this is, for the one standing in front of it (the admin panel) and for the fleet
/// (the metrics' labels): its host name and addresses, the kiosk's version, how long the system
/// has been up, and the last update (or rollback) the package wrote down.
struct PanelIdentity: Equatable {
    var hostname: String
    /// IPv4, then IPv6 addresses other than loopback and link-local: those a technician can reach.
    var addresses: [String]
    var version: String
    /// Seconds since the system started (CLOCK_BOOTTIME: suspended time counts).
    var uptime: Double
    var update: UpdateRecord

    static func read(updateFolder: String = UpdateRecord.folder) -> PanelIdentity {
        PanelIdentity(hostname: hostName(), addresses: addresses(), version: kioskVersion, uptime: bootSeconds(),
                      update: UpdateRecord.read(folder: updateFolder))
    }

    /// The last thing the package did: an install, an upgrade, or a version put back.
    var lastChange: (kind: Change, time: Double)? {
        let rollback = update.rollbacks.last
        if let r = rollback, r.time >= (update.installed?.time ?? 0) { return (.rolledBack(failed: r.failed, putBack: r.putBack), r.time) }
        guard let i = update.installed else { return nil }
        return (i.from.map { .updated(from: $0, to: i.version) } ?? .installed(i.version), i.time)
    }
    enum Change: Equatable {
        case installed(String), updated(from: String, to: String), rolledBack(failed: String, putBack: String)
    }

    /// Two lines for the admin panel: the machine ("kiosk-7 · 10.0.2.15"), then the kiosk
    /// ("Kiosk 0.2.1 · up 3 h 12 min · updated 2026-12-06 15:40 from 0.2.0").
    func line(_ texts: Texts) -> String {
        let machine = ([hostname] + (addresses.isEmpty ? [] : [addresses.joined(separator: ", ")])).joined(separator: " · ")
        var parts = ["Kiosk \(version)"]
        parts.append(texts("admin.identity.up", ["time": Self.duration(uptime, texts)]))
        if let (change, time) = lastChange {
            let date = Self.localDate(time)
            switch change {
            case .installed: parts.append(texts("admin.identity.installed", ["date": date]))
            case .updated(let from, _): parts.append(texts("admin.identity.updated", ["date": date, "version": from]))
            case .rolledBack(let failed, _): parts.append(texts("admin.identity.rolledBack", ["date": date, "version": failed]))
            }
        }
        return machine + "\n" + parts.joined(separator: " · ")
    }

    /// "3 d 4 h", "3 h 12 min", "12 min": the two largest units.
    static func duration(_ seconds: Double, _ texts: Texts) -> String {
        let minutes = Int(seconds / 60), hours = minutes / 60, days = hours / 24
        if days > 0 { return "\(texts("admin.identity.days", ["n": String(days)])) \(texts("admin.idle.hours", ["n": String(hours % 24)]))" }
        if hours > 0 { return "\(texts("admin.idle.hours", ["n": String(hours)])) \(texts("admin.idle.minutes", ["n": String(minutes % 60)]))" }
        return texts("admin.idle.minutes", ["n": String(minutes)])
    }

    /// "2026-12-06 15:40" in the panel's time zone.
    static func localDate(_ time: Double) -> String { formatted(time, "%Y-%m-%d %H:%M", utc: false) }

    /// "2026-12-06T15:40:00Z": a label's time, the same in every time zone.
    static func utcDate(_ time: Double) -> String { formatted(time, "%Y-%m-%dT%H:%M:%SZ", utc: true) }

    private static func formatted(_ time: Double, _ format: String, utc: Bool) -> String {
        var t = time_t(time), parts = tm()
        if utc { gmtime_r(&t, &parts) } else { localtime_r(&t, &parts) }
        var buf = [CChar](repeating: 0, count: 32)
        strftime(&buf, buf.count, format, &parts)
        return String(cString: buf)
    }

    private static func hostName() -> String {
        var buf = [CChar](repeating: 0, count: 256)
        guard gethostname(&buf, buf.count - 1) == 0 else { return "?" }
        return String(cString: buf)
    }

    private static func bootSeconds() -> Double {
        var ts = timespec()
        clock_gettime(CLOCK_BOOTTIME, &ts)
        return Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9
    }

    private static func addresses() -> [String] {
        var list: UnsafeMutablePointer<ifaddrs>?
        guard getifaddrs(&list) == 0, let first = list else { return [] }
        defer { freeifaddrs(list) }
        var v4: [String] = [], v6: [String] = []
        for entry in sequence(first: first, next: { $0.pointee.ifa_next }) {
            guard let sa = entry.pointee.ifa_addr, entry.pointee.ifa_flags & UInt32(IFF_LOOPBACK) == 0 else { continue }
            var buf = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN))
            switch Int32(sa.pointee.sa_family) {
            case AF_INET:
                var a = sa.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { $0.pointee.sin_addr }
                if inet_ntop(AF_INET, &a, &buf, socklen_t(buf.count)) != nil { v4.append(String(cString: buf)) }
            case AF_INET6:
                var a = sa.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { $0.pointee.sin6_addr }
                // Link-local (fe80::/10) addresses need an interface to be reached: not worth showing.
                let linkLocal = withUnsafeBytes(of: &a) { $0[0] == 0xfe && $0[1] & 0xc0 == 0x80 }
                if !linkLocal, inet_ntop(AF_INET6, &a, &buf, socklen_t(buf.count)) != nil { v6.append(String(cString: buf)) }
            default:
                continue
            }
        }
        return v4 + v6
    }
}
