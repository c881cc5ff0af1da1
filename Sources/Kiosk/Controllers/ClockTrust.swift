#if canImport(Glibc)
import Glibc
#endif
import CClock
import KioskCore

/// Whether the wall clock can be believed, for the opening hours: synchronised by NTP (the flag
/// systemd-timesyncd leaves in /run, or the kernel's adjtimex as `timedatectl` reads it) or set at
/// boot from a real-time clock. adjtimex is in no system-call set kiosk.service allows (it is
/// @clock's, even to read), so under the unit the flag and the RTC are what tell. A Pi 4
/// has none: booted without a network it starts at the time it last saved, and hours applied
/// to that turn the panel black by day. Until it is believed it is asked again every
/// `interval`; once believed it stays so (a lost NTP server leaves the clock right for days).
final class ClockTrust {
    /// What was read: nil while the clock cannot be believed, else why it can.
    enum Reason: String {
        case ntp = "synchronised by NTP"
        case timesync = "synchronised by NTP (systemd-timesyncd)"
        case rtc = "set at boot from a real-time clock"
        case forced = "believed ($KIOSK_CLOCK_SYNCHRONIZED=1)"
    }
    private(set) var reason: Reason?
    var isTrusted: Bool { reason != nil }
    /// Told once, when a clock that was not believed is.
    var onTrusted: (() -> Void)?
    static let interval = 30.0
    private let scheduler: Scheduler
    private let read: () -> Reason?
    private var timer: ScheduledTimer?

    init(scheduler: Scheduler, read: @escaping () -> Reason? = ClockTrust.system) {
        self.scheduler = scheduler
        self.read = read
        reason = read()
        if reason == nil { askAgain() }
    }

    private func askAgain() {
        timer = scheduler.schedule(after: Self.interval) { [weak self] in
            guard let self else { return }
            self.reason = self.read()
            if self.isTrusted { self.onTrusted?() } else { self.askAgain() }
        }
    }

    /// The system's answer. `KIOSK_CLOCK_SYNCHRONIZED=1` or `=0` forces it, for tests and for
    /// diagnosis (this machine's container clock may say either).
    static func system() -> Reason? {
        if let raw = getenv("KIOSK_CLOCK_SYNCHRONIZED") {
            return String(cString: raw) == "1" ? .forced : nil
        }
        if access(timesyncFlag, F_OK) == 0 { return .timesync }
        if kiosk_clock_synchronized() == 1 { return .ntp }
        return rtcSetTheClock() ? .rtc : nil
    }
    /// Created by systemd-timesyncd at its first synchronisation (as systemd-time-wait-sync reads it).
    static let timesyncFlag = "/run/systemd/timesync/synchronized"

    /// The kernel set the system clock from an RTC at boot (`hctosys`, CONFIG_RTC_HCTOSYS).
    static func rtcSetTheClock(in folder: String = "/sys/class/rtc") -> Bool {
        (0..<4).contains { n in
            // A sysfs attribute says it is a page long, whatever it holds.
            readSmallFile("\(folder)/rtc\(n)/hctosys", limit: 4096).map { String(decoding: $0, as: UTF8.self).hasPrefix("1") } ?? false
        }
    }
}
