import KioskCore

/// Values for declared settings from somewhere other than the file — the setup's choices, the
/// admin panel's changes, the command line — each read by its setting's declaration as the
/// file's value would be: a setting means the same and is checked the same wherever it is given.
struct SettingsLayer: Equatable {
    struct Value: Equatable {
        /// "section.name".
        var key: String
        /// The value as kiosk.toml writes it (`90`, `"left"`, `["lander"]`).
        var text: String
        /// Where it comes from, for a problem's line ("setup.json", "--rotate 45").
        var origin: String
    }

    var values: [Value] = []
    /// Where the file gives a setting, this layer's value for it does not apply (the setup's).
    var underTheFile = false

    mutating func add(_ key: String, _ text: String?, from origin: String) {
        if let text { values.append(Value(key: key, text: text, origin: origin)) }
    }

    /// These values over `s`, in order. A value its declaration refuses gets the declaration's
    /// fallback, as in the file, and one line naming where it came from.
    @discardableResult
    func apply(to s: inout Settings, catalog: SceneCatalog = .standard) -> [String] {
        var problems: [String] = []
        let declared = Settings.declarations(for: catalog)
        for v in values where !(underTheFile && s.fileKeys.contains(v.key)) {
            guard let d = declared.first(where: { $0.key == v.key }) else {
                problems.append("\(v.origin): no setting \(v.key)")
                continue
            }
            guard let table = try? TOML.parse(Array("\(d.name) = \(v.text)\n".utf8)), let node = table[d.name] else {
                problems.append("\(v.origin): \(v.text) is not a value of \(v.key)")
                continue
            }
            let reader = SettingReader(catalog: catalog, languages: s.knownLanguages, section: table) { _, _, message in
                problems.append("\(v.origin): \(message)")
            }
            d.read(node, &s, reader)
        }
        return problems
    }
}
