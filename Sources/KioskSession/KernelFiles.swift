#if canImport(Glibc)
import Glibc
#endif

// Reading what the kernel publishes in /proc, /sys and /dev: kiosk-session's one way to list a
// folder and read such a file.

/// A folder's entries, sorted, without "." names; empty when it cannot be read.
func directoryEntries(_ directory: String) -> [String] {
    guard let d = opendir(directory) else { return [] }
    defer { closedir(d) }
    var names: [String] = []
    while let e = readdir(d) {
        let name = withUnsafeBytes(of: e.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
        if !name.hasPrefix(".") { names.append(name) }
    }
    return names.sorted()
}

/// A /proc or /sys file's text, read until the end (they report no size, or a page's).
func readKernelFile(_ path: String) -> String? {
    let fd = open(path, O_RDONLY | O_CLOEXEC)
    guard fd >= 0 else { return nil }
    defer { close(fd) }
    var bytes: [UInt8] = []
    var chunk = [UInt8](repeating: 0, count: 4096)
    while case let n = read(fd, &chunk, chunk.count), n > 0 { bytes += chunk.prefix(n) }
    return String(decoding: bytes, as: UTF8.self)
}
