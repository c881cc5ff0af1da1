#if canImport(Glibc)
import Glibc
#endif
import KioskCore
import KioskRender
import Synchronization

/// Pictures of what the kiosk shows, made from its own last committed frame (so they work under
/// every compositor), turned upright as a visitor sees the panel. Copying the frame is the only
/// work on the event loop; the PNG is encoded and written on a thread of its own, one at a time.
///
/// Two ways out: `kiosk screenshot` asks over a listening socket (`ScreenshotSocket`), and
/// `[metrics] screenshot` keeps a file for a fleet's dashboard (`ScreenshotFile`).
enum PictureWork {
    /// Runs `work` on a new detached thread (inline if none can be made): PNG encoding of a
    /// 1080p frame takes tens of milliseconds, a few frames of a visitor's animation.
    static func inBackground(_ work: @escaping () -> Void) {
        final class Box: @unchecked Sendable { let work: () -> Void; init(_ w: @escaping () -> Void) { work = w } }
        var thread = pthread_t()
        var attr = pthread_attr_t()
        pthread_attr_init(&attr)
        pthread_attr_setdetachstate(&attr, Int32(PTHREAD_CREATE_DETACHED))
        defer { pthread_attr_destroy(&attr) }
        let arg = Unmanaged.passRetained(Box(work)).toOpaque()
        let started = pthread_create(&thread, &attr, { arg in
            Unmanaged<Box>.fromOpaque(arg!).takeRetainedValue().work()
            return nil
        }, arg) == 0
        if !started { Unmanaged<Box>.fromOpaque(arg).takeRetainedValue().work() }
    }

    /// Whether a picture is being made: one at a time (a request meanwhile is refused with a
    /// reason, or the file's picture waits for its next turn).
    private static let busy = Atomic<Bool>(false)
    static func claim() -> Bool { busy.compareExchange(expected: false, desired: true, ordering: .acquiring).exchanged }
    static func release() { busy.store(false, ordering: .releasing) }
    static var isBusy: Bool { busy.load(ordering: .acquiring) }
}

/// Answers `kiosk screenshot`: a stream socket in the abstract namespace named for this
/// process (no file to leave behind or to give permissions to), which `kiosk screenshot` finds
/// in /proc/net/unix. Only root and the kiosk's own user are answered (the peer's credentials).
/// The answer is the PNG's bytes, or one line beginning "error: ".
final class ScreenshotSocket {
    static let namePrefix = "kiosk/screenshot/"
    let fd: Int32
    private let log: KioskLog
    private let frame: () -> Image?

    /// Listens; nil (with a warning) where the socket cannot be made.
    init?(log: KioskLog, frame: @escaping () -> Image?) {
        self.log = log
        self.frame = frame
        let name = Self.namePrefix + String(getpid())
        fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue | SOCK_NONBLOCK.rawValue | SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0, Self.withAbstractAddress(name, { bind(fd, $0, $1) }) == 0, Glibc.listen(fd, 4) == 0 else {
            log.warning("screenshots: cannot listen on @\(name) (\(String(cString: strerror(errno)))): `kiosk screenshot` will not find this kiosk")
            if fd >= 0 { close(fd) }
            return nil
        }
    }
    deinit { close(fd) }

