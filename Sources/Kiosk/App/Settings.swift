import TOMLKit
#if canImport(Glibc)
import Glibc
#endif

/// What the operator configures in `kiosk.toml` (what NSUserDefaults was in the original).
/// Every value has a default; a bad value is reported and replaced by its default, an unreadable
/// or unparsable file leaves every default in place — never a crash, never a blank screen.
struct Settings: Equatable {
    // [shell]
    var scenes = SceneCatalog.publicScenes
    var start = SceneCatalog.defaultName
    var idleTimeout = 120.0
    var blankDelay = 0.0
    var rotate = 0
    var sceneBar = true
    var theme: String?
    var stats = false
    // [words]
    var words = FallingWordsConfig()
    // [lander]
    var padSide = LanderScene.Side.right
    // [admin]
    /// Where three fingers held for `AdminGesture.hold` seconds open the settings panel; nil: off.
    var adminCorner: AdminCorner? = .topLeft
    /// Digits asked for before the panel opens; nil: none.
    var adminPIN: String?

    enum AdminCorner: String, CaseIterable, Equatable {
        case topLeft = "top-left", topRight = "top-right", bottomLeft = "bottom-left", bottomRight = "bottom-right"
    }

    /// One problem in a settings file, as `file:line:col: message`.
    struct Problem: Equatable, CustomStringConvertible {
        var file: String
        var line: Int
        var column: Int
        var message: String
        var description: String { "\(file):\(line):\(column): \(message)" }
    }

    /// Where settings are read from: `--config`, else `$XDG_CONFIG_HOME/kiosk/kiosk.toml`
    /// (default `~/.config`), else `/etc/kiosk/kiosk.toml`; nil means defaults only.
    static func defaultPath() -> String? {
        candidatePaths().first { access($0, F_OK) == 0 }
    }
    /// Where a settings file is looked for, in order (without `--config`).
    static func candidatePaths() -> [String] {
        let env = { (n: String) -> String? in getenv(n).map { String(cString: $0) }.flatMap { $0.isEmpty ? nil : $0 } }
        let user = (env("XDG_CONFIG_HOME") ?? (env("HOME").map { $0 + "/.config" } ?? "")) + "/kiosk/kiosk.toml"
        return [user, "/etc/kiosk/kiosk.toml"]
    }

    /// Reads `path`; problems are returned (each one line), defaults fill every gap.
    static func load(path: String) -> (Settings, [Problem]) {
        guard let bytes = readSmallFile(path, limit: 1 << 20) else {
            return (Settings(), [Problem(file: path, line: 1, column: 1, message: "cannot read: \(String(cString: strerror(errno)))")])
        }
        return parse(String(decoding: bytes, as: UTF8.self), file: path)
    }

    static func parse(_ text: String, file: String) -> (Settings, [Problem]) {
        var s = Settings()
        var problems: [Problem] = []
        let table: TOMLTable
        do {
            table = try TOMLTable(string: text)
        } catch let e as TOMLParseError {
            return (s, [Problem(file: file, line: e.source.begin.line, column: e.source.begin.column, message: e.description)])
        } catch {
            return (s, [Problem(file: file, line: 1, column: 1, message: "\(error)")])
        }
        let locator = KeyLocator(text)
        func problem(_ section: String?, _ key: String, _ message: String) {
            // Unknown names point at the name; bad values at the value.
            let (l, c) = locator.position(section: section, key: key, atKey: message.hasPrefix("unknown"))
            problems.append(Problem(file: file, line: l, column: c, message: message))
        }
        let known: [String: Set<String>] = [
            "shell": ["scenes", "start", "idle_timeout", "blank_delay", "rotate", "scene_bar", "theme", "stats"],
            "words": ["phrases", "speed", "interval", "color"],
            "lander": ["pad"],
            "admin": ["gesture", "pin"],
        ]
        for key in table.keys {
            guard let keys = known[key] else { problem(nil, key, "unknown section or setting '\(key)'"); continue }
            guard let sub = table[key]?.table else { problem(nil, key, "'\(key)' must be a section ([\(key)])"); continue }
            for k in sub.keys where !keys.contains(k) { problem(key, k, "unknown setting '\(key).\(k)'") }
        }

        if let sh = table["shell"]?.table {
            if let v = sh["scenes"] {
                let names = v.array.map { $0.compactMap { $0.string } } ?? []
                let valid = names.compactMap { SceneCatalog.canonicalName($0) }.filter { SceneCatalog.publicScenes.contains($0) }
                if v.array == nil || valid.isEmpty || valid.count != names.count || names.count != v.array!.count {
                    problem("shell", "scenes", "scenes must list some of \(SceneCatalog.publicScenes.joined(separator: ", ")); using all")
                } else { s.scenes = valid }
            }
            if let v = sh["start"] {
                if let n = v.string.flatMap(SceneCatalog.canonicalName), SceneCatalog.publicScenes.contains(n) { s.start = n }
                else { problem("shell", "start", "start must be one of \(SceneCatalog.publicScenes.joined(separator: ", ")); using \(s.start)") }
            }
            number(sh, "idle_timeout", 0...86_400, "shell", &s.idleTimeout, problem)
            number(sh, "blank_delay", 0...86_400, "shell", &s.blankDelay, problem)
            if let v = sh["rotate"] {
                if let r = v.int, [0, 90, 180, 270].contains(r) { s.rotate = r / 90 }
                else { problem("shell", "rotate", "rotate must be 0, 90, 180 or 270; using 0") }
            }
            flag(sh, "scene_bar", "shell", &s.sceneBar, problem)
            flag(sh, "stats", "shell", &s.stats, problem)
            if let v = sh["theme"] {
                if let t = v.string { s.theme = t.isEmpty ? nil : t } else { problem("shell", "theme", "theme must be a folder path in quotes") }
            }
        }
        if let w = table["words"]?.table {
            if let v = w["phrases"] {
                if let list = v.array?.compactMap({ $0.string }), list.count == v.array!.count { s.words.phrases = list }
                else { problem("words", "phrases", "phrases must be a list of strings; using the default") }
            }
            number(w, "speed", 5...5000, "words", &s.words.speed, problem)
            number(w, "interval", 0.05...60, "words", &s.words.interval, problem)
            if let v = w["color"] {
                if let c = v.string.flatMap(Settings.color) { s.words.color = c }
                else { problem("words", "color", "color must look like \"#8e24aa\"; using the default") }
            }
        }
        if let l = table["lander"]?.table, let v = l["pad"] {
            switch v.string {
            case "left": s.padSide = .left
            case "right": s.padSide = .right
            default: problem("lander", "pad", "pad must be \"left\" or \"right\"; using right")
            }
        }
        if let a = table["admin"]?.table {
            if let v = a["gesture"] {
                if v.string == "off" { s.adminCorner = nil }
                else if let c = v.string.flatMap(AdminCorner.init(rawValue:)) { s.adminCorner = c }
                else { problem("admin", "gesture", "gesture must be \"top-left\", \"top-right\", \"bottom-left\", \"bottom-right\" or \"off\"; using top-left") }
            }
            if let v = a["pin"] {
                if let p = v.string, p.isEmpty || (4...8).contains(p.count) && p.allSatisfy({ $0.isASCII && $0.isNumber }) { s.adminPIN = p.isEmpty ? nil : p }
                else {
                    // A PIN that cannot be typed would lock the operator out; no PIN would open
                    // the panel to anyone. Refusing the gesture is the safe fallback.
                    s.adminCorner = nil
                    problem("admin", "pin", "pin must be 4 to 8 digits in quotes; the admin gesture is off until it is fixed")
                }
            }
        }
        return (s, problems)
    }

