#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#endif
import KioskCore

/// Small JSON files under `$XDG_STATE_HOME/kiosk/` (default `~/.local/state/kiosk/`), written
/// crash-safely: a new temporary file with an unpredictable name in the same folder (created
/// exclusively, so nothing planted there is written through), fsync, rename over the old file,
/// fsync the folder. A power cut leaves either the old file or the new one, never half of one.
/// Read defensively: only a regular file, not a link, at most `maxBytes`, never a blocking open.
public final class StateStore: SceneStore, @unchecked Sendable {
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
    /// Whether something is saved under `name` (whatever it holds).
    public func exists(_ name: String) -> Bool { access(path(name), F_OK) == 0 }
    /// Saved state is a few hundred bytes; anything much larger is not ours.
    public static let maxBytes = 1 << 20

    /// At start: removes temporary files an interrupted save left (a `kill -9` or power cut
    /// between create and rename), and says once if the folder is not safe to trust (another
    /// user's, or writable by others, who could plant files the kiosk would read).
    public func prepare() {
        var st = stat()
        guard lstat(directory, &st) == 0 else { return } // made on the first save
        if st.st_mode & S_IFMT == S_IFLNK {
            report("\(directory): the state folder is a symbolic link; saved state is read through it")
        } else if st.st_uid != geteuid() {
            report("\(directory): the state folder belongs to user \(st.st_uid), not to the kiosk's user \(geteuid()); others could change what the kiosk restores")
        } else if st.st_mode & 0o022 != 0 {
            report("\(directory): the state folder can be written by others (mode \(String(st.st_mode & 0o777, radix: 8))); they could change what the kiosk restores")
        }
        guard let dir = opendir(directory) else { return }
        defer { closedir(dir) }
        var stale: [String] = []
        while let e = readdir(dir) {
            let name = withUnsafeBytes(of: e.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            if StateStore.isTemporary(name) { stale.append(name) }
        }
        for name in stale { unlink("\(directory)/\(name)") }
        if !stale.isEmpty { report("\(directory): removed \(stale.count) temporary file(s) an interrupted save left") }
    }

    /// `.NAME.json.XXXXXX` (ours) or `NAME.json.tmp-PID` (older kiosks).
    static func isTemporary(_ name: String) -> Bool {
        let parts = name.split(separator: ".", omittingEmptySubsequences: false)
        // ".", NAME, "json", XXXXXX
        if parts.count == 4, parts[0].isEmpty, !parts[1].isEmpty, parts[2] == "json", parts[3].count == 6 { return true }
        // NAME, "json", "tmp-PID"
        if parts.count == 3, parts[1] == "json", parts[2].hasPrefix("tmp-"), parts[2].count > 4,
           parts[2].dropFirst(4).allSatisfy(\.isNumber) { return true }
        return false
    }

    /// The stored value, or nil: silently when there is none (a first run), with one line when
    /// the file cannot be read or decoded (the caller then starts from defaults).
    public func load<T: Decodable>(_ type: T.Type, name: String) -> T? {
        let p = path(name)
        guard let data = readFile(p) else { return nil }
        switch StateStore.decode(T.self, from: data) {
        case .success(let v): return v
        case .failure(let why):
            report("\(p): saved state is damaged (\(why)); \(moveAside(p)); starting fresh")
            return nil
        }
    }

    /// Saved bytes → a value, or why not (one phrase). Never traps, whatever the bytes.
    static func decode<T: Decodable>(_ type: T.Type, from data: Data) -> Result<T, StoreError> {
        do { return .success(try JSONDecoder().decode(T.self, from: data)) } catch {
            return .failure(.damaged(describe(error)))
        }
    }

    /// Keeps a damaged file for inspection instead of letting the next save overwrite it.
    /// Also for callers whose decoded value turned out to be out of range.
    @discardableResult
    public func moveAside(_ p: String) -> String {
        let aside = "\(p).corrupt-\(time(nil))"
        return rename(p, aside) == 0 ? "kept as \(aside)" : "could not move it aside (\(String(cString: strerror(errno))))"
    }

    /// Saves that failed since the start (for the fleet metrics).
    private(set) var saveFailures = 0

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
            try AtomicFile.write(Array(data), to: p)
            return true
        } catch {
            saveFailures += 1
            report("\(p): cannot save state (\(Self.describe(error)))")
            return false
        }
    }

    enum StoreError: Error, CustomStringConvertible {
        case system(String, Int32)
        case damaged(String)
        var description: String {
            switch self {
            case let .system(what, e): return "\(what): \(String(cString: strerror(e)))"
            case let .damaged(why): return why
            }
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
        switch readRegularFile(p, limit: StateStore.maxBytes, followSymlinks: false) {
        case .success(let bytes):
            return Data(bytes)
        case .failure(.cannotOpen(ENOENT)):
            return nil
        case .failure(let why):
            // Not ours (a link, a FIFO, something huge): kept aside, and the next save writes a
            // new file in its place rather than through it.
            switch why {
            case .notRegular, .tooLarge: report("\(p): \(why); \(moveAside(p)); starting fresh")
            default: report("\(p): \(why); starting fresh")
            }
            return nil
        }
    }

    private func makeDirectory(_ d: String) throws {
        var path = ""
        for part in d.split(separator: "/") {
            path += "/" + part
            if mkdir(path, 0o700) != 0 && errno != EEXIST { throw StoreError.system("cannot create \(path)", errno) }
        }
    }
}
