import Testing
@testable import KioskPlatform

@Suite struct CompositorClockTests {
    @Test func framesAreSpacedByTheCompositorsMillisecondsNotByWhenTheyWereHandled() {
        var c = CompositorClock(slack: CompositorClock.frameSlack)
        // The compositor's clock has another base (weston: CLOCK_MONOTONIC_RAW) and wraps.
        let base: UInt32 = 0xffff_fff0
        #expect(c.time(milliseconds: base, handledAt: 100.003) == 100.003)
        // Handled 1–4 ms late each time, 16 ms apart by the compositor: exactly 16 ms apart,
        // across the 32-bit wrap.
        let t1 = c.time(milliseconds: base &+ 16, handledAt: 100.021)
        let t2 = c.time(milliseconds: base &+ 32, handledAt: 100.036)
        #expect(abs(t1 - 100.019) < 1e-9 && abs(t2 - 100.035) < 1e-9)
    }

    @Test func itNeverRunsAheadOfTheClockNorFallsFarBehind() {
        var c = CompositorClock(slack: CompositorClock.frameSlack)
        _ = c.time(milliseconds: 1000, handledAt: 50.010)  // handled 10 ms late: a poor anchor
        // Handled promptly: the mapping would be in the future, so this one anchors.
        #expect(c.time(milliseconds: 1016, handledAt: 50.020) == 50.020)
        #expect(abs(c.time(milliseconds: 1032, handledAt: 50.037) - 50.036) < 1e-9)
        // A base drifting away (or a stall): never more than the slack behind.
        let late = c.time(milliseconds: 1048, handledAt: 50.2)
        #expect(late == 50.2)
    }

    @Test func inputHandledLateKeepsTheTimeItHappened() {
        var c = CompositorClock(slack: CompositorClock.inputSlack)
        #expect(c.time(milliseconds: 7000, handledAt: 20.001) == 20.001)
        // A finger down after 3 s of nothing, handled 300 ms late (a long frame): still 3 s on.
        #expect(abs(c.time(milliseconds: 10_000, handledAt: 23.301) - 23.001) < 1e-9)
        // Its strokes 10 ms apart by the compositor, whenever the loop read them.
        #expect(abs(c.time(milliseconds: 10_010, handledAt: 23.302) - 23.011) < 1e-9)
    }
}
