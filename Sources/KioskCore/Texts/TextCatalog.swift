/// Texts by key in English, with notes for translators: one part's own (the toolkit's, a
/// scene's, the shell's), or every part's gathered into the kiosk's (`SceneCatalog.texts`),
/// which the translation template, `[text]`'s checks and the languages' lookups read. A
/// language's catalog finds each text by its key and its English (msgctxt, msgid).
public final class TextCatalog: Sendable {
    /// Every key's English: the fallback for every other table.
    public let english: [String: String]
    /// What a translator cannot tell from the English alone: where a text shows and what a short
    /// word means there. Written into the template (`kiosk texts --pot`) as `#.` comments.
    public let notes: [String: String]

    public init(_ english: [String: String], notes: [String: String] = [:]) {
        self.english = english
        self.notes = notes
    }

    /// The parts' texts in one table. Two parts writing one key is a mistake in one of them
    /// (a unit test looks for it): the first part's text is kept.
    public convenience init(gathering parts: [TextCatalog]) {
        var english: [String: String] = [:], notes: [String: String] = [:]
        for p in parts {
            english.merge(p.english) { first, _ in first }
            notes.merge(p.notes) { first, _ in first }
        }
        self.init(english, notes: notes)
    }

    /// No texts: a value before its part's table is given.
    public static let empty = TextCatalog([:])

    /// Every key a text may be given under.
    public var keys: [String] { english.keys.sorted() }

    /// The keys of texts that depend on a count ("tiles.selected"), without the form.
    public var countedKeys: [String] {
        keys.filter { $0.hasSuffix(".other") }.map { String($0.dropLast(6)) }.filter { english["\($0).one"] != nil }
    }

    /// Whether `key` is a form of a counted text ("tiles.selected.few").
    public func isCounted(_ key: String) -> Bool {
        guard let dot = key.lastIndex(of: ".") else { return false }
        return Self.pluralForms.contains(String(key[key.index(after: dot)...])) && english["\(key[..<dot]).other"] != nil
    }

    /// The placeholders ("n", "fuel") in `text`.
    public static func placeholders(_ text: String) -> Set<String> {
        var found: Set<String> = []
        var rest = text[...]
        while let open = rest.firstIndex(of: "{"), let close = rest[open...].firstIndex(of: "}") {
            let name = rest[rest.index(after: open)..<close]
            if !name.isEmpty, name.allSatisfy({ $0.isLetter || $0.isNumber }) { found.insert(String(name)) }
            rest = rest[rest.index(after: close)...]
        }
        return found
    }

    /// What is wrong with an operator's text `value` for `key`, in a phrase to follow the key's
    /// position, or nil when it can be used.
    public func problem(key: String, value: String) -> String? {
        let base = isCounted(key) ? String(key[..<key.lastIndex(of: ".")!]) + ".other" : key
        guard let english = english[base] else {
            let forms = keys.filter { $0.hasPrefix(key + ".") }
            if !forms.isEmpty, forms.allSatisfy({ Self.pluralForms.contains(String($0.dropFirst(key.count + 1))) }) {
                return "text '\(key)' depends on a count: give its forms (\(forms.joined(separator: ", "))); using the kiosk's own"
            }
            let near = nearest(to: key).map { " (did you mean '\($0)'?)" } ?? ""
            return "unknown text '\(key)'\(near); see kiosk.toml(5) for the list"
        }
        let wanted = Self.placeholders(english), given = Self.placeholders(value)
        if let extra = given.subtracting(wanted).sorted().first {
            let has = wanted.isEmpty ? "it has none" : "it has " + wanted.sorted().map { "{\($0)}" }.joined(separator: ", ")
            return "text '\(key)' uses {\(extra)}, which the kiosk does not fill (\(has)); using the kiosk's own"
        }
        return nil
    }

    public static let pluralForms: Set<String> = ["zero", "one", "two", "few", "many", "other"]

    /// The known key closest to `key` in edit distance, if it is close (a typo).
    func nearest(to key: String) -> String? {
        let best = keys.map { ($0, Self.editDistance(Array($0), Array(key))) }.min { $0.1 < $1.1 }
        return best.flatMap { $0.1 <= max(2, key.count / 5) ? $0.0 : nil }
    }

    package static func editDistance(_ a: [Character], _ b: [Character]) -> Int {
        var row = Array(0...b.count)
        for i in 1...max(1, a.count) where !a.isEmpty {
            var prev = row[0]
            row[0] = i
            for j in stride(from: 1, through: b.count, by: 1) {
                let cur = row[j]
                row[j] = min(row[j] + 1, row[j - 1] + 1, prev + (a[i - 1] == b[j - 1] ? 0 : 1))
                prev = cur
            }
        }
        return a.isEmpty ? b.count : row[b.count]
    }
}