    private static func number(_ t: TOMLTable, _ key: String, _ range: ClosedRange<Double>, _ section: String,
                               _ out: inout Double, _ problem: (String?, String, String) -> Void) {
        guard let v = t[key] else { return }
        let d = v.double ?? v.int.map(Double.init)
        if let d, range.contains(d) { out = d } else {
            problem(section, key, "\(key) must be a number from \(format(range.lowerBound)) to \(format(range.upperBound)); using \(format(out))")
        }
    }
    private static func flag(_ t: TOMLTable, _ key: String, _ section: String, _ out: inout Bool,
                             _ problem: (String?, String, String) -> Void) {
        guard let v = t[key] else { return }
        if let b = v.bool { out = b } else { problem(section, key, "\(key) must be true or false; using \(out)") }
    }

    /// "#rrggbb" (or "rrggbb") → Color.
    static func color(_ s: String) -> Color? {
        let hex = s.hasPrefix("#") ? String(s.dropFirst()) : s
        guard hex.count == 6, let v = UInt32(hex, radix: 16) else { return nil }
        return Color(rgb: v)
    }
}

/// Finds where a key is written, for messages about values (TOMLKit keeps positions only for
/// syntax errors): the line of `key =` inside `[section]`, column of the value.
private struct KeyLocator {
    let lines: [Substring]
    init(_ text: String) { lines = text.split(separator: "\n", omittingEmptySubsequences: false) }

    func position(section: String?, key: String, atKey: Bool = false) -> (Int, Int) {
        var current: String? = nil
        for (i, raw) in lines.enumerated() {
            let line = raw.drop { $0 == " " || $0 == "\t" }
            if line.hasPrefix("[") {
                current = String(line.dropFirst().prefix { $0 != "]" }).trimmedSpaces
                if section == nil, current == key { return (i + 1, raw.count - line.count + 1) }
                continue
            }
            guard current == section, line.hasPrefix(key) else { continue }
            let rest = line.dropFirst(key.count).drop { $0 == " " || $0 == "\t" }
            guard rest.hasPrefix("=") else { continue }
            if atKey { return (i + 1, raw.count - line.count + 1) }
            let value = rest.dropFirst().drop { $0 == " " || $0 == "\t" }
            return (i + 1, raw.count - value.count + 1)
        }
        return (1, 1)
    }
}

private extension String {
    var trimmedSpaces: String {
        var s = Substring(self)
        while s.first == " " { s = s.dropFirst() }
        while s.last == " " { s = s.dropLast() }
        return String(s)
    }
}

/// What the admin panel changed: kept in the state store (the operator's settings file is never
/// rewritten) and applied over the file, under the command line. "Use file settings" clears it.
struct PanelSettings: Codable, Equatable {
    var speed: Double?
    var padLeft: Bool?
    var idleTimeout: Double?
    var rotate: Int?

    var isEmpty: Bool { self == PanelSettings() }

    /// These values, with `newer`'s wherever it has one.
    func merged(with newer: PanelSettings) -> PanelSettings {
        PanelSettings(speed: newer.speed ?? speed, padLeft: newer.padLeft ?? padLeft,
                      idleTimeout: newer.idleTimeout ?? idleTimeout, rotate: newer.rotate ?? rotate)
    }

    func apply(to s: inout Settings) {
        if let v = speed, (5...5000).contains(v) { s.words.speed = v }
        if let v = padLeft { s.padSide = v ? .left : .right }
        if let v = idleTimeout, (0...86_400).contains(v) { s.idleTimeout = v }
        if let v = rotate, (0...3).contains(v) { s.rotate = v }
    }
}
