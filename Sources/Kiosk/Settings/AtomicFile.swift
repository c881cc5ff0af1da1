#if canImport(Glibc)
import Glibc
#endif

/// A file written so that a reader sees the old contents or the new, never part of either: a
/// fresh temporary file beside it (mkstemp: created exclusively), the bytes, `mode`, then
/// renamed over it. `durable`: synced to the disk first and the folder after, so it survives a
/// power cut (saved state); the metrics file, rewritten every 15 s, need not wear a panel's SD
/// card for that.
enum AtomicFile {
    struct WriteError: Error, CustomStringConvertible {
        var what: String
        var errno: Int32
        var description: String { "\(what): \(String(cString: strerror(errno)))" }
    }

    static func write(_ bytes: [UInt8], to path: String, mode: mode_t = 0o600, durable: Bool = true) throws(WriteError) {
        let slash = path.lastIndex(of: "/")
        let directory = slash.map { String(path[..<$0]) }.map { $0.isEmpty ? "/" : $0 } ?? "."
        let name = slash.map { String(path[path.index(after: $0)...]) } ?? path
        var template = Array("\(directory)/.\(name).XXXXXX".utf8CString)
        let fd = mkstemp(&template)
        guard fd >= 0 else { throw WriteError(what: "cannot create a temporary file in \(directory)", errno: errno) }
        _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
        let tmp = String(decoding: template.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        var ok = bytes.withUnsafeBytes { buf -> Bool in
            var off = 0
            while off < buf.count {
                let n = Glibc.write(fd, buf.baseAddress! + off, buf.count - off)
                if n < 0 { if errno == EINTR { continue }; return false }
                off += n
            }
            return true
        }
        ok = ok && fchmod(fd, mode) == 0 && (!durable || fsync(fd) == 0)
        close(fd)
        guard ok, rename(tmp, path) == 0 else {
            let e = errno
            unlink(tmp)
            throw WriteError(what: "cannot write \(path)", errno: e)
        }
        guard durable else { return }
        let dfd = open(directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        if dfd >= 0 { fsync(dfd); close(dfd) }
    }
}
