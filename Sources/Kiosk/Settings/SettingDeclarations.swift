import KioskCore
import KioskScenes

/// One setting of kiosk.toml, declared once, as systemd declares a unit setting: its key, its
/// default as the file writes it, its allowed range, whether a running kiosk takes it at once,
/// and how it is read. `Settings()` is these defaults, read as a file's would be; the parser,
/// `check-config`, the admin panel's and the setup's checks and the test against kiosk.toml(5)
/// all read this list. What a setting means is written once, in
/// kiosk.toml(5) (Packaging/man/kiosk.toml.5): the test holds each entry there to its
/// declaration's key, default or example, range, and whether it applies at the next start.
struct SettingDeclaration: Sendable {
    let section: String
    let name: String
    /// The default, written as in the file (kiosk.toml(5) shows the same).
    let defaultText: String
    /// For numbers: the values allowed.
    var range: ClosedRange<Double>?
    /// The value kiosk.toml(5) shows where it is not the default (an example).
    var example: String?
    /// The default follows another setting (the pad: the language's trailing side): `Settings`
    /// derives it, and `defaultText` is what kiosk.toml(5) shows for the usual case.
    var derivedDefault = false
    /// Whether saving the file changes a running kiosk (else: at its next start).
    var live = true
    /// Its value as the kiosk has it: a reload compares it to say that a changed setting waits
    /// for the next start (one not live) or to make a scene again (one a scene is made from,
    /// `SceneDescription.madeFrom`). Numbers and flags have it; those settings must.
    var value: (@Sendable (Settings) -> String)?
    let read: @Sendable (TOML.Node, inout Settings, SettingReader) -> Void

    var key: String { "\(section).\(name)" }
}

/// What a setting's reader may use besides its value: the scenes, its section (a setting that
/// depends on another), and where to report a problem.
final class SettingReader {
    let catalog: SceneCatalog
    /// The languages the kiosk has (its own and the operator's catalogs).
    let languages: [Language]
    let section: TOML.Table
    private let report: (_ line: Int, _ column: Int, _ message: String) -> Void
    /// `[shell] language` gave a usable language (else the first of `languages` is the kiosk's).
    var languageChosen = false

    init(catalog: SceneCatalog, languages: [Language], section: TOML.Table, report: @escaping (Int, Int, String) -> Void) {
        self.catalog = catalog
        self.languages = languages
        self.section = section
        self.report = report
    }

    /// A problem with `node`'s value.
    func problem(_ node: TOML.Node, _ message: String) { report(node.position.line, node.position.column, message) }
    /// A problem at a place inside a value (a bad opening-hours rule).
    func problem(line: Int, column: Int, _ message: String) { report(line, column, message) }
}

extension SettingDeclaration {
    /// A number within `range` kept at `path`.
    static func number(_ section: String, _ name: String, _ range: ClosedRange<Double>, _ path: any WritableKeyPath<Settings, Double> & Sendable,
                       default value: Double, live: Bool = true) -> SettingDeclaration {
        SettingDeclaration(section: section, name: name, defaultText: format(value), range: range, live: live,
                           value: { format($0[keyPath: path]) }) { v, s, r in
            let d = v.double ?? v.int.map(Double.init)
            if let d, range.contains(d) { s[keyPath: path] = d } else {
                r.problem(v, "\(name) must be a number from \(format(range.lowerBound)) to \(format(range.upperBound)); using \(format(s[keyPath: path]))")
            }
        }
    }

    /// true or false, kept at `path`.
    static func flag(_ section: String, _ name: String, _ path: any WritableKeyPath<Settings, Bool> & Sendable, default value: Bool) -> SettingDeclaration {
        SettingDeclaration(section: section, name: name, defaultText: "\(value)", value: { "\($0[keyPath: path])" }) { v, s, r in
            if let b = v.bool { s[keyPath: path] = b } else { r.problem(v, "\(name) must be true or false; using \(s[keyPath: path])") }
        }
    }
}

