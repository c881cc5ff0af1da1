import ArgumentParser
#if canImport(Glibc)
import Glibc
#endif
import KioskCore

extension KioskCommand {
    /// `kiosk screenshot`: what a running kiosk shows, as a PNG, asked of the kiosk itself over
    /// its socket (`ScreenshotSocket`), so it works under every compositor and upright as a
    /// visitor sees the panel. For root and the kiosk's own user.
    struct Screenshot: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "screenshot",
            abstract: "Write what the running kiosk shows as a PNG (for root and the kiosk's user).")
        @Argument(help: "Where to write it; - for standard output. (default: kiosk-screenshot-DATE-TIME.png here)")
        var file: String?
        @Option(help: "The kiosk to ask, by process id, when more than one runs.")
        var pid: Int32?

        func run() throws {
            let log = makeLogger(verbose: false)
            let running = Self.runningKiosks()
            let chosen: Int32
            if let pid {
                guard running.contains(pid) else { throw fail(log, "no kiosk with pid \(pid) is answering (running: \(Self.list(running)))") }
                chosen = pid
            } else {
                guard let only = running.first else { throw fail(log, "no running kiosk was found (none listens on @\(ScreenshotSocket.namePrefix)PID)") }
                guard running.count == 1 else { throw fail(log, "\(running.count) kiosks run (pids \(Self.list(running))): say which with --pid") }
                chosen = only
            }
            let bytes: [UInt8]
            switch Self.ask(pid: chosen) {
            case .success(let b): bytes = b
            case .failure(let why): throw fail(log, "kiosk \(chosen): \(why.text)")
            }
            let signature: [UInt8] = [0x89, 0x50, 0x4e, 0x47]
            guard bytes.starts(with: signature) else {
                let lines = String(decoding: bytes, as: UTF8.self).split(separator: "\n")
                let text: String = lines.isEmpty ? "" : String(lines[0])
                throw fail(log, "kiosk \(chosen): \(text.isEmpty ? "answered nothing (it may have stopped)" : text)")
            }
            let path = file ?? Self.defaultName()
            if path == "-" {
                guard ScreenshotSocket.writeAll(bytes, { (p: UnsafeRawPointer, n: Int) -> Int in Glibc.write(1, p, n) }) else {
                    throw fail(log, "cannot write to standard output: \(String(cString: strerror(errno)))")
                }
                return
            }
            do { try AtomicFile.write(bytes, to: path, mode: 0o644, durable: false) } catch { throw fail(log, "\(error)") }
            print(path)
        }

        struct Failure: Error { let text: String }

        /// The pids of kiosks listening for screenshot requests, from the kernel's table of
        /// Unix sockets (its last column is the path; abstract names start with "@").
        static func runningKiosks(table: String? = nil) -> [Int32] {
            let bytes: [UInt8] = readSmallFile("/proc/net/unix", limit: 64 << 20) ?? []
            let text: String = table ?? String(decoding: bytes, as: UTF8.self)
            let prefix = "@" + ScreenshotSocket.namePrefix
            var pids = Set<Int32>()
            for line in text.split(separator: "\n") {
                guard let path = line.split(separator: " ").last, path.hasPrefix(prefix),
                      let pid = Int32(path.dropFirst(prefix.count)) else { continue }
                pids.insert(pid)
            }
            return pids.sorted()
        }

        static func list(_ pids: [Int32]) -> String { pids.isEmpty ? "none" : pids.map { (p: Int32) -> String in "\(p)" }.joined(separator: ", ") }

        static func defaultName() -> String {
            var t = time(nil), parts = tm()
            localtime_r(&t, &parts)
            var buf = [CChar](repeating: 0, count: 32)
            strftime(&buf, buf.count, "%Y%m%d-%H%M%S", &parts)
            return "kiosk-screenshot-\(String(decoding: buf.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)).png"
        }

        /// Everything kiosk `pid` answers, waiting at most 10 s.
        static func ask(pid: Int32) -> Result<[UInt8], Failure> {
            let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue | SOCK_CLOEXEC.rawValue), 0)
            guard fd >= 0 else { return .failure(Failure(text: "cannot make a socket: \(String(cString: strerror(errno)))")) }
            defer { close(fd) }
            var timeout = timeval(tv_sec: 10, tv_usec: 0)
            setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
            guard ScreenshotSocket.withAbstractAddress(ScreenshotSocket.namePrefix + String(pid), { connect(fd, $0, $1) }) == 0 else {
                return .failure(Failure(text: "cannot connect: \(String(cString: strerror(errno)))"))
            }
            var out: [UInt8] = []
            var chunk = [UInt8](repeating: 0, count: 1 << 16)
            while true {
                let n = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
                if n == 0 { return .success(out) }
                if n < 0 {
                    if errno == EINTR { continue }
                    let why = errno == EAGAIN ? "no answer within 10 s" : String(cString: strerror(errno))
                    return .failure(Failure(text: why))
                }
                out.append(contentsOf: chunk[0..<n])
            }
        }
    }
}
