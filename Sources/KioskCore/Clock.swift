#if canImport(Glibc)
import Glibc
#endif

/// The monotonic clock, in seconds: what frame times, timers and statistics are measured on.
/// Headless code takes a `ManualClock` instead.
public enum MonotonicClock {
    public static func now() -> Double { Double(nanoseconds()) / 1e9 }
    public static func nanoseconds() -> UInt64 {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        return UInt64(ts.tv_sec) * 1_000_000_000 + UInt64(ts.tv_nsec)
    }
}

/// Simulated time for headless renders: snapshots, benchmarks, tests.
public final class ManualClock {
    public var now: Double
    public init(_ start: Double = 0) { now = start }
    public func advance(by seconds: Double) { now += seconds }
}