extension SettingDeclaration {
    /// The settings of a part's own section (a scene's), named `section` in the file, as the
    /// kiosk declares its own: each read into that part's value in `Settings.sections`.
    static func section<S: SettingsSection>(_ type: S.Type, named section: String) -> [SettingDeclaration] {
        S.settings.map { setting in
            SettingDeclaration(section: section, name: setting.name, defaultText: setting.defaultText, range: setting.range,
                               example: setting.example, derivedDefault: setting.derivedDefault, live: setting.live,
                               value: { setting.value($0.sections[S.self]) }) { v, s, r in
                var drawn: [Settings.ConfiguredText] = []
                let reader = SectionReader(problem: r.problem) { text, node in
                    drawn.append(Settings.ConfiguredText(text: text, line: node.position.line, column: node.position.column, setting: section))
                }
                setting.read(v, &s.sections[S.self], reader)
                s.configuredTexts += drawn
            }
        }
    }
}

extension Settings {
    /// Every setting of kiosk.toml for a kiosk with `catalog`'s scenes, in the order they are
    /// read (a setting that depends on another comes after it): the kiosk's own, then each
    /// scene's. `[text]` takes any text key (`TextCatalog`).
    static func declarations(for catalog: SceneCatalog) -> [SettingDeclaration] {
        kioskDeclarations + catalog.scenes.flatMap(\.declarations)
    }
    /// The standard kiosk's.
    static let declarations = declarations(for: .standard)

    private static let kioskDeclarations: [SettingDeclaration] = shellDeclarations + [
        SettingDeclaration(section: "metrics", name: "textfile", defaultText: "\"\"",
                           example: "\"/var/lib/prometheus/node-exporter/kiosk.prom\"") { v, s, r in
            if let t = v.string, t.isEmpty || t.hasPrefix("/") { s.metricsTextfile = t.isEmpty ? nil : t }
            else { r.problem(v, "textfile must be an absolute path in quotes (node_exporter's textfile folder), or \"\"; no metrics written") }
        },
        SettingDeclaration(section: "metrics", name: "screenshot", defaultText: "\"\"",
                           example: "\"/var/lib/kiosk/screen.png\"") { v, s, r in
            if let t = v.string, t.isEmpty || t.hasPrefix("/") { s.metricsScreenshot = t.isEmpty ? nil : t }
            else { r.problem(v, "screenshot must be an absolute path in quotes, or \"\"; no screenshot written") }
        },
        .number("metrics", "screenshot_interval", 5...86_400, \.metricsScreenshotInterval, default: 60),
        .number("access", "speech_rate", 80...450, \.speechRate, default: 175),
        .number("access", "speech_volume", 0...200, \.speechVolume, default: 100),
        SettingDeclaration(section: "access", name: "sound_device", defaultText: "\"default\"") { v, s, r in
            if let d = v.string, !d.isEmpty, !d.contains(where: \.isWhitespace) { s.soundDevice = d }
            else { r.problem(v, "sound_device must be an ALSA device name in quotes, as aplay -L lists them; using \"default\"") }
        },
    ] + adminDeclarations + [
        SettingDeclaration(section: "touch", name: "matrix", defaultText: "[1, 0, 0, 0, 1, 0]") { v, s, r in
            let numbers = v.array?.compactMap { $0.double ?? $0.int.map(Double.init) } ?? []
            if numbers.count != 6 || v.array?.count != 6 {
                r.problem(v, "matrix must be six numbers [a, b, c, d, e, f] (libinput's calibration matrix); touch is not turned")
            } else if TouchCalibration.transform(libinputMatrix: numbers, size: Size(width: 1, height: 1)) == nil {
                r.problem(v, "matrix \(numbers) cannot be undone (it folds the screen onto a line); touch is not turned")
            } else if numbers != TouchCalibration.identityMatrix {
                s.touchMatrix = numbers
            }
        },
    ]

