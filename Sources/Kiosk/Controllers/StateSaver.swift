#if canImport(Glibc)
import Glibc
#endif
import KioskCore
import KioskUI

/// When what visitors did is written to disk: a few seconds after input changed something, so
/// a power cut loses at most those seconds (bursts of input collapse into one save), and all of
/// it at shutdown — a clean one or whatever ends the event loop.
final class StateSaver {
    /// `KIOSK_SAVE_DELAY` (seconds) shortens it for the kill -9 tests, which want saves in flight.
    static let delay: Double = getenv("KIOSK_SAVE_DELAY").flatMap { Double(String(cString: $0)) }.map { max(0.01, min($0, 60)) } ?? 3.0
    private let scheduler: Scheduler
    private var timer: ScheduledTimer?
    /// What is saved: the shell, with every scene it hosts (nil until the scene is ready).
    var scene: Scene?

    init(scheduler: Scheduler) { self.scheduler = scheduler }

    /// Input arrived: save soon.
    func noteInput() {
        guard timer == nil else { return }
        timer = scheduler.schedule(after: Self.delay) { [weak self] in
            self?.timer = nil
            self?.scene?.saveState()
        }
    }

    /// Everything, now.
    func saveAll() { scene?.saveState() }
}
