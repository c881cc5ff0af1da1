#if canImport(Glibc)
import Glibc
#endif

/// Reads a small file (settings, saved state) whole. Returns nil with `errno` set when it
/// cannot be opened or read; stops at `limit` bytes, since such files are never large.
func readSmallFile(_ path: String, limit: Int = 4 << 20) -> [UInt8]? {
    let fd = open(path, O_RDONLY | O_CLOEXEC)
    guard fd >= 0 else { return nil }
    defer { close(fd) }
    var bytes: [UInt8] = []
    var chunk = [UInt8](repeating: 0, count: 65536)
    while bytes.count < limit {
        let n = read(fd, &chunk, chunk.count)
        if n < 0 { if errno == EINTR { continue }; return nil }
        if n == 0 { break }
        bytes += chunk[0..<n]
    }
    return bytes
}
