/// Frame times from the compositor's frame callbacks (`wl_callback.done`), on the kiosk's
/// monotonic clock, so animations step by the compositor's own frame spacing rather than by
/// when the event loop got round to drawing.
///
/// The callback's timestamp is milliseconds, 32 bits, on a base the protocol leaves open:
/// weston takes its presentation clock (CLOCK_MONOTONIC_RAW where it has one, which drifts from
/// CLOCK_MONOTONIC by up to 0.5 ms a second), wlroots CLOCK_MONOTONIC. So only the spacing is
/// trusted: a timestamp maps to the time of an anchor callback plus the milliseconds since it
/// (counted modulo 2³², so the 49-day wrap is nothing). The anchor is the time the callback
/// was handled; whenever a mapped time would lie in the future (the anchor came late) or more
/// than `slack` behind (a drifting base, a stall), the callback at hand becomes the anchor. So
/// the mapping never runs ahead of the clock and converges on the earliest-handled callback.
package struct FrameClock {
    private var anchor: (seconds: Double, milliseconds: UInt32)?
    package static let slack = 0.05

    package init() {}

    /// The time of the frame whose callback carried `milliseconds`, handled at `now`.
    package mutating func time(milliseconds: UInt32, handledAt now: Double) -> Double {
        if let a = anchor {
            let t = a.seconds + Double(Int32(bitPattern: milliseconds &- a.milliseconds)) / 1000
            if t <= now && now - t <= Self.slack { return t }
        }
        anchor = (now, milliseconds)
        return now
    }
}
