/// The environment the kiosk's user starts with, built as login(1) builds one: from the
/// account, plus only the variables of root's environment that are meant for the session
/// (locale, time zone, terminal, what the unit and an operator's `Environment=` set for the
/// compositor and Kiosk). Anything else root's process happens to carry stays with root.
enum UserEnvironment {
    /// Passed on by name.
    static let names: Set = [
        "TERM", "LANG", "LANGUAGE", "TZ", "PATH",
        // systemd's, for the programs of the unit: the journal stream Kiosk writes to (its
        // lines then carry priorities) and the watchdog interval Kiosk pings within.
        "JOURNAL_STREAM", "WATCHDOG_USEC", "INVOCATION_ID",
    ]
    /// Passed on by prefix: the locale's parts, the XDG folders and session type, and the
    /// compositor's, seat's, cursor's and Kiosk's own settings an operator may set.
    static let prefixes = ["LC_", "XDG_", "WLR_", "WESTON_", "LIBSEAT_", "SEATD_", "XCURSOR_", "KIOSK_"]
    /// login(1)'s PATH for an ordinary user, when the unit gives none.
    static let defaultPath = "/usr/local/bin:/usr/bin:/bin"

    static func allowed(_ name: String) -> Bool {
        names.contains(name) || prefixes.contains { name.hasPrefix($0) && name.count > $0.count }
    }

    /// `inherited` filtered, then the account's HOME, USER, LOGNAME and SHELL.
    static func forUser(_ inherited: [String: String], home: String, user: String, shell: String) -> [String: String] {
        var env = inherited.filter { allowed($0.key) }
        env["PATH"] = env["PATH"] ?? defaultPath
        env["HOME"] = home
        env["USER"] = user
        env["LOGNAME"] = user
        env["SHELL"] = shell
        return env
    }
}
