#if canImport(Glibc)
import Glibc
#endif

/// The monotonic clock, in seconds: what frame times, timers and statistics are measured on.
/// Headless code takes a `ManualClock` instead.
public enum MonotonicClock {
    public static func now() -> Double {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        return Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9
    }
}

/// Simulated time for headless renders: snapshots, benchmarks, tests.
public final class ManualClock {
    public var now: Double
    public init(_ start: Double = 0) { now = start }
    public func advance(by seconds: Double) { now += seconds }
}
