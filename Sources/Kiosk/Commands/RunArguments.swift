/// The options of `kiosk [run]`, read directly when the command line holds nothing else: how a
/// panel starts the kiosk (`cage -- /usr/bin/kiosk`, weston's kiosk-shell).
///
/// Why not always ArgumentParser: on a two-core panel its parse takes 1.5–2.5 ms, all of it
/// before the first frame can be worked on. It reflects over the command's options, and before
/// that over two commands of its own that look for `--generate-completion-script`, and each
/// first type lookup scans every protocol conformance in the binary, most of them the statically
/// linked Foundation's. Anything this does not read exactly (help, `--version`, a subcommand, an
/// unknown, repeated or malformed option, a value starting with `-`) still goes to
/// ArgumentParser, which explains what is wrong. `RunArgumentsTests` check that both read a set
/// of command lines alike, that the rest is handed over, and that this knows every option `run`
/// has.
struct RunArguments: Equatable {
    var scene: String?
    var idleTimeout: Double?
    var config: String?
    var screensaver = false
    var rotate: Int?
    var verbose = false

    /// The options read here: `run`'s, and nothing else.
    static let optionNames: Set<String> = ["--scene", "--idle-timeout", "--config", "--screensaver", "--rotate", "--verbose", "-v"]

    init(scene: String? = nil, idleTimeout: Double? = nil, config: String? = nil, screensaver: Bool = false, rotate: Int? = nil, verbose: Bool = false) {
        self.scene = scene; self.idleTimeout = idleTimeout; self.config = config
        self.screensaver = screensaver; self.rotate = rotate; self.verbose = verbose
    }

    /// nil unless `arguments` (without the program's name) are plainly `run`'s options, each at
    /// most once.
    init?(_ arguments: [String]) {
        var rest = arguments[...]
        if rest.first == "run" { rest = rest.dropFirst() }
        var seen: Set<String> = []
        while let word = rest.popFirst() {
            var name = word, attached: String?
            if word.hasPrefix("--"), let eq = word.firstIndex(of: "=") {
                name = String(word[..<eq])
                attached = String(word[word.index(after: eq)...])
            }
            guard RunArguments.optionNames.contains(name) else { return nil }
            let key = name == "-v" ? "--verbose" : name
            guard seen.insert(key).inserted else { return nil }
            if key == "--screensaver" || key == "--verbose" {
                guard attached == nil else { return nil }
                if key == "--screensaver" { screensaver = true } else { verbose = true }
                continue
            }
            guard let value = attached ?? rest.popFirst(), !value.isEmpty, !value.hasPrefix("-") else { return nil }
            switch key {
            case "--scene": scene = value
            case "--config": config = value
            case "--idle-timeout":
                guard let v = Double(value) else { return nil }
                idleTimeout = v
            default:
                guard let v = Int(value) else { return nil }
                rotate = v
            }
        }
    }
}
