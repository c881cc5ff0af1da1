/// A section of kiosk.toml that one part of the kiosk owns (a scene's `[lander]`), as that part's
/// own type: `init()` is every default, `settings` says how each setting of it is read. The
/// kiosk lifts these into its declarations (`SettingDeclaration`), so the parser, check-config,
/// the admin panel and the test against kiosk.toml(5) treat them as its own settings.
package protocol SettingsSection: Equatable, Sendable {
    init()
    /// The section's settings, in the order they are read.
    static var settings: [SectionSetting<Self>] { get }
}

/// One setting of a `SettingsSection`: its name, its default as the file writes it, the range a
/// number keeps to, whether a running kiosk takes it at once, and how it is read.
package struct SectionSetting<Section: SettingsSection>: Sendable {
    package let name: String
    /// The default, written as in the file (kiosk.toml(5) shows the same).
    package let defaultText: String
    /// For numbers: the values allowed.
    package var range: ClosedRange<Double>?
    /// The value kiosk.toml(5) shows where it is not the default (an example).
    package var example: String?
    /// The default follows another setting (the pad: the language's trailing side); `defaultText`
    /// is what kiosk.toml(5) shows for the usual case.
    package var derivedDefault = false
    /// Whether saving the file changes a running kiosk (else: at its next start).
    package var live = true
    /// Its value as the file would write it.
    package let value: @Sendable (Section) -> String
    package let read: @Sendable (TOML.Node, inout Section, SectionReader) -> Void

    package init(_ name: String, default defaultText: String, range: ClosedRange<Double>? = nil, example: String? = nil,
                derivedDefault: Bool = false, live: Bool = true, value: @escaping @Sendable (Section) -> String,
                read: @escaping @Sendable (TOML.Node, inout Section, SectionReader) -> Void) {
        (self.name, self.defaultText, self.range, self.example) = (name, defaultText, range, example)
        (self.derivedDefault, self.live, self.value, self.read) = (derivedDefault, live, value, read)
    }

    /// A number within `range` kept at `path`; its default is the section's.
    package static func number(_ name: String, _ range: ClosedRange<Double>, _ path: WritableKeyPath<Section, Double> & Sendable,
                              live: Bool = true) -> SectionSetting {
        SectionSetting(name, default: format(Section()[keyPath: path]), range: range, live: live,
                       value: { format($0[keyPath: path]) }) { v, s, r in
            let d = v.double ?? v.int.map(Double.init)
            if let d, range.contains(d) { s[keyPath: path] = d } else {
                r.problem(v, "\(name) must be a number from \(format(range.lowerBound)) to \(format(range.upperBound)); using \(format(s[keyPath: path]))")
            }
        }
    }

    /// true or false, kept at `path`; its default is the section's.
    package static func flag(_ name: String, _ path: WritableKeyPath<Section, Bool> & Sendable) -> SectionSetting {
        SectionSetting(name, default: "\(Section()[keyPath: path])", value: { "\($0[keyPath: path])" }) { v, s, r in
            if let b = v.bool { s[keyPath: path] = b } else { r.problem(v, "\(name) must be true or false; using \(s[keyPath: path])") }
        }
    }
}

/// What a section's setting reports while it is read: a value it cannot use (named by where it
/// is in the file), and text the operator wrote that the kiosk will draw (checked against the
/// installed fonts).
package struct SectionReader {
    private let report: (TOML.Node, String) -> Void
    private let draws: (String, TOML.Node) -> Void

    package init(problem: @escaping (TOML.Node, String) -> Void, drawn: @escaping (String, TOML.Node) -> Void = { _, _ in }) {
        report = problem
        draws = drawn
    }

    package func problem(_ node: TOML.Node, _ message: String) { report(node, message) }
    package func drawn(_ text: String, at node: TOML.Node) { draws(text, node) }
}

/// Every part's section, each as its own type: a part's section not given is its defaults.
package struct SettingsSections: Equatable, Sendable {
    private var values: [ObjectIdentifier: any SettingsSection] = [:]

    package init() {}

    package subscript<S: SettingsSection>(_ type: S.Type) -> S {
        get { values[ObjectIdentifier(type)] as? S ?? S() }
        set { values[ObjectIdentifier(type)] = newValue }
    }

    package static func == (a: SettingsSections, b: SettingsSections) -> Bool {
        Set(a.values.keys).union(b.values.keys).allSatisfy { key in
            guard let some = a.values[key] ?? b.values[key] else { return true }
            return sameValue(some, a.values[key], b.values[key])
        }
    }

    /// `x` and `y` (nil: the defaults) of `S`, the type of `some`, are equal.
    private static func sameValue<S: SettingsSection>(_ some: S, _ x: (any SettingsSection)?, _ y: (any SettingsSection)?) -> Bool {
        (x as? S ?? S()) == (y as? S ?? S())
    }
}

/// Values written as kiosk.toml writes them.
package enum TOMLText {
    package static func list(_ items: [String]) -> String { "[" + items.map(TOML.quoted).joined(separator: ", ") + "]" }
    package static func numbers(_ items: [Double]) -> String { "[" + items.map(format).joined(separator: ", ") + "]" }
    /// Quarter turns as `rotate`'s degrees.
    package static func degrees(quarterTurns v: Int) -> String { "\(v * 90)" }
}
