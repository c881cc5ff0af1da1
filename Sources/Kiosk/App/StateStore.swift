#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#endif

/// Small JSON files under `$XDG_STATE_HOME/kiosk/` (default `~/.local/state/kiosk/`), written
/// crash-safely: a temp file in the same folder, fsync, rename over the old file, fsync the
/// folder. A power cut leaves either the old file or the new one, never half of one.
public final class StateStore: @unchecked Sendable {
    public let directory: String
    private let report: (String) -> Void

    /// `@unchecked Sendable`: only file-system calls and immutable fields; callers serialize.
    public init(directory: String? = nil, report: @escaping (String) -> Void = { _ in }) {
        self.report = report
        if let directory { self.directory = directory; return }
        let env = { (name: String) -> String? in getenv(name).map { String(cString: $0) }.flatMap { $0.isEmpty ? nil : $0 } }
        if let xdg = env("XDG_STATE_HOME") { self.directory = xdg + "/kiosk" }
        else { self.directory = (env("HOME") ?? "/tmp") + "/.local/state/kiosk" }
    }

    public func path(_ name: String) -> String { "\(directory)/\(name).json" }

    /// The stored value, or nil: silently when there is none (a first run), with one line when
    /// the file cannot be read or decoded (the caller then starts from defaults).
    public func load<T: Decodable>(_ type: T.Type, name: String) -> T? {
        let p = path(name)
        guard let data = readFile(p) else { return nil }
        do {
            return try JSONDecoder().decode(T.self, from: data)
        } catch {
            report("\(p): saved state is damaged (\(Self.describe(error))); \(moveAside(p)); starting fresh")
            return nil
        }
    }

    /// Keeps a damaged file for inspection instead of letting the next save overwrite it.
    /// Also for callers whose decoded value turned out to be out of range.
    @discardableResult
    public func moveAside(_ p: String) -> String {
        let aside = "\(p).corrupt-\(time(nil))"
        return rename(p, aside) == 0 ? "kept as \(aside)" : "could not move it aside (\(String(cString: strerror(errno))))"
    }

    /// Writes `value` atomically; reports (and returns false) instead of throwing, since a kiosk
    /// that cannot save must still run.
    @discardableResult
    public func save<T: Encodable>(_ value: T, name: String) -> Bool {
        let p = path(name)
        do {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys, .prettyPrinted]
            let data = try encoder.encode(value)
            try makeDirectory(directory)
            let tmp = p + ".tmp-\(getpid())"
            let fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
            guard fd >= 0 else { throw StoreError.system("cannot create \(tmp)", errno) }
            var ok = data.withUnsafeBytes { buf -> Bool in
                var off = 0
                while off < buf.count {
                    let n = write(fd, buf.baseAddress! + off, buf.count - off)
                    if n < 0 { if errno == EINTR { continue }; return false }
                    off += n
                }
                return true
            }
            ok = ok && fsync(fd) == 0
            close(fd)
            guard ok, rename(tmp, p) == 0 else {
                let e = errno
                unlink(tmp)
                throw StoreError.system("cannot write \(p)", e)
            }
            let dfd = open(directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
            if dfd >= 0 { fsync(dfd); close(dfd) }
            return true
        } catch {
            report("\(p): cannot save state (\(Self.describe(error)))")
            return false
        }
    }

    enum StoreError: Error, CustomStringConvertible {
        case system(String, Int32)
        var description: String {
            switch self { case let .system(what, e): return "\(what): \(String(cString: strerror(e)))" }
        }
    }

    private static func describe(_ error: Error) -> String {
        if let e = error as? DecodingError {
            switch e {
            case .dataCorrupted(let c): return "not valid JSON: \(c.debugDescription)"
            case .keyNotFound(let k, _): return "missing \(k.stringValue)"
            case .typeMismatch(_, let c), .valueNotFound(_, let c):
                return "wrong value at \(c.codingPath.map(\.stringValue).joined(separator: "."))"
            @unknown default: return "\(e)"
            }
        }
        return "\(error)"
    }

    private func readFile(_ p: String) -> Data? {
        guard let bytes = readSmallFile(p) else {
            if errno != ENOENT { report("\(p): cannot read saved state (\(String(cString: strerror(errno)))); starting fresh") }
            return nil
        }
        return Data(bytes)
    }

    private func makeDirectory(_ d: String) throws {
        var path = ""
        for part in d.split(separator: "/") {
            path += "/" + part
            if mkdir(path, 0o700) != 0 && errno != EEXIST { throw StoreError.system("cannot create \(path)", errno) }
        }
    }
}
