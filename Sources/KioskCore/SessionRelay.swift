/// What Kiosk and kiosk-session say to each other over the session's notification relay, in one
/// place: the relay's abstract socket name, and the session's own field, `KIOSK_SCREEN=on|off`,
/// which asks it to turn the screen where the compositor cannot (never passed to systemd).
package enum SessionRelay {
    /// The relay is `@kiosk-session-PID`.
    package static let namePrefix = "kiosk-session-"

    package static func screenField(on: Bool) -> String { "KIOSK_SCREEN=\(on ? "on" : "off")" }

    /// The wish a field states, or nil when the line is not the screen field.
    package static func screenWish(_ line: Substring) -> Bool? {
        line == screenField(on: true) ? true : line == screenField(on: false) ? false : nil
    }
}
