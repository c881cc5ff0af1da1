#if canImport(Glibc)
import Glibc
#endif
import KioskCore
import KioskRender
import KioskScenes

/// What the operator configures in `kiosk.toml` (what NSUserDefaults was in the original).
/// Every value has a default, its declaration's (SettingDeclarations.swift): `Settings()` reads
/// them, and what a field is given here is only the blank they fill. A bad value is reported and
/// replaced by its default, an unreadable or unparsable file leaves every default in place —
/// never a crash, never a blank screen.
struct Settings: Equatable {
    /// The declared defaults.
    init() { self = Settings.declaredDefaults }
    private init(blank: Void) {}
    private static let declaredDefaults = readDefaults(into: Settings(blank: ())).0

    // [shell]
    var scenes: [String] = []
    var start = ""
    var idleTimeout = 0.0
    var blankDelay = 0.0
    /// Whether waking from the screensaver starts afresh for the next visitor (the start scene,
    /// every scene in its first state) instead of where the last one left off.
    var idleReset = false
    // [access]
    /// Speech on for every visitor (explore by touch), as a site's default.
    var speech = false
    /// The large high-contrast mode for every visitor, as a site's default.
    var large = false
    /// Seconds without input before the screensaver while speech is on.
    var accessIdleTimeout = 0.0
    /// The screen's top edge above the floor in millimetres (0: not known).
    var reachHeight = 0.0
    /// The voice's pace (words per minute) and loudness (per cent).
    var speechRate = 0.0
    var speechVolume = 0.0
    /// The ALSA device speech is played on.
    var soundDevice = ""
    /// When the kiosk is open (`OpeningHours`; no rules: always).
    var hours = OpeningHours()
    /// Seconds a touch outside the opening hours shows the screensaver before black again.
    var afterHoursWake = 0.0
    var rotate = Rotation.upright
    /// Whether `rotate` is a turn (from the file, the setup, the admin panel, the command line),
    /// which fixes the picture; not when "auto": the accelerometer is followed (`PanelOrientation`).
    var rotateFixed = false
    /// The orientations the picture may follow the accelerometer to.
    var orientations = Orientation.all
    var sceneBar = false
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
    /// The languages this kiosk has: English, the package's and the operator's catalogs
    /// (`LanguageCatalogs`).
    var knownLanguages = [Language.english]
    // [touch]
    /// libinput's calibration matrix for the touchscreen (six numbers, row-major, on
    /// coordinates normalized to 0...1: `[-1, 0, 1, 0, 1, 0]` undoes a mirrored x); nil: none.
    var touchMatrix: [Double]?
    // [metrics]
    /// Where node_exporter's textfile collector reads the kiosk's metrics; nil: not written.
    var metricsTextfile: String?
    /// Where a PNG of the screen is kept (`ScreenshotFile`); nil: not written.
    var metricsScreenshot: String?
    /// The least time between two of those pictures, in seconds.
    var metricsScreenshotInterval = 60.0
    /// The scenes' own sections (`[words]`, `[lander]`), each as its scene's type.
    var sections = SettingsSections()
    /// The scenes these settings were read for: their sections, their words and the admin
    /// panel's rows.
    var catalog = SceneCatalog.standard
    // [admin]
    /// Where three fingers held for `AdminGesture.hold` seconds open the settings panel; nil: off.
    var adminCorner: AdminCorner?
    /// Digits asked for before the panel opens; nil: none.
    var adminPIN: String?
    /// The system's keys and F12 for a keyboard at the panel (kiosk-keys.service reads it too).
    var maintenanceKeys = false
    /// The settings the file gives, as "section.name" ("shell.rotate"): where the file speaks,
    /// what the setup screen chose does not apply (`SetupChoices`).
    var fileKeys: Set<String> = []
    /// Text the operator wrote that the kiosk draws, and where it is in the file.
    var configuredTexts: [ConfiguredText] = []

    /// The kiosk's own words in `language`, with the operator's.
    func texts(for language: Language) -> Texts {
        Texts(language, overrides: textOverrides[language.code] ?? [:], table: catalog.texts)
    }
    var kioskTexts: Texts { texts(for: language) }
    /// What the language pill cycles through, the kiosk's language first.
    var visitorTexts: [Texts] {
        ([language] + languages.filter { $0 != language }).map(texts(for:))
    }

