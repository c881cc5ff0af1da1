#if canImport(Glibc)
import Glibc
#endif
import KioskCore

/// Watches files, and folders of files, for changes with inotify and calls `onChange` once they
/// settle: an editor's save, a configuration tool's atomic replace (write a temp file, rename it
/// over), a file appearing or being removed, a folder copied in whole. The folders holding the
/// files are watched, not the files, because a replaced file is a new inode a file watch would
/// never see; a watched folder is watched itself (every name in it) and in its parent (its name).
///
/// Events are coalesced for `settle` seconds and then the files' identity (inode, size, change
/// time) is compared with the last one seen, so a burst of writes is one reload and a touch of
/// an unrelated file in the same folder is none.
final class FileWatcher {
    let paths: [String]
    /// Folders whose every file counts (an operator's content: not their subfolders).
    let folders: [String]
    private let fd: Int32
    private var names: [Int32: Set<String>] = [:] // watch descriptor → file names in that folder
    /// Watch descriptors of the folders themselves: any name in them counts.
    private var wholeFolders: Set<Int32> = []
    private let scheduler: Scheduler
    private let settle: Double
    private var pending: ScheduledTimer?
    private var lastSeen: [[FileIdentity?]]
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

    private static let mask = UInt32(IN_CLOSE_WRITE | IN_MOVED_TO | IN_MOVED_FROM | IN_CREATE | IN_DELETE | IN_ATTRIB)

    /// Watches `paths` and `folders` (a place that cannot be watched is skipped with a `report`);
    /// nil when inotify is unavailable or nothing can be watched. `register` hands the
    /// descriptor to the event loop.
    init?(paths: [String], folders: [String] = [], scheduler: Scheduler, settle: Double = 0.3, report: (String) -> Void,
          register: (Int32, @escaping () -> Void) -> Void, onChange: @escaping () -> Void) {
        let fd = inotify_init1(Int32(IN_NONBLOCK | IN_CLOEXEC))
        guard fd >= 0 else { report("cannot watch \((paths + folders).joined(separator: ", ")) (inotify: \(String(cString: strerror(errno)))): only SIGHUP reloads"); return nil }
        self.fd = fd
        self.paths = paths
        self.folders = folders
        self.scheduler = scheduler
        self.settle = settle
        self.onChange = onChange
        lastSeen = []
        for p in paths + folders {
            let (dir, name) = FileWatcher.split(p)
            let wd = inotify_add_watch(fd, dir, Self.mask)
            if wd < 0 { report("not watching \(dir) for changes: \(String(cString: strerror(errno)))"); continue }
            names[wd, default: []].insert(name)
        }
        watchFolders()
        lastSeen = identities()
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
                if names[wd]?.contains(name) == true || wholeFolders.contains(wd) { relevant = true }
                off += header + len
            }
        }
        guard relevant else { return }
        pending?.cancel()
        pending = scheduler.schedule(after: settle) { [weak self] in self?.settled() }
    }

    private func settled() {
        pending = nil
        watchFolders() // a folder that came (or came back) since
        let now = identities()
        guard now != lastSeen else { return }
        lastSeen = now
        onChange()
    }

    /// Each watched folder itself, where it exists (adding a watch again is harmless).
    private func watchFolders() {
        for f in folders {
            let wd = inotify_add_watch(fd, f, Self.mask | UInt32(IN_ONLYDIR))
            if wd >= 0 { wholeFolders.insert(wd) }
        }
    }

    /// Each file's identity, and each folder's files' (in name order).
    private func identities() -> [[FileIdentity?]] {
        paths.map { [FileIdentity(path: $0)] } + folders.map { folder in
            FileWatcher.entries(of: folder).map { FileIdentity(path: folder + "/" + $0) }
        }
    }

    /// The names in `folder`, sorted; none where it cannot be read.
    static func entries(of folder: String) -> [String] {
        guard let dir = opendir(folder) else { return [] }
        defer { closedir(dir) }
        var out: [String] = []
        while let e = readdir(dir) {
            let name = withUnsafeBytes(of: e.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            if name != "." && name != ".." { out.append(name) }
        }
        return out.sorted()
    }
}
