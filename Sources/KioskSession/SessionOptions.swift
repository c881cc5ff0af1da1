/// kiosk-session's command line. Its own few options are read here; every other word goes to
/// the compositor (`kiosk-session --compositor cage -r` turns cage's output).
struct SessionOptions: Equatable {
    enum KeysAction: Equatable { case lock, unlock }

    var compositor: Compositor?
    var user = "kiosk"
    var tty = "tty1"
    /// A PAM session for the compositor: weston's default is "kiosk" (Debian 12's weston needs
    /// logind), cage's none; an operator may give one to cage too.
    var pamService: String?
    /// The Kiosk executable the compositor runs.
    var kiosk = "/usr/bin/kiosk"
    var compositorOptions: [String] = []
    /// `--screen on|off`: turn the screen on or off outside Wayland, then exit (ScreenPower).
    var screen: Bool?
    /// The I²C and CEC devices `--screen` uses instead of those it finds.
    var ddcDevices: [String]?
    var cecDevices: [String]?
    /// What the supervisor runs, with "on" or "off", when Kiosk asks for the screen
    /// (default: systemctl start kiosk-screen@on|off.service).
    var screenHelper: String?
    /// `--lock-keys`, `--unlock-keys` (kiosk-keys.service) and `--audit` (`kiosk audit`).
    var keys: KeysAction?
    var audit = false
    /// The settings file `--lock-keys` reads `[admin] maintenance_keys` from.
    var settings = "/etc/kiosk/kiosk.toml"
    var help = false
    var version = false

    static let usage = """
        Usage: kiosk-session [--compositor auto|cage|weston] [--user NAME] [--tty ttyN]
                             [--pam-service NAME] [--kiosk PATH] [COMPOSITOR OPTIONS…]

        The main process of kiosk.service, started as root: picks the compositor for this panel's
        display (cage, or weston where cage cannot drive it), runs it with Kiosk in it as --user
        (default kiosk), passes Kiosk's READY=1, STATUS= and watchdog pings on to systemd and stops
        every process it started when it is stopped. Options it does not know go to the compositor.
          --compositor  cage, weston, or auto (the default)
          --user        the user the compositor and Kiosk run as (when started as root)
          --tty         the terminal of weston's logind session, a ttyN name (default tty1)
          --pam-service open a PAM session with this service first (weston: kiosk)
          --kiosk       the Kiosk executable (default /usr/bin/kiosk)
          --screen-helper  run this with "on" or "off" when Kiosk asks to turn the screen on
                        or off and the compositor cannot (default, as root: systemctl
                        start kiosk-screen@on|off.service; as another user, nothing)

        kiosk-session --screen on|off [--ddc /dev/i2c-N]… [--cec /dev/cecN]…
        turns the screen on or off by every means the panel has: the backlight, a monitor's
        DDC/CI, a TV's HDMI-CEC (kiosk-screen@.service runs it). --ddc and --cec name the devices
        to use instead of those found (the connected displays' DDC buses, every /dev/cec*).

        kiosk-session --lock-keys [--settings FILE] | --unlock-keys
        takes from a keyboard at the panel what reaches the system (SysRq, the power, suspend,
        hibernate and reboot keys, Ctrl+Alt+Del, other consoles, the console's text) and holds
        logind's key inhibitor; --unlock-keys gives it all back as it was (kiosk-keys.service
        runs both). [admin] maintenance_keys = true in FILE (default /etc/kiosk/kiosk.toml)
        leaves the keys as they are.

        kiosk-session --audit
        one line per way a person at the panel could get past the kiosk, OK or RISK with the
        fix; exits 1 when anything is at risk (`kiosk audit` runs it).
        """

    /// The options, or a one-line reason the command line is wrong.
    static func parse(_ words: [String]) -> Result<SessionOptions, SessionError> {
        var o = SessionOptions()
        var rest = words[...]
        while let word = rest.popFirst() {
            let (name, attached) = split(word)
            guard valued.contains(name) else {
                switch word {
                case "--help", "-h": o.help = true
                case "--version": o.version = true
                case "--lock-keys": o.keys = .lock
                case "--unlock-keys": o.keys = .unlock
                case "--audit": o.audit = true
                default: o.compositorOptions.append(word)
                }
                continue
            }
            guard let value = attached ?? rest.popFirst() else { return .failure(.usage("\(name) needs a value")) }
            switch name {
            case "--compositor":
                if value == "auto" { o.compositor = nil } else if let c = Compositor(rawValue: value) { o.compositor = c } else {
                    return .failure(.usage("--compositor \(value): expected auto, cage or weston"))
                }
            case "--user": o.user = value
            case "--tty":
                guard isTerminalName(value) else { return .failure(.usage("--tty \(value): expected a virtual terminal's name, tty1 to tty63")) }
                o.tty = value
            case "--pam-service": o.pamService = value
            case "--screen":
                guard value == "on" || value == "off" else { return .failure(.usage("--screen \(value): expected on or off")) }
                o.screen = value == "on"
            case "--ddc": o.ddcDevices = (o.ddcDevices ?? []) + [value]
            case "--cec": o.cecDevices = (o.cecDevices ?? []) + [value]
            case "--screen-helper": o.screenHelper = value
            case "--settings": o.settings = value
            default: o.kiosk = value
            }
        }
        return .success(o)
    }

    private static let valued: Set = ["--compositor", "--user", "--tty", "--pam-service", "--kiosk",
                                      "--screen", "--ddc", "--cec", "--screen-helper", "--settings"]

    private static func split(_ word: String) -> (String, String?) {
        guard word.hasPrefix("--"), let eq = word.firstIndex(of: "=") else { return (word, nil) }
        return (String(word[..<eq]), String(word[word.index(after: eq)...]))
    }

    /// Only "ttyN": the name becomes a path root changes the owner of (/dev/ttyN).
    static func isTerminalName(_ s: String) -> Bool {
        guard s.hasPrefix("tty"), let n = Int(s.dropFirst(3)), String(n) == s.dropFirst(3) else { return false }
        return (1...63).contains(n)
    }
}
