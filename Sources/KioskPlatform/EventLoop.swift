import CWayland
#if canImport(Glibc)
import Glibc
#endif
import KioskCore

/// The kiosk's only loop: `poll()` over the Wayland socket, one timerfd carrying every app
/// timer and animation deadline, and a signalfd for SIGTERM/SIGINT/SIGHUP/SIGUSR1.
///
/// With no timer armed and no frame pending, `poll` blocks indefinitely: an idle kiosk makes no
/// wakeups at all.
package final class EventLoop {
    package struct TimerID: Hashable { fileprivate let value: UInt64 }
    private struct Timer { let id: TimerID; let deadline: UInt64; let action: () -> Void }

    private let timerFD: Int32
    private let signalFD: Int32
    private var timers: [Timer] = []
    private var nextID: UInt64 = 1
    private var armedDeadline: UInt64 = 0
    private let log: Logger
    private var exitCode: Int32?

    /// SIGTERM/SIGINT → orderly shutdown; SIGHUP → reload settings; SIGUSR1 → frame statistics.
    package var onSignal: ((Int32) -> Void)?

    package init(log: Logger) throws {
        self.log = log
        // Block the signals before anything could start a thread, so all threads inherit it.
        signalFD = kiosk_signalfd_create()
        timerFD = kiosk_timerfd_create()
        guard signalFD >= 0, timerFD >= 0 else {
            throw PlatformError.system("cannot create the event loop's signalfd/timerfd: \(String(cString: strerror(errno)))")
        }
    }
    deinit { close(timerFD); close(signalFD) }

    @discardableResult
    package func schedule(after seconds: Double, _ action: @escaping () -> Void) -> TimerID {
        let id = TimerID(value: nextID)
        nextID += 1
        let deadline = MonotonicClock.nanoseconds() + UInt64(max(0, seconds) * 1e9)
        let i = timers.firstIndex { $0.deadline > deadline } ?? timers.endIndex
        timers.insert(Timer(id: id, deadline: deadline, action: action), at: i)
        rearm()
        return id
    }
    package func cancel(_ id: TimerID) {
        timers.removeAll { $0.id == id }
        rearm()
    }
    private func rearm() {
        let next = timers.first?.deadline ?? 0
        guard next != armedDeadline else { return }
        armedDeadline = next
        _ = kiosk_timerfd_arm_absolute(timerFD, next)
    }
    private func runDueTimers() {
        _ = kiosk_timerfd_drain(timerFD)
        armedDeadline = 0
        let now = MonotonicClock.nanoseconds()
        while let t = timers.first, t.deadline <= now {
            timers.removeFirst()
            t.action()
        }
        rearm()
    }

    /// Other file descriptors to poll (a settings-file watcher): `action` runs when readable.
    private var watchers: [(fd: Int32, action: () -> Void)] = []
    package func watch(fd: Int32, _ action: @escaping () -> Void) { watchers.append((fd, action)); watchersChanged = true }
    /// Stops watching `fd` (a connection that ended: its hang-up would wake every poll).
    package func unwatch(fd: Int32) { watchers.removeAll { $0.fd == fd }; watchersChanged = true }
    private var watchersChanged = false

    /// Stops `run` after the current pass with `code`.
    package func stop(exitCode code: Int32) { exitCode = code }

    /// Runs until `stop`; `afterDispatch` runs once per pass (the place to render).
    package func run(display: Display, afterDispatch: () throws -> Void) throws -> Int32 {
        let d = display.raw
        var fds = [pollfd(fd: display.fd, events: Int16(POLLIN), revents: 0),
                   pollfd(fd: timerFD, events: Int16(POLLIN), revents: 0),
                   pollfd(fd: signalFD, events: Int16(POLLIN), revents: 0)]
        while exitCode == nil {
            // Standard libwayland read protocol: drain the queue, announce the read, flush.
            while wl_display_prepare_read(d) != 0 {
                guard wl_display_dispatch_pending(d) >= 0 else { throw lostConnection(d) }
            }
            display.seat?.eventsDispatched()
            try afterDispatch()
            var wantWrite = false
            if wl_display_flush(d) < 0 {
                if errno == EAGAIN { wantWrite = true } else { wl_display_cancel_read(d); throw lostConnection(d) }
            }
            if watchersChanged {
                watchersChanged = false
                fds.removeSubrange(3...)
                fds += watchers.map { pollfd(fd: $0.fd, events: Int16(POLLIN), revents: 0) }
            }
            fds[0].events = Int16(POLLIN) | (wantWrite ? Int16(POLLOUT) : 0)
            for i in fds.indices { fds[i].revents = 0 }
            let n = poll(&fds, nfds_t(fds.count), -1)
            if n < 0 {
                wl_display_cancel_read(d)
                if errno == EINTR { continue }
                throw PlatformError.system("poll failed: \(String(cString: strerror(errno)))")
            }
            if fds[0].revents & Int16(POLLIN) != 0 {
                guard wl_display_read_events(d) >= 0 else { throw lostConnection(d) }
            } else {
                wl_display_cancel_read(d)
                if fds[0].revents & Int16(POLLERR | POLLHUP) != 0 { throw lostConnection(d) }
            }
            guard wl_display_dispatch_pending(d) >= 0 else { throw lostConnection(d) }
            if fds[2].revents & Int16(POLLIN) != 0 {
                while case let sig = kiosk_signalfd_read(signalFD), sig != 0 { onSignal?(sig) }
            }
            if fds[1].revents & Int16(POLLIN) != 0 { runDueTimers() }
            // Readable, or ended (its owner reads the end and unwatches); found by descriptor,
            // since an action may unwatch one.
            let woken = Int16(POLLIN | POLLHUP | POLLERR)
            for fd in fds.dropFirst(3) where fd.revents & woken != 0 { watchers.first { $0.fd == fd.fd }?.action() }
        }
        _ = wl_display_flush(d)
        return exitCode ?? 0
    }

    private func lostConnection(_ d: OpaquePointer) -> PlatformError {
        let err = wl_display_get_error(d)
        if err == EPROTO {
            var iface: UnsafePointer<wl_interface>?
            var id: UInt32 = 0
            let code = wl_display_get_protocol_error(d, &iface, &id)
            let name = iface.map { String(cString: $0.pointee.name) } ?? "?"
            return .protocolError("\(name)@\(id) error \(code)")
        }
        return .connectionLost(err == 0 ? EPIPE : err)
    }
}
