#if canImport(Glibc)
import Glibc
#endif
import KioskCore

/// The live kiosk's helper: one thread, started when first needed and kept, that does work too
/// slow for a frame (decoding a picture) in the order asked, at a lower priority than the frame
/// loop; each result is handed back on the event loop, which a pipe wakes. Work called off
/// before it began is skipped.
final class HelperThread: Helper, @unchecked Sendable {
    private let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
    private let cond = UnsafeMutablePointer<pthread_cond_t>.allocate(capacity: 1)
    /// Guarded by `mutex`: what the thread is to do, and what the loop is to hand back.
    private var jobs: [(task: HelperTask, work: () -> (() -> Void))] = []
    private var results: [() -> Void] = []
    private var started = false
    /// The pipe's ends: the helper writes a byte for each result, the loop reads them.
    private let wake: (read: Int32, write: Int32)
    private let log: Logger

    /// `register` hands the wake-up descriptor to the event loop.
    init?(log: Logger, register: (Int32, @escaping () -> Void) -> Void) {
        var fds: [Int32] = [0, 0]
        guard pipe(&fds) == 0 else { return nil }
        for fd in fds {
            _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
            _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
        }
        wake = (fds[0], fds[1])
        self.log = log
        pthread_mutex_init(mutex, nil)
        pthread_cond_init(cond, nil)
        register(wake.read) { [weak self] in self?.handBack() }
    }

    @discardableResult
    func run<T>(_ work: @escaping @Sendable () -> T, then done: @escaping (T) -> Void) -> HelperTask {
        let task = HelperTask()
        // Runs on the helper; what it returns runs on the loop.
        let job: () -> (() -> Void) = {
            let result = work()
            return { done(result) }
        }
        locked {
            jobs.append((task, job))
            pthread_cond_signal(cond)
        }
        startIfNeeded()
        return task
    }

    private func startIfNeeded() {
        guard locked({ () -> Bool in defer { started = true }; return !started }) else { return }
        var thread = pthread_t()
        var attr = pthread_attr_t()
        pthread_attr_init(&attr)
        defer { pthread_attr_destroy(&attr) }
        pthread_attr_setdetachstate(&attr, Int32(PTHREAD_CREATE_DETACHED))
        let me = Unmanaged.passRetained(self).toOpaque()
        let ok = pthread_create(&thread, &attr, { arg in
            let helper = Unmanaged<HelperThread>.fromOpaque(arg!).takeRetainedValue()
            // Behind the frame loop when both want a core (a two-core panel).
            // (Linux's nice is the calling thread's with `who` 0.)
            setpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0, 10)
            helper.serve()
            return nil
        }, me)
        if ok != 0 {
            Unmanaged<HelperThread>.fromOpaque(me).release()
            log.warning("helper: no thread (\(String(cString: strerror(ok)))): its work is done on the frame loop")
            locked { started = false }
            runInline()
        }
    }

    /// The thread: each job in turn, for as long as the kiosk runs.
    private func serve() {
        while true {
            let next: (task: HelperTask, work: () -> (() -> Void)) = locked {
                while jobs.isEmpty { pthread_cond_wait(cond, mutex) }
                return jobs.removeFirst()
            }
            guard !next.task.isCancelled else { continue }
            let done = next.work()
            locked { results.append(done) }
            var one: UInt8 = 1
            _ = write(wake.write, &one, 1)
        }
    }

    /// Without a thread: everything asked so far, here and now.
    private func runInline() {
        let all = locked { defer { jobs.removeAll() }; return jobs }
        for j in all where !j.task.isCancelled {
            let done = j.work()
            done()
        }
    }

    /// Whether results go back now: not while the shell is still being made on the start's
    /// own thread (a result handed to it then would race its layout).
    private var delivering = false

    /// The shell is the loop's now: results go back to it, those waiting first.
    func startDelivering() {
        delivering = true
        handBack()
    }

    /// On the loop: the results that came back, in order.
    private func handBack() {
        var bytes = [UInt8](repeating: 0, count: 64)
        while read(wake.read, &bytes, bytes.count) > 0 {}
        guard delivering else { return }
        let ready = locked { defer { results.removeAll() }; return results }
        for r in ready { r() }
    }

    private func locked<T>(_ body: () -> T) -> T {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return body()
    }
}
