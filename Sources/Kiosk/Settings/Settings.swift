#if canImport(Glibc)
import Glibc
#endif
import KioskCore
import KioskRender
import KioskUI
import KioskScenes
import KioskPlatform

/// What the operator configures in `kiosk.toml` (what NSUserDefaults was in the original).
/// Every value has a default; a bad value is reported and replaced by its default, an unreadable
/// or unparsable file leaves every default in place — never a crash, never a blank screen.
struct Settings: Equatable {
    // [shell]
    var scenes: [String] = SceneCatalog.standard.visitorScenes
    var start: String = SceneCatalog.standard.defaultName
    var idleTimeout = 120.0
    var blankDelay = 0.0
    /// Whether waking from the screensaver starts afresh for the next visitor (the start scene,
    /// every scene in its first state) instead of where the last one left off.
    var idleReset = true
    /// When the kiosk is open (`OpeningHours`); always, by default.
    var hours = OpeningHours()
    /// Seconds a touch outside the opening hours shows the screensaver before black again.
    var afterHoursWake = 60.0
    var rotate = Rotation.upright
    var sceneBar = true
    var theme: String?
    var stats = false
    /// The kiosk's language: its own words, the admin panel, the setup, and what visitors see
    /// first (`[shell] language`, else the locale's).
    var language = Language.english
    /// The languages visitors may switch between with the scene bar's pill (`[shell] languages`),
    /// the kiosk's first; one entry: no pill.
    var languages: [Language] = []
    /// The operator's own words by language code and key (`[text]`, `[text.fr]`).
    var textOverrides: [String: [String: String]] = [:]
    // [touch]
    /// libinput's calibration matrix for the touchscreen (six numbers, row-major, on
    /// coordinates normalized to 0...1: `[-1, 0, 1, 0, 1, 0]` undoes a mirrored x); nil: none.
    var touchMatrix: [Double]?
    // [metrics]
    /// Where node_exporter's textfile collector reads the kiosk's metrics; nil: not written.
    var metricsTextfile: String?
    // [words]
    var words = FallingWordsConfig()
    // [lander]
    /// nil: the trailing side of the language on screen (right; left in Arabic).
    var padSide: LanderScene.Side?
    // [admin]
    /// Where three fingers held for `AdminGesture.hold` seconds open the settings panel; nil: off.
    var adminCorner: AdminCorner? = .topLeft
    /// Digits asked for before the panel opens; nil: none.
    var adminPIN: String?
    /// The settings the file gives, as "section.name" ("shell.rotate"): where the file speaks,
    /// what the setup screen chose does not apply (`SetupChoices`).
    var fileKeys: Set<String> = []
    /// Text the operator wrote that the kiosk draws, and where it is in the file.
    var configuredTexts: [ConfiguredText] = []

    /// The kiosk's own words in `language`, with the operator's.
    func texts(for language: Language) -> Texts { Texts(language, overrides: textOverrides[language.code] ?? [:]) }
    var kioskTexts: Texts { texts(for: language) }
    /// What the language pill cycles through, the kiosk's language first.
    var visitorTexts: [Texts] {
        ([language] + languages.filter { $0 != language }).map(texts(for:))
    }

    /// The locale's language (LC_ALL, LC_MESSAGES, LANG; else the system's locale files),
    /// English without one.
    static func localeLanguage() -> Language {
        var env: [String: String] = [:]
        for k in ["LC_ALL", "LC_MESSAGES", "LANG"] { if let v = getenv(k) { env[k] = String(cString: v) } }
        let files = ["/etc/locale.conf", "/etc/default/locale"].compactMap { path -> String? in
            guard case .success(let bytes) = readRegularFile(path, limit: 16 * 1024) else { return nil }
            return String(decoding: bytes, as: UTF8.self)
        }
        return Language.fromLocale(env, files: files)
    }

    struct ConfiguredText: Equatable {
        var text: String
        var line: Int
        var column: Int
        var setting: String
    }

    /// One problem for each configured text that some character of no installed font would
    /// show as a box. The fonts are asked only when a text goes past Latin, which DejaVu (a
    /// dependency) draws.
    func uncoveredTexts(file: String, coverage: () -> FontCoverage?) -> [Problem] {
        let beyondLatin = configuredTexts.filter { $0.text.unicodeScalars.contains { $0.value > 0x24F } }
        guard !beyondLatin.isEmpty, let fonts = coverage() else { return [] }
        return beyondLatin.compactMap { t in
            fonts.report(t.text).map { Problem(file: file, line: t.line, column: t.column, message: "\(t.setting): \"\(t.text)\" \($0)") }
        }
    }

