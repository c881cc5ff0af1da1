#if canImport(Glibc)
import Glibc
#endif
import KioskCore

/// Watches files for changes with inotify and calls `onChange` once they settle: an editor's
/// save, a configuration tool's atomic replace (write a temp file, rename it over), the file
/// appearing or being removed. The folders are watched, not the files, because a replaced file
/// is a new inode a file watch would never see.
///
/// Events are coalesced for `settle` seconds and then the files' identity (inode, size, change
/// time) is compared with the last one seen, so a burst of writes is one reload and a touch of
/// an unrelated file in the same folder is none.
final class FileWatcher {
    let paths: [String]
    private let fd: Int32
    private var names: [Int32: Set<String>] = [:] // watch descriptor → file names in that folder
    private let scheduler: Scheduler
    private let settle: Double
    private var pending: ScheduledTimer?
    private var lastSeen: [FileIdentity?]
    private let onChange: () -> Void

    struct FileIdentity: Equatable {
        var inode: UInt64, size: Int64, changeSeconds: Int, changeNanoseconds: Int
        init?(path: String) {
            var st = stat()
            guard stat(path, &st) == 0 else { return nil }
            inode = UInt64(st.st_ino); size = Int64(st.st_size)
            changeSeconds = st.st_ctim.tv_sec; changeNanoseconds = st.st_ctim.tv_nsec
        }
    }

    /// Watches `paths` (folders that do not exist are skipped with a `report`); nil when
    /// inotify is unavailable. `register` hands the descriptor to the event loop.
    init?(paths: [String], scheduler: Scheduler, settle: Double = 0.3, report: (String) -> Void,
          register: (Int32, @escaping () -> Void) -> Void, onChange: @escaping () -> Void) {
        let fd = inotify_init1(Int32(IN_NONBLOCK | IN_CLOEXEC))
        guard fd >= 0 else { report("cannot watch the settings file (inotify: \(String(cString: strerror(errno)))): only SIGHUP reloads it"); return nil }
        self.fd = fd
        self.paths = paths
        self.scheduler = scheduler
        self.settle = settle
        self.onChange = onChange
        lastSeen = paths.map { FileIdentity(path: $0) }
        let mask = UInt32(IN_CLOSE_WRITE | IN_MOVED_TO | IN_MOVED_FROM | IN_CREATE | IN_DELETE | IN_ATTRIB)
        for p in paths {
            let (dir, name) = FileWatcher.split(p)
            let wd = inotify_add_watch(fd, dir, mask)
            if wd < 0 { report("not watching \(dir) for settings changes: \(String(cString: strerror(errno)))"); continue }
            names[wd, default: []].insert(name)
        }
        // Failing now, with every property set, still runs deinit, which closes the descriptor:
        // closing it here too closed whatever the next open got (fontconfig's, on the scene
        // thread, which then failed with EBADF).
        if names.isEmpty { return nil }
        register(fd) { [weak self] in self?.readEvents() }
    }
    deinit { close(fd) }

    static func split(_ path: String) -> (dir: String, name: String) {
        guard let slash = path.lastIndex(of: "/") else { return (".", path) }
        let dir = String(path[..<slash])
        return (dir.isEmpty ? "/" : dir, String(path[path.index(after: slash)...]))
    }

    /// Drains the inotify queue; a change to a watched name (re)starts the settle timer.
    func readEvents() {
        let size = 4096
        let buf = UnsafeMutableRawPointer.allocate(byteCount: size, alignment: 8)
        defer { buf.deallocate() }
        var relevant = false
        while true {
            let n = read(fd, buf, size)
            if n <= 0 { break }
            var off = 0
            let header = MemoryLayout<inotify_event>.size
            while off + header <= n {
                let wd = buf.load(fromByteOffset: off, as: Int32.self)
                let len = Int(buf.load(fromByteOffset: off + 12, as: UInt32.self))
                var name = ""
                if len > 0 {
                    let p = (buf + off + header).assumingMemoryBound(to: CChar.self)
                    name = String(cString: p)
                }
                if names[wd]?.contains(name) == true { relevant = true }
                off += header + len
            }
        }
        guard relevant else { return }
        pending?.cancel()
        pending = scheduler.schedule(after: settle) { [weak self] in self?.settled() }
    }

    private func settled() {
        pending = nil
        let now = paths.map { FileIdentity(path: $0) }
        guard now != lastSeen else { return }
        lastSeen = now
        onChange()
    }
}