    /// `body` with the address of abstract socket `name` and its length.
    static func withAbstractAddress(_ name: String, _ body: (UnsafePointer<sockaddr>, socklen_t) -> Int32) -> Int32 {
        var addr = sockaddr_un()
        addr.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(name.utf8.prefix(MemoryLayout.size(ofValue: addr.sun_path) - 1))
        withUnsafeMutableBytes(of: &addr.sun_path) { p in
            p[0] = 0 // abstract: the name follows a zero byte
            for (i, b) in bytes.enumerated() { p[i + 1] = b }
        }
        let length = socklen_t(MemoryLayout<sockaddr_un>.offset(of: \.sun_path)! + 1 + bytes.count)
        return withUnsafePointer(to: &addr) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { body($0, length) } }
    }

    /// The event loop saw a connection: answer each waiting one.
    func accept() {
        // (An accepted socket is blocking on Linux whatever the listener is.)
        while case let conn = Glibc.accept(fd, nil, nil), conn >= 0 {
            _ = fcntl(conn, F_SETFD, FD_CLOEXEC)
            answer(conn)
        }
    }

    private func answer(_ conn: Int32) {
        // struct ucred: pid, uid, gid (Glibc's Swift module does not declare it).
        var cred: (Int32, UInt32, UInt32) = (0, 0, 0)
        var length = socklen_t(MemoryLayout.size(ofValue: cred))
        guard getsockopt(conn, SOL_SOCKET, SO_PEERCRED, &cred, &length) == 0, cred.1 == 0 || cred.1 == getuid() else {
            log.warning("screenshots: refused a request from user \(cred.1) (pid \(cred.0)): only root and the kiosk's user may ask")
            return reply(conn, error: "only root and the kiosk's user may ask for a screenshot")
        }
        var timeout = timeval(tv_sec: 5, tv_usec: 0)
        setsockopt(conn, SOL_SOCKET, SO_SNDTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        guard PictureWork.claim() else { return reply(conn, error: "a picture is being made; ask again in a moment") }
        guard let image = frame() else {
            PictureWork.release()
            return reply(conn, error: "nothing is on screen yet")
        }
        let log = self.log, pid = cred.0
        PictureWork.inBackground {
            defer { PictureWork.release() }
            do {
                let png = try PNG.encode(image, name: "the screenshot")
                if ScreenshotSocket.send(png, to: conn) {
                    log.info("screenshot: \(image.pixelSize.width)x\(image.pixelSize.height) sent to pid \(pid)")
                } else {
                    log.warning("screenshot: pid \(pid) did not take the picture (\(String(cString: strerror(errno))))")
                }
            } catch {
                _ = ScreenshotSocket.send(Array("error: \(error)\n".utf8), to: conn)
            }
            close(conn)
        }
    }

    private func reply(_ conn: Int32, error: String) {
        _ = Self.send(Array("error: \(error)\n".utf8), to: conn)
        close(conn)
    }

    /// Writes all of `bytes` to socket `fd` (blocking, within its send timeout; a peer gone
    /// midway is an error, not a SIGPIPE); false on failure.
    static func send(_ bytes: [UInt8], to fd: Int32) -> Bool {
        writeAll(bytes) { (p: UnsafeRawPointer, n: Int) -> Int in Glibc.send(fd, p, n, Int32(MSG_NOSIGNAL)) }
    }

    /// Writes all of `bytes` through `write` (a send or a write call); false on failure.
    static func writeAll(_ bytes: [UInt8], _ write: (UnsafeRawPointer, Int) -> Int) -> Bool {
        bytes.withUnsafeBytes { (buf: UnsafeRawBufferPointer) -> Bool in
            var off = 0
            while off < buf.count {
                let n = write(buf.baseAddress! + off, buf.count - off)
                if n < 0 { if errno == EINTR { continue }; return false }
                off += n
            }
            return true
        }
    }
}

/// `[metrics] screenshot`: a PNG of the screen kept at `path` for a fleet's dashboard, written
/// atomically (readable by others, like the metrics file) at most every `interval` seconds and
/// only after a frame changed the screen: a kiosk showing the same picture writes nothing and
/// sets no timer. A path that cannot be written is reported once until it works again.
final class ScreenshotFile {
    let path: String
    let interval: Double
    private let scheduler: Scheduler
    private let log: KioskLog
    private let frame: () -> Image?
    private var timer: ScheduledTimer?
    /// When the last picture was taken (the scheduler's clock), nil before the first.
    private var lastTaken: Double?
    private let failing = FailureMemory()

    /// Shared with the writing thread: whether the last write failed (to report once).
    private final class FailureMemory: Sendable {
        private let failed = Atomic<Bool>(false)
        /// Records this write's outcome; true when it is the first failure in a row.
        func record(failed now: Bool) -> Bool { now && !failed.exchange(now, ordering: .relaxed) }
    }

    init(path: String, interval: Double, scheduler: Scheduler, log: KioskLog, frame: @escaping () -> Image?) {
        self.path = path
        self.interval = interval
        self.scheduler = scheduler
        self.log = log
        self.frame = frame
    }

    func stop() { timer?.cancel(); timer = nil }

    /// A frame changed the screen: a picture at the next allowed moment, if none is due.
    func framePresented() {
        guard timer == nil else { return }
        let wait = lastTaken.map { max(0, $0 + interval - scheduler.now) } ?? 0
        // A moment after the change at least: a burst of frames (a scene's transition) ends first.
        timer = scheduler.schedule(after: max(wait, 0.5)) { [weak self] in
            self?.timer = nil
            self?.take()
        }
    }

    private func take() {
        guard PictureWork.claim() else { return framePresented() }
        guard let image = frame() else { PictureWork.release(); return }
        lastTaken = scheduler.now
        let path = self.path, log = self.log, failing = self.failing, interval = self.interval
        PictureWork.inBackground {
            defer { PictureWork.release() }
            do {
                let png = try PNG.encode(image, name: path)
                try AtomicFile.write(png, to: path, mode: 0o644, durable: false)
                _ = failing.record(failed: false)
            } catch {
                if failing.record(failed: true) {
                    log.warning("screenshot: cannot write \(path) (\(error)); the kiosk runs on and tries again after the screen changes, at most every \(Int(interval)) s")
                }
            }
        }
    }
}