    /// The locale's language (LC_ALL, LC_MESSAGES, LANG; else the system's locale files),
    /// English without one.
    static func localeLanguage(in languages: [Language]) -> Language {
        var env: [String: String] = [:]
        for k in ["LC_ALL", "LC_MESSAGES", "LANG"] { if let v = getenv(k) { env[k] = String(cString: v) } }
        let files = ["/etc/locale.conf", "/etc/default/locale"].compactMap { path -> String? in
            guard case .success(let bytes) = readRegularFile(path, limit: 16 * 1024) else { return nil }
            return String(decoding: bytes, as: UTF8.self)
        }
        return Language.fromLocale(env, files: files, in: languages)
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

    /// Where settings are read from: `--config`, else the panel's `/etc/kiosk/kiosk.toml` (the
    /// file root's kiosk-keys reads too), else `$XDG_CONFIG_HOME/kiosk/kiosk.toml` (default
    /// `~/.config`: Kiosk on a desktop without the package); nil means defaults only.
    static func defaultPath() -> String? {
        candidatePaths().first { access($0, F_OK) == 0 }
    }
    /// Where a settings file is looked for, in order (without `--config`).
    static func candidatePaths() -> [String] {
        let env = { (n: String) -> String? in getenv(n).map { String(cString: $0) }.flatMap { $0.isEmpty ? nil : $0 } }
        let user = (env("XDG_CONFIG_HOME") ?? (env("HOME").map { $0 + "/.config" } ?? "")) + "/kiosk/kiosk.toml"
        return ["/etc/kiosk/kiosk.toml", user]
    }

    /// Reads `path`; problems are returned (each one line), defaults fill every gap. Only a
    /// regular file is read (a FIFO or device would block the kiosk), at most `TOML.Limits`'s size.
    static func load(path: String, catalog: SceneCatalog = .standard, languages: [Language] = [.english]) -> (Settings, [Problem]) {
        let (s, problems) = read(path: path, locale: localeLanguage(in: languages), catalog: catalog, languages: languages)
        var defaults = Settings()
        defaults.knownLanguages = languages
        return (s ?? defaults, problems)
    }

    /// Like `load`, but nil when the file as a whole was refused (unreadable, not a file, too
    /// large, not TOML): a running kiosk then keeps the settings it has.
    static func read(path: String, locale: Language = .english, catalog: SceneCatalog = .standard,
                     languages: [Language] = [.english]) -> (Settings?, [Problem]) {
        switch readRegularFile(path, limit: TOML.Limits().maxBytes) {
        case .success(let bytes):
            let (s, problems) = parse(bytes, file: path, locale: locale, catalog: catalog, languages: languages)
            return (problems.contains { $0.wholeFile } ? nil : s, problems)
        case .failure(let why):
            return (nil, [Problem(file: path, line: 1, column: 1, message: why.description, wholeFile: true)])
        }
    }

    static func parse(_ text: String, file: String, locale: Language = .english, catalog: SceneCatalog = .standard,
                      languages: [Language] = [.english]) -> (Settings, [Problem]) {
        parse(Array(text.utf8), file: file, locale: locale, catalog: catalog, languages: languages)
    }

    /// `locale`: the language where the file names none (the running kiosk's locale).
    static func parse(_ bytes: [UInt8], file: String, locale: Language = .english, catalog: SceneCatalog = .standard,
                      languages: [Language] = [.english]) -> (Settings, [Problem]) {
        var s = Settings()
        s.catalog = catalog
        s.language = locale
        s.knownLanguages = languages
        (s.scenes, s.start) = (catalog.defaultScenes, catalog.defaultName)
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
        func report(_ line: Int, _ column: Int, _ message: String) {
            problems.append(Problem(file: file, line: line, column: column, message: message))
        }
        func problem(_ node: TOML.Node, _ message: String) {
            // Unknown names point at the name; bad values at the value.
            let p = message.hasPrefix("unknown") ? node.keyPosition : node.position
            report(p.line, p.column, message)
        }
        let declared = declarations(for: catalog)
        let known = knownSections(declared)
        for key in table.keys {
            let node = table[key]!
            if key == "text" { continue } // any text key: checked by `texts`
            guard let keys = known[key] else { problem(node, "unknown section or setting '\(key)'"); continue }
            guard let sub = node.table else { problem(node, "'\(key)' must be a section ([\(key)])"); continue }
            for k in sub.keys where !keys.contains(k) { problem(sub[k]!, "unknown setting '\(key).\(k)'") }
            s.fileKeys.formUnion(sub.keys.filter(keys.contains).map { "\(key).\($0)" })
        }
        // Each declared setting the file gives, in the declarations' order; [text] once the
        // kiosk's language is known (its bare keys are that language's).
        var readers: [String: SettingReader] = [:]
        func read(_ declared: [SettingDeclaration]) {
            for d in declared {
                guard let section = table[d.section]?.table, let value = section[d.name] else { continue }
                let r = readers[d.section] ?? SettingReader(catalog: catalog, languages: languages, section: section, report: report)
                readers[d.section] = r
                d.read(value, &s, r)
            }
        }
        read(declared.filter { $0.section == "shell" })
        readText(table, into: &s, problem)
        read(declared.filter { $0.section != "shell" })
        return (s, problems)
    }

    private typealias Report = (TOML.Node, String) -> Void

    private static func readText(_ table: TOML.Table, into s: inout Settings, _ problem: Report) {
        guard let v = table["text"] else { return }
        if let t = v.table { texts(t, into: &s, problem) } else { problem(v, "'text' must be a section ([text])") }
    }

    /// `[text]`: the operator's words for the kiosk's language; `[text.fr]` and the like for
    /// another. A key written bare (`tiles.hint = …`, a nested table in TOML) counts as quoted.
    private static func texts(_ t: TOML.Table, into s: inout Settings, _ problem: Report) {
        let known = s.catalog.texts
        func collect(_ t: TOML.Table, prefix: String, _ out: inout [String: String]) {
            for k in t.keys {
                let node = t[k]!, key = prefix + k
                if prefix.isEmpty, Language.named(k, in: s.knownLanguages)?.code == k {
                    guard let sub = node.table else { problem(node, "'text.\(k)' must be a section ([text.\(k)])"); continue }
                    var table = s.textOverrides[k] ?? [:]
                    collect(sub, prefix: "", &table)
                    s.textOverrides[k] = table
                } else if let sub = node.table {
                    collect(sub, prefix: key + ".", &out)
                } else if let text = node.string {
                    if let why = known.problem(key: key, value: text) { problem(node, why); continue }
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
}

/// What the admin panel changed: kept in the state store (the operator's settings file is never
/// rewritten) and applied over the file, under the command line. "Use file settings" clears it.
/// Each value is a setting's ("words.speed"), written as kiosk.toml writes it ("300"), and read
/// by that setting's declaration.
struct PanelSettings: Codable, Equatable {
    var values: [String: String]

    init(_ values: [String: String] = [:]) { self.values = values }

    var isEmpty: Bool { values.isEmpty }

    /// These values, with `newer`'s wherever it has one.
    func merged(with newer: PanelSettings) -> PanelSettings {
        PanelSettings(values.merging(newer.values) { _, newer in newer })
    }

    /// These changes as the settings they stand for, read by those settings' declarations.
    func layer(from origin: String) -> SettingsLayer {
        var l = SettingsLayer()
        for key in values.keys.sorted() { l.add(key, values[key], from: origin) }
        return l
    }

    @discardableResult
    func apply(to s: inout Settings, from origin: String = "admin.json") -> [String] { layer(from: origin).apply(to: &s, catalog: s.catalog) }

    // Kept as {"words.speed": "300", …}. A file from before (0.2.0: {"speed": 300, "padLeft":
    // true, "idleTimeout": 30, "rotate": 1}) is read as the same settings.
    private struct Key: CodingKey {
        var stringValue: String
        var intValue: Int? { nil }
        init(_ s: String) { stringValue = s }
        init?(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }

    init(from decoder: Decoder) throws {
        let c = try decoder.container(keyedBy: Key.self)
        var values: [String: String] = [:]
        // A value of the wrong type is left out, not the whole file: the rest still applies.
        for key in c.allKeys {
            switch key.stringValue {
            case "speed": values["words.speed"] = (try? c.decode(Double.self, forKey: key)).map(format)
            case "padLeft": values["lander.pad"] = (try? c.decode(Bool.self, forKey: key)).map { $0 ? "\"left\"" : "\"right\"" }
            case "idleTimeout": values["shell.idle_timeout"] = (try? c.decode(Double.self, forKey: key)).map(format)
            case "rotate": values["shell.rotate"] = (try? c.decode(Int.self, forKey: key)).map { TOMLText.degrees(quarterTurns: $0) }
            default: values[key.stringValue] = try? c.decode(String.self, forKey: key)
            }
        }
        self.values = values
    }

    func encode(to encoder: Encoder) throws {
        var c = encoder.container(keyedBy: Key.self)
        for (k, v) in values { try c.encode(v, forKey: Key(k)) }
    }
}