    /// The corner the admin gesture listens in: only with a PIN. Without one, any visitor who
    /// held three fingers in the corner for 3 s would get the kiosk's settings.
    var adminGesture: AdminCorner? { adminPIN == nil ? nil : adminCorner }

    enum AdminCorner: String, CaseIterable, Equatable {
        case topLeft = "top-left", topRight = "top-right", bottomLeft = "bottom-left", bottomRight = "bottom-right"
    }

    /// One problem in a settings file, as `file:line:col: message`.
    struct Problem: Equatable, CustomStringConvertible {
        var file: String
        var line: Int
        var column: Int
        var message: String
        /// The file could not be used at all (as opposed to one value in it).
        var wholeFile = false
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

    /// Reads `path`; problems are returned (each one line), defaults fill every gap. Only a
    /// regular file is read (a FIFO or device would block the kiosk), at most `TOML.Limits`'s size.
    static func load(path: String, catalog: SceneCatalog = .standard) -> (Settings, [Problem]) {
        let (s, problems) = read(path: path, catalog: catalog)
        return (s ?? Settings(), problems)
    }

    /// Like `load`, but nil when the file as a whole was refused (unreadable, not a file, too
    /// large, not TOML): a running kiosk then keeps the settings it has.
    static func read(path: String, locale: Language = localeLanguage(), catalog: SceneCatalog = .standard) -> (Settings?, [Problem]) {
        switch readRegularFile(path, limit: TOML.Limits().maxBytes) {
        case .success(let bytes):
            let (s, problems) = parse(bytes, file: path, locale: locale, catalog: catalog)
            return (problems.contains { $0.wholeFile } ? nil : s, problems)
        case .failure(let why):
            return (nil, [Problem(file: path, line: 1, column: 1, message: why.description, wholeFile: true)])
        }
    }

    static func parse(_ text: String, file: String, locale: Language = .english, catalog: SceneCatalog = .standard) -> (Settings, [Problem]) {
        parse(Array(text.utf8), file: file, locale: locale, catalog: catalog)
    }

    /// `locale`: the language where the file names none (the running kiosk's locale).
    static func parse(_ bytes: [UInt8], file: String, locale: Language = .english, catalog: SceneCatalog = .standard) -> (Settings, [Problem]) {
        var s = Settings()
        s.language = locale
        (s.scenes, s.start) = (catalog.visitorScenes, catalog.defaultName)
        var problems: [Problem] = []
        let table: TOML.Table
        do {
            table = try TOML.parse(bytes)
        } catch {
            return (s, [Problem(file: file, line: error.position.line, column: error.position.column, message: error.message, wholeFile: true)])
        }
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) {
            problems.append(Problem(file: file, line: 1, column: 1, message: "the file starts with a byte order mark, which is ignored"))
        }
        func problem(_ node: TOML.Node, _ message: String) {
            // Unknown names point at the name; bad values at the value.
            let p = message.hasPrefix("unknown") ? node.keyPosition : node.position
            problems.append(Problem(file: file, line: p.line, column: p.column, message: message))
        }
        let known: [String: Set<String>] = [
            "shell": ["scenes", "start", "idle_timeout", "blank_delay", "idle_reset", "hours", "after_hours_wake", "rotate", "scene_bar", "theme",
                      "stats", "language", "languages"],
            "words": ["phrases", "speed", "interval", "color", "size"],
            "lander": ["pad"],
            "admin": ["gesture", "pin"],
            "metrics": ["textfile"],
            "touch": ["matrix"],
        ]
        for key in table.keys {
            let node = table[key]!
            if key == "text" { continue } // any text key: checked by `texts`
            guard let keys = known[key] else { problem(node, "unknown section or setting '\(key)'"); continue }
            guard let sub = node.table else { problem(node, "'\(key)' must be a section ([\(key)])"); continue }
            for k in sub.keys where !keys.contains(k) { problem(sub[k]!, "unknown setting '\(key).\(k)'") }
            s.fileKeys.formUnion(sub.keys.filter(keys.contains).map { "\(key).\($0)" })
        }