    /// Every declared default read as a file giving each would be, over `blank`; a default that
    /// reads with a problem is a mistake in its declaration (a test reads them all).
    static func readDefaults(into blank: Settings) -> (Settings, [String]) {
        var s = blank, problems: [String] = []
        let declared = declarations.filter { !$0.derivedDefault }
        let text = Dictionary(grouping: declared, by: \.section).map { section, ds in
            "[\(section)]\n" + ds.map { "\($0.name) = \($0.defaultText)\n" }.joined()
        }.joined()
        guard let table = try? TOML.parse(Array(text.utf8)) else { return (s, ["the declared defaults are not TOML"]) }
        var readers: [String: SettingReader] = [:], reading = ""
        for d in declared {
            guard let section = table[d.section]?.table, let value = section[d.name] else { continue }
            reading = "\(d.key) = \(d.defaultText)"
            let r = readers[d.section] ?? SettingReader(catalog: .standard, languages: [.english], section: section) { _, _, message in
                problems.append("\(reading): \(message)")
            }
            readers[d.section] = r
            d.read(value, &s, r)
        }
        // The defaults are not the operator's words: nothing of them is checked against the fonts.
        s.configuredTexts = []
        return (s, problems)
    }

    /// The declaration of "section.name", if there is one.
    static func declaration(_ key: String) -> SettingDeclaration? { declarations.first { $0.key == key } }

    /// The sections and their settings, as the file may have them.
    static func knownSections(_ declared: [SettingDeclaration]) -> [String: Set<String>] {
        Dictionary(declared.map { ($0.section, [$0.name]) }, uniquingKeysWith: { $0.union($1) })
    }

    /// The allowed range of a numeric setting (the admin panel offers only values within it).
    static func range(_ key: String) -> ClosedRange<Double> { declaration(key)!.range! }

    private static let shellDeclarations: [SettingDeclaration] = [
        SettingDeclaration(section: "shell", name: "scenes", defaultText: TOMLText.list(SceneCatalog.standard.defaultScenes)) { v, s, r in
            let bar = r.catalog.barScenes
            let names = v.array.map { $0.compactMap { $0.string } } ?? []
            let valid = names.compactMap { r.catalog.canonicalName($0) }.filter { bar.contains($0) }
            if v.array == nil || valid.isEmpty || valid.count != names.count || names.count != v.array!.count {
                r.problem(v, "scenes must list some of \(bar.joined(separator: ", ")); using \(s.scenes.joined(separator: ", "))")
            } else { s.scenes = valid }
        },
        SettingDeclaration(section: "shell", name: "start", defaultText: TOML.quoted(SceneCatalog.standard.defaultName), live: false, value: { $0.start }) { v, s, r in
            let bar = r.catalog.barScenes
            if let n = v.string.flatMap(r.catalog.canonicalName), bar.contains(n) { s.start = n }
            else { r.problem(v, "start must be one of \(bar.joined(separator: ", ")); using \(s.start)") }
        },
        .number("shell", "idle_timeout", 0...86_400, \.idleTimeout, default: 120),
        .number("shell", "blank_delay", 0...86_400, \.blankDelay, default: 0),
        // "auto": the accelerometer's turn (upright without one); a number fixes the picture.
        SettingDeclaration(section: "shell", name: "rotate", defaultText: TOML.quoted("auto"),
                           value: { $0.rotateFixed ? TOMLText.degrees(quarterTurns: $0.rotate.quarterTurns) : TOML.quoted("auto") }) { v, s, r in
            if v.string == "auto" { (s.rotate, s.rotateFixed) = (.upright, false) }
            else if let turned = v.int.flatMap(Rotation.init(degrees:)) { (s.rotate, s.rotateFixed) = (turned, true) }
            else { r.problem(v, "rotate must be \"auto\", 0, 90, 180 or 270; using \"auto\"") }
        },
        SettingDeclaration(section: "shell", name: "orientations", defaultText: TOMLText.list(Orientation.allCases.map(\.rawValue)),
                           example: TOMLText.list(["landscape", "landscape-upside-down"]),
                           value: { s in TOMLText.list(Orientation.allCases.filter(s.orientations.contains).map(\.rawValue)) }) { v, s, r in
            let names = v.array?.compactMap(\.string) ?? []
            let chosen = names.compactMap(Orientation.init(rawValue:))
            if !chosen.isEmpty && chosen.count == v.array?.count { s.orientations = Set(chosen) } else {
                r.problem(v, "orientations must list some of \(Orientation.allCases.map(\.rawValue).joined(separator: ", ")); using all four")
            }
        },
        .flag("shell", "scene_bar", \.sceneBar, default: true),
        .flag("shell", "idle_reset", \.idleReset, default: true),
        .number("shell", "after_hours_wake", 1...3600, \.afterHoursWake, default: 60),
        SettingDeclaration(section: "shell", name: "hours", defaultText: "\"\"", example: "\"Mon-Fri 08:00-20:00, Sat 10:00-16:00\"") { v, s, r in
            // One string or a list of them; a bad entry is pointed at where it goes wrong.
            var hours = OpeningHours()
            for spec in v.array ?? [v] {
                guard let text = spec.string else {
                    r.problem(spec, "hours must be a string like \"Mon-Fri 08:00-20:00\" or a list of them; open always")
                    hours = OpeningHours()
                    break
                }
                do throws(OpeningHours.SpecError) { hours.rules += try OpeningHours.parse(text).rules } catch {
                    r.problem(line: spec.position.line, column: spec.position.column + 1 + error.offset, "hours: \(error.message); open always")
                    hours = OpeningHours()
                    break
                }
            }
            s.hours = hours
        },
        .flag("shell", "stats", \.stats, default: false),
        .flag("access", "speech", \.speech, default: false),
        .flag("access", "large", \.large, default: false),
        .number("access", "reach_height_mm", 0...5000, \.reachHeight, default: 0),
        .number("access", "idle_timeout", 0...86_400, \.accessIdleTimeout, default: 300),
        SettingDeclaration(section: "shell", name: "language", defaultText: "\"en\"") { v, s, r in
            if let l = v.string.flatMap({ Language.named($0, in: r.languages) }) {
                s.language = l
                r.languageChosen = true
            } else {
                let known = r.languages.map(\.code).joined(separator: ", ")
                r.problem(v, "language must be one of \(known) (another: a catalog in \(LanguageCatalogs.directory)); using \(s.language.code)")
            }
        },
        SettingDeclaration(section: "shell", name: "languages", defaultText: "[]", example: "[\"fr\", \"en\"]") { v, s, r in
            if v.array == nil { r.problem(v, "languages must be a list like [\"en\", \"fr\"]; no language pill") }
            for item in v.array ?? [] {
                if let l = item.string.flatMap({ Language.named($0, in: r.languages) }) {
                    if !s.languages.contains(l) { s.languages.append(l) }
                } else {
                    let known = r.languages.map(\.code).joined(separator: ", ")
                    r.problem(item, "languages: the kiosk has no texts for \(item.string.map { "'\($0)'" } ?? "that value") (known: \(known)); left out")
                }
            }
            // Without a language of its own, the kiosk speaks the first one visitors may choose.
            if !r.languageChosen, let first = s.languages.first { s.language = first }
        },
        SettingDeclaration(section: "shell", name: "theme", defaultText: "\"\"", value: { $0.theme ?? "" }) { v, s, r in
            if let t = v.string { s.theme = t.isEmpty ? nil : t } else { r.problem(v, "theme must be a folder path in quotes") }
        },
    ]

