import KioskCore

/// What the package's updates leave in `/var/lib/kiosk-update` (Packaging/kiosk-update writes
/// it; docs/updating.md): the last install or upgrade, and the rollbacks. Read, never written,
/// by the kiosk.
struct UpdateRecord: Equatable {
    static let folder = "/var/lib/kiosk-update"

    struct Installed: Equatable {
        var version: String
        /// The version it replaced; nil for a first install.
        var from: String?
        /// Seconds since the Unix epoch.
        var time: Double
    }
    struct Rollback: Equatable {
        var time: Double
        var failed: String
        var putBack: String
    }
    var installed: Installed?
    var rollbacks: [Rollback] = []

    /// The record in `folder`; a file missing or unreadable counts as nothing written.
    static func read(folder: String = UpdateRecord.folder) -> UpdateRecord {
        func lines(_ name: String) -> [[Substring]] {
            guard case .success(let bytes) = readRegularFile("\(folder)/\(name)", limit: 1 << 16) else { return [] }
            return String(decoding: bytes, as: UTF8.self).split(separator: "\n").map { $0.split(separator: " ") }
        }
        var record = UpdateRecord()
        if let f = lines("installed").first, f.count == 3, let t = Double(f[2]) {
            record.installed = Installed(version: String(f[0]), from: f[1] == "-" ? nil : String(f[1]), time: t)
        }
        record.rollbacks = lines("rollbacks").compactMap { f in
            guard f.count == 3, let t = Double(f[0]) else { return nil }
            return Rollback(time: t, failed: String(f[1]), putBack: String(f[2]))
        }
        return record
    }
}

/// A newer kiosk installed while this one runs is restarted into only when nobody is at the
/// panel: at once if the screensaver, its black or closing time is showing, else when it next
/// is; and, so that a panel in constant use (or one whose screensaver never comes) still updates,
/// after `longestWait` at the first `quietEnough` seconds without a touch on a scene. Exiting is
/// the restart: the unit starts the kiosk again (Restart=always) on the new version, and the
/// visitor's state is saved on the way out, as at every stop.
final class UpdateRestart {
    static let longestWait = 30 * 60.0
    static let quietEnough = 60.0

    private let shell: Shell
    private let scheduler: Scheduler
    private let log: Logger
    private let folder: String
    private let ownVersion: String
    private let restart: (String) -> Void
    private var watcher: FileWatcher?
    /// The version waiting to be restarted into, and since when (the scheduler's clock).
    private(set) var pending: (version: String, since: Double)?
    private var lastActivity: Double
    private var quietTimer: ScheduledTimer?
    private var restarted = false

    init(shell: Shell, scheduler: Scheduler, log: Logger, folder: String = UpdateRecord.folder, ownVersion: String = kioskVersion,
         register: ((Int32, @escaping () -> Void) -> Void)?, restart: @escaping (_ reason: String) -> Void) {
        self.shell = shell
        self.scheduler = scheduler
        self.log = log
        self.folder = folder
        self.ownVersion = ownVersion
        self.restart = restart
        lastActivity = scheduler.now
        shell.activity.add { [weak self] in self?.touched() }
        shell.showingChanged.add { [weak self] _ in self?.consider() }
        if let register {
            watcher = FileWatcher(paths: ["\(folder)/installed"], scheduler: scheduler, settle: 0.5,
                                  report: { [log] in log.debug("update: \($0)") }, register: register) { [weak self] in self?.check() }
        }
        check()
    }

    /// The record read again: a version other than this one is waiting.
    func check() {
        guard let installed = UpdateRecord.read(folder: folder).installed, installed.version != ownVersion else {
            pending = nil
            return
        }
        guard pending?.version != installed.version else { return }
        pending = (installed.version, scheduler.now)
        log.notice("kiosk \(installed.version) installed; restarting when the panel is idle (this is \(ownVersion))")
        consider()
        scheduler.schedule(after: Self.longestWait) { [weak self] in self?.consider() }
    }

    private func touched() {
        lastActivity = scheduler.now
        consider()
    }

    private func consider() {
        guard let pending, !restarted else { return }
        quietTimer?.cancel()
        quietTimer = nil
        if shell.showing.isAsleep || shell.showing == .closed {
            restartNow(pending.version, because: shell.showing == .closed ? "closing time" : "the screensaver is showing")
            return
        }
        guard scheduler.now - pending.since >= Self.longestWait, shell.showing == .scene else { return }
        let quietAt = lastActivity + Self.quietEnough
        if scheduler.now >= quietAt {
            restartNow(pending.version, because: "nobody has touched it for \(Int(Self.quietEnough)) s, after \(Int(Self.longestWait / 60)) min without the screensaver")
        } else {
            quietTimer = scheduler.schedule(after: quietAt - scheduler.now) { [weak self] in self?.consider() }
        }
    }

    private func restartNow(_ version: String, because reason: String) {
        restarted = true
        restart("kiosk \(version) installed: restarting into it now, the panel is idle (\(reason))")
    }
}