        if let sh = table["shell"]?.table {
            shell(sh, into: &s, catalog: catalog, problem) { line, column, message in
                problems.append(Problem(file: file, line: line, column: column, message: message))
            }
        }
        if let v = table["text"] {
            if let t = v.table { texts(t, into: &s, problem) } else { problem(v, "'text' must be a section ([text])") }
        }
        if let m = table["metrics"]?.table, let v = m["textfile"] {
            if let t = v.string, t.isEmpty || t.hasPrefix("/") { s.metricsTextfile = t.isEmpty ? nil : t }
            else { problem(v, "textfile must be an absolute path in quotes (node_exporter's textfile folder), or \"\"; no metrics written") }
        }
        if let w = table["words"]?.table { words(w, into: &s, problem) }
        if let l = table["lander"]?.table, let v = l["pad"] {
            switch v.string {
            case "left": s.padSide = .left
            case "right": s.padSide = .right
            default: problem(v, "pad must be \"left\" or \"right\"; using right")
            }
        }
        if let a = table["admin"]?.table { admin(a, into: &s, problem) }
        if let t = table["touch"]?.table, let v = t["matrix"] {
            let numbers = v.array?.compactMap { $0.double ?? $0.int.map(Double.init) } ?? []
            if numbers.count != 6 || v.array?.count != 6 {
                problem(v, "matrix must be six numbers [a, b, c, d, e, f] (libinput's calibration matrix); touch is not turned")
            } else if TouchCalibration.transform(libinputMatrix: numbers, size: Size(width: 1, height: 1)) == nil {
                problem(v, "matrix \(numbers) cannot be undone (it folds the screen onto a line); touch is not turned")
            } else if numbers != [1, 0, 0, 0, 1, 0] {
                s.touchMatrix = numbers
            }
        }
        return (s, problems)
    }

    private typealias Report = (TOML.Node, String) -> Void

    /// `[shell]`; `problemAt` points inside a value (a bad opening-hours rule).
    private static func shell(_ sh: TOML.Table, into s: inout Settings, catalog: SceneCatalog, _ problem: Report,
                              problemAt: (_ line: Int, _ column: Int, _ message: String) -> Void) {
        if let v = sh["scenes"] {
            let names = v.array.map { $0.compactMap { $0.string } } ?? []
            let valid = names.compactMap { catalog.canonicalName($0) }.filter { catalog.barScenes.contains($0) }
            if v.array == nil || valid.isEmpty || valid.count != names.count || names.count != v.array!.count {
                problem(v, "scenes must list some of \(catalog.barScenes.joined(separator: ", ")); using \(s.scenes.joined(separator: ", "))")
            } else { s.scenes = valid }
        }
        if let v = sh["start"] {
            if let n = v.string.flatMap(catalog.canonicalName), catalog.barScenes.contains(n) { s.start = n }
            else { problem(v, "start must be one of \(catalog.barScenes.joined(separator: ", ")); using \(s.start)") }
        }
        number(sh, "idle_timeout", 0...86_400, &s.idleTimeout, problem)
        number(sh, "blank_delay", 0...86_400, &s.blankDelay, problem)
        if let v = sh["rotate"] {
            if let r = v.int.flatMap(Rotation.init(degrees:)) { s.rotate = r }
            else { problem(v, "rotate must be 0, 90, 180 or 270; using 0") }
        }
        flag(sh, "scene_bar", &s.sceneBar, problem)
        flag(sh, "idle_reset", &s.idleReset, problem)
        number(sh, "after_hours_wake", 1...3600, &s.afterHoursWake, problem)
        if let v = sh["hours"] {
            // One string or a list of them; a bad entry is pointed at where it goes wrong.
            let specs = v.array ?? [v]
            var hours = OpeningHours()
            for spec in specs {
                guard let text = spec.string else { problem(spec, "hours must be a string like \"Mon-Fri 08:00-20:00\" or a list of them; open always"); hours = OpeningHours(); break }
                do { hours.rules += try OpeningHours.parse(text).rules } catch {
                    problemAt(spec.position.line, spec.position.column + 1 + error.offset, "hours: \(error.message); open always")
                    hours = OpeningHours()
                    break
                }
            }
            s.hours = hours
        }
        flag(sh, "stats", &s.stats, problem)
        languages(sh, into: &s, problem)
        if let v = sh["theme"] {
            if let t = v.string { s.theme = t.isEmpty ? nil : t } else { problem(v, "theme must be a folder path in quotes") }
        }
    }

    /// `[shell] language` and `languages`: an unknown language is named and left out.
    private static func languages(_ sh: TOML.Table, into s: inout Settings, _ problem: Report) {
        let known = Language.codes.joined(separator: ", ")
        var chosen: Language?
        if let v = sh["language"] {
            if let l = v.string.flatMap(Language.named) { chosen = l }
            else { problem(v, "language must be one of \(known); using \(s.language.code)") }
        }
        if let v = sh["languages"] {
            let items = v.array ?? []
            if v.array == nil { problem(v, "languages must be a list like [\"en\", \"fr\"]; no language pill") }
            for item in items {
                if let l = item.string.flatMap(Language.named) {
                    if !s.languages.contains(l) { s.languages.append(l) }
                } else { problem(item, "languages: the kiosk has no texts for \(item.string.map { "'\($0)'" } ?? "that value") (known: \(known)); left out") }
            }
        }
        // Without a language of its own, the kiosk speaks the first one visitors may choose.
        s.language = chosen ?? s.languages.first ?? s.language
    }

