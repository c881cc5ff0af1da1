#if canImport(Glibc)
import Glibc
#endif

// What this process uses, from /proc/self/status: the SIGUSR1 line, the fleet metrics, the
// benchmarks and the soak all read it here.

/// Resident set size of this process in KiB (VmRSS).
func currentRSSKiB() -> Int { procStatusKiB("VmRSS:") }

/// Peak resident set size of this process in KiB (VmHWM from /proc/self/status).
func peakRSSKiB() -> Int { procStatusKiB("VmHWM:") }

/// A `field:` of /proc/self/status in KiB (0 if it cannot be read).
func procStatusKiB(_ field: String) -> Int {
    guard let f = fopen("/proc/self/status", "r") else { return 0 }
    defer { fclose(f) }
    var line = [CChar](repeating: 0, count: 256)
    while fgets(&line, 256, f) != nil {
        let s = String(decoding: line.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        if s.hasPrefix(field) {
            return Int(s.split(separator: " ").dropFirst().first.map(String.init) ?? "") ?? 0
        }
    }
    return 0
}
