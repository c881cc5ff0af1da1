/// The compositor's timestamps — frame callbacks (`wl_callback.done`) and input events
/// (`wl_touch`, `wl_pointer`, `wl_keyboard` `time`) — on the kiosk's monotonic clock, so
/// animations step by the compositor's frame spacing and a gesture is timed by when its
/// events happened rather than by when the event loop got round to them.
///
/// A timestamp is milliseconds, 32 bits, on a base the protocol leaves open: weston stamps
/// frames with its presentation clock (CLOCK_MONOTONIC_RAW where it has one, which drifts from
/// CLOCK_MONOTONIC by up to 0.5 ms a second) and input with libinput's, wlroots both with
/// CLOCK_MONOTONIC. So only the spacing is trusted: a timestamp maps to the time of an anchor
/// event plus the milliseconds since it (counted modulo 2³², so the 49-day wrap is nothing).
/// The anchor is the time the event was handled; whenever a mapped time would lie in the
/// future (the anchor came late) or more than `slack` behind (a drifting base, a stall), the
/// event at hand becomes the anchor. So the mapping never runs ahead of the clock and
/// converges on the earliest-handled event.
package struct CompositorClock {
    private var anchor: (seconds: Double, milliseconds: UInt32)?
    /// How far behind the time it was handled an event's mapped time may be.
    package let slack: Double

    /// Frame callbacks: one handled much later says nothing about the frame to draw.
    package static let frameSlack = 0.05
    /// Input: a busy loop (a long frame, a settings reload) may handle events that late and
    /// still time them by when they happened.
    package static let inputSlack = 1.0

    package init(slack: Double) { self.slack = slack }

    /// The time of the event that carried `milliseconds`, handled at `now`.
    package mutating func time(milliseconds: UInt32, handledAt now: Double) -> Double {
        if let a = anchor {
            let t = a.seconds + Double(Int32(bitPattern: milliseconds &- a.milliseconds)) / 1000
            if t <= now && now - t <= slack { return t }
        }
        anchor = (now, milliseconds)
        return now
    }
}