    /// `[text]`: the operator's words for the kiosk's language; `[text.fr]` and the like for
    /// another. A key written bare (`tiles.hint = …`, a nested table in TOML) counts as quoted.
    private static func texts(_ t: TOML.Table, into s: inout Settings, _ problem: Report) {
        func collect(_ t: TOML.Table, prefix: String, _ out: inout [String: String]) {
            for k in t.keys {
                let node = t[k]!, key = prefix + k
                if prefix.isEmpty, Language.named(k)?.code == k {
                    guard let sub = node.table else { problem(node, "'text.\(k)' must be a section ([text.\(k)])"); continue }
                    var table = s.textOverrides[k] ?? [:]
                    collect(sub, prefix: "", &table)
                    s.textOverrides[k] = table
                } else if let sub = node.table {
                    collect(sub, prefix: key + ".", &out)
                } else if let text = node.string {
                    if let why = TextCatalog.problem(key: key, value: text) { problem(node, why); continue }
                    out[key] = text
                    s.configuredTexts.append(ConfiguredText(text: text, line: node.position.line, column: node.position.column,
                                                            setting: "text '\(key)'"))
                } else {
                    problem(node, "text '\(key)' must be a string in quotes; using the kiosk's own")
                }
            }
        }
        var own: [String: String] = [:]
        collect(t, prefix: "", &own)
        s.textOverrides[s.language.code, default: [:]].merge(own) { _, mine in mine }
    }

    private static func words(_ w: TOML.Table, into s: inout Settings, _ problem: Report) {
        if let v = w["phrases"] {
            if let list = v.array?.compactMap({ $0.string }), list.count == v.array!.count {
                s.words.phrases = list
                s.configuredTexts += zip(list, v.array!).map { ConfiguredText(text: $0, line: $1.position.line, column: $1.position.column, setting: "words") }
            }
            else { problem(v, "phrases must be a list of strings; using the default") }
        }
        number(w, "speed", 5...5000, &s.words.speed, problem)
        number(w, "interval", 0.05...60, &s.words.interval, problem)
        var size = s.words.baseSize.width
        number(w, "size", 50...1000, &size, problem)
        s.words.labelWidth = size
        if let v = w["color"] {
            if let c = v.string.flatMap(Settings.color) { s.words.color = c }
            else { problem(v, "color must look like \"#8e24aa\"; using the default") }
        }
    }

    private static func admin(_ a: TOML.Table, into s: inout Settings, _ problem: Report) {
        if let v = a["gesture"] {
            if v.string == "off" { s.adminCorner = nil }
            else if let c = v.string.flatMap(AdminCorner.init(rawValue:)) { s.adminCorner = c }
            else { problem(v, "gesture must be \"top-left\", \"top-right\", \"bottom-left\", \"bottom-right\" or \"off\"; using top-left") }
        }
        if let v = a["gesture"], v.string != "off", a["pin"] == nil {
            problem(v, "the admin gesture needs a pin (4 to 8 digits): it is off until one is set")
        }
        if let v = a["pin"] {
            if let p = v.string, p.isEmpty || (4...8).contains(p.count) && p.allSatisfy({ $0.isASCII && $0.isNumber }) { s.adminPIN = p.isEmpty ? nil : p }
            else {
                // A PIN that cannot be typed would lock the operator out; no PIN would open
                // the panel to anyone. Refusing the gesture is the safe fallback.
                s.adminCorner = nil
                problem(v, "pin must be 4 to 8 digits in quotes; the admin gesture is off until it is fixed")
            }
        }
    }

    private static func number(_ t: TOML.Table, _ key: String, _ range: ClosedRange<Double>, _ out: inout Double,
                               _ problem: (TOML.Node, String) -> Void) {
        guard let v = t[key] else { return }
        let d = v.double ?? v.int.map(Double.init)
        if let d, range.contains(d) { out = d } else {
            problem(v, "\(key) must be a number from \(format(range.lowerBound)) to \(format(range.upperBound)); using \(format(out))")
        }
    }
    private static func flag(_ t: TOML.Table, _ key: String, _ out: inout Bool, _ problem: (TOML.Node, String) -> Void) {
        guard let v = t[key] else { return }
        if let b = v.bool { out = b } else { problem(v, "\(key) must be true or false; using \(out)") }
    }

    /// "#rrggbb" (or "rrggbb") → Color.
    static func color(_ s: String) -> Color? {
        let hex = s.hasPrefix("#") ? String(s.dropFirst()) : s
        guard hex.count == 6, let v = UInt32(hex, radix: 16) else { return nil }
        return Color(rgb: v)
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
        if let v = rotate, (0...3).contains(v) { s.rotate = Rotation(quarterTurns: v) }
    }
}
