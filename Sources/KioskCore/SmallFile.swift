#if canImport(Glibc)
import Glibc
#endif

/// Why a small file (settings, saved state, a theme image) was not read, in an operator's words.
package enum FileProblem: Error, Equatable, CustomStringConvertible {
    case cannotOpen(Int32)
    case notRegular(String)
    case tooLarge(size: Int, limit: Int)
    case cannotRead(Int32)

    package var description: String {
        switch self {
        case .cannotOpen(let e): return "cannot read: \(String(cString: strerror(e)))"
        case .notRegular(let kind): return "not a regular file (\(kind)); only regular files are read"
        case .tooLarge(let size, let limit): return "the file is \(FileProblem.amount(size)); at most \(FileProblem.amount(limit)) is read"
        case .cannotRead(let e): return "cannot read: \(String(cString: strerror(e)))"
        }
    }

    static func amount(_ bytes: Int) -> String { bytes >= 1 << 20 ? "\(bytes >> 20) MiB" : bytes >= 1024 ? "\(bytes >> 10) KiB" : "\(bytes) bytes" }
}

/// Reads a small regular file whole, never blocking and never following what is not a file:
/// the open does not wait (a FIFO or device would hang the kiosk's only thread), the opened
/// object must be a regular file, and its size is checked against `limit` before reading.
/// `followSymlinks: false` refuses a symbolic link at `path` itself (saved state: a link planted
/// there must not redirect reads or writes).
package func readRegularFile(_ path: String, limit: Int, followSymlinks: Bool = true) -> Result<[UInt8], FileProblem> {
    let fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY | (followSymlinks ? 0 : O_NOFOLLOW))
    guard fd >= 0 else {
        return .failure(errno == ELOOP && !followSymlinks ? .notRegular("a symbolic link") : .cannotOpen(errno))
    }
    defer { close(fd) }
    var st = stat()
    guard fstat(fd, &st) == 0 else { return .failure(.cannotRead(errno)) }
    let type = st.st_mode & S_IFMT
    guard type == S_IFREG else {
        let kind = [S_IFIFO: "a FIFO", S_IFCHR: "a character device", S_IFBLK: "a block device", S_IFDIR: "a folder",
                    S_IFSOCK: "a socket"][type] ?? "not a file"
        return .failure(.notRegular(kind))
    }
    guard Int(st.st_size) <= limit else { return .failure(.tooLarge(size: Int(st.st_size), limit: limit)) }
    var bytes: [UInt8] = []
    bytes.reserveCapacity(Int(st.st_size))
    var chunk = [UInt8](repeating: 0, count: 65536)
    while true {
        let n = read(fd, &chunk, chunk.count)
        if n < 0 { if errno == EINTR { continue }; return .failure(.cannotRead(errno)) }
        if n == 0 { break }
        bytes += chunk[0..<n]
        // The file may have grown since fstat.
        if bytes.count > limit { return .failure(.tooLarge(size: bytes.count, limit: limit)) }
    }
    return .success(bytes)
}

/// Reads a small file (saved state) whole: `readRegularFile` with nil on any problem, `errno`
/// set where one applies.
package func readSmallFile(_ path: String, limit: Int = 4 << 20) -> [UInt8]? {
    try? readRegularFile(path, limit: limit).get()
}