    private static let adminDeclarations: [SettingDeclaration] = [
        SettingDeclaration(section: "admin", name: "gesture", defaultText: "\"top-left\"") { v, s, r in
            if v.string == "off" { s.adminCorner = nil }
            else if let c = v.string.flatMap(AdminCorner.init(rawValue:)) { s.adminCorner = c }
            else { r.problem(v, "gesture must be \"top-left\", \"top-right\", \"bottom-left\", \"bottom-right\" or \"off\"; using top-left") }
            if v.string != "off", r.section["pin"] == nil {
                r.problem(v, "the admin gesture needs a pin (4 to 8 digits): it is off until one is set")
            }
        },
        SettingDeclaration(section: "admin", name: "pin", defaultText: "\"\"", example: "\"2580\"") { v, s, r in
            if let p = v.string, p.isEmpty || SetupChoices.isValidPIN(p) { s.adminPIN = p.isEmpty ? nil : p }
            else {
                // A PIN that cannot be typed would lock the operator out; no PIN would open
                // the panel to anyone. Refusing the gesture is the safe fallback.
                s.adminCorner = nil
                r.problem(v, "pin must be 4 to 8 digits in quotes; the admin gesture is off until it is fixed")
            }
        },
        .flag("admin", "maintenance_keys", \.maintenanceKeys, default: false),
    ]
}
