/// A language the kiosk writes its own words in: English, in which the kiosk is written, or
/// one a gettext catalog translates it into (`catalog`): the package's own, installed under
/// /usr/share/kiosk/locale, or an operator's.
public struct Language: Hashable, Sendable, CustomStringConvertible {
    /// ISO 639-1 code, as `[shell] language` and `LANG` name it.
    public let code: String
    /// The language's name in itself, as the visitors' language pill shows it.
    public let name: String
    public let isRightToLeft: Bool
    /// Between the whole and the fraction of a number ("1.5" or "1,5").
    public let decimalSeparator: Character
    /// Its translations: nil for English.
    public let catalog: MessageCatalog?

    public var description: String { code }

    public init(code: String, name: String, isRightToLeft: Bool, decimalSeparator: Character, catalog: MessageCatalog? = nil) {
        (self.code, self.name, self.isRightToLeft, self.decimalSeparator, self.catalog) = (code, name, isRightToLeft, decimalSeparator, catalog)
    }

    /// The language of `catalog`, for `code`, as the catalog's header describes it
    /// (`X-Kiosk-Language-Name`, `X-Kiosk-Direction: rtl`, `X-Kiosk-Decimal-Separator`); without
    /// them, named by its code, left to right, a point.
    public init(code: String, catalog: MessageCatalog) {
        let h = catalog.header
        self.init(code: code, name: h["X-Kiosk-Language-Name"].flatMap { $0.isEmpty ? nil : $0 } ?? code,
                  isRightToLeft: h["X-Kiosk-Direction"] == "rtl",
                  decimalSeparator: h["X-Kiosk-Decimal-Separator"]?.first ?? ".", catalog: catalog)
    }

    public func hash(into h: inout Hasher) { h.combine(code) }

    public static let english = Language(code: "en", name: "English", isRightToLeft: false, decimalSeparator: ".")

    /// The language `name` means among `languages`: a code ("fr"), or a locale ("fr_FR.UTF-8",
    /// "fr-CA"); nil when there is none.
    public static func named(_ name: String, in languages: [Language]) -> Language? {
        let code = name.lowercased().prefix { $0.isLetter }
        return languages.first { $0.code == code }
    }

    /// The language of the locale in `environment` (LC_ALL, LC_MESSAGES, then LANG, as
    /// gettext reads them), else in the system's locale files' text (`/etc/locale.conf`,
    /// `/etc/default/locale`: a service may start with no locale or systemd's "C.UTF-8");
    /// English for "C", "POSIX", none, or one without a catalog.
    public static func fromLocale(_ environment: [String: String], files: [String] = [], in languages: [Language]) -> Language {
        let keys = ["LC_ALL", "LC_MESSAGES", "LANG"]
        func chosen(_ values: [String: String]) -> String? {
            keys.lazy.compactMap { values[$0] }.first { !$0.isEmpty && !isUnset($0) }
        }
        if let v = chosen(environment) { return named(v, in: languages) ?? english }
        for text in files {
            var values: [String: String] = [:]
            for line in text.split(separator: "\n") {
                let parts = line.split(separator: "=", maxSplits: 1)
                guard parts.count == 2 else { continue }
                let key = parts[0].trimmingSpaces, value = parts[1].trimmingSpaces.trimmingQuotes
                if keys.contains(key) { values[key] = value }
            }
            if let v = chosen(values) { return named(v, in: languages) ?? english }
        }
        return english
    }

    /// "C", "POSIX", "C.UTF-8": no language chosen.
    private static func isUnset(_ locale: String) -> Bool {
        let base = locale.prefix { $0 != "." }
        return base == "C" || base == "POSIX"
    }

    /// The name an operator's `[text]` table gives the form of a count `n` ("tiles.selected.few"):
    /// CLDR's categories, in the order gettext's catalogs number them for one, two and six forms
    /// (Japanese; English, French; Arabic), else English's.
    public func pluralCategory(_ n: Int) -> String {
        guard let plural = catalog?.plural else { return n == 1 ? "one" : "other" }
        switch plural.count {
        case 1: return "other"
        case 2: return plural.index(n) == 0 ? "one" : "other"
        case 6: return ["zero", "one", "two", "few", "many", "other"][min(5, plural.index(n))]
        default: return n == 1 ? "one" : "other"
        }
    }
}

/// The kiosk's own words in one language: every visible string by its key ("tiles.hint"),
/// from the operator's `[text]` table first, then the language's catalog, then English.
/// Placeholders are named in braces ("{n} selected"). Which keys there are, and their English,
/// is `table`'s: the whole kiosk's (`SceneCatalog.texts`), or a part's own for a part on its own.
public struct Texts: Equatable, Sendable {
    public let language: Language
    public let overrides: [String: String]
    /// The English texts by key this value looks up.
    public let table: TextCatalog

    public init(_ language: Language = .english, overrides: [String: String] = [:], table: TextCatalog = .empty) {
        self.language = language
        self.overrides = overrides
        self.table = table
    }

    /// The same language and overrides over another table.
    public func with(_ table: TextCatalog) -> Texts { Texts(language, overrides: overrides, table: table) }

    public static func == (a: Texts, b: Texts) -> Bool {
        a.language == b.language && a.overrides == b.overrides && a.table === b.table
    }

    public var isRightToLeft: Bool { language.isRightToLeft }

    /// The text for `key`; the key itself when no table has it (a bug a unit test catches).
    public subscript(key: String) -> String {
        self[key, default: key]
    }

    /// The text for `key`, else `fallback` where no table has it.
    public subscript(key: String, default fallback: String) -> String {
        let english = table.english[key]
        return overrides[key] ?? language.catalog.flatMap { c in english.flatMap { c.text(key, $0) } } ?? english ?? fallback
    }

    /// The text for `key` with its placeholders filled: `texts("lander.readout", ["fuel": "96"])`.
    public func callAsFunction(_ key: String, _ values: [String: String] = [:]) -> String {
        Texts.fill(self[key], values)
    }

    /// The form of `key` for the count `n` ("key.one", "key.other", …), `{n}` filled too.
    public func count(_ key: String, _ n: Int, _ values: [String: String] = [:]) -> String {
        Texts.fill(form(key, n), values.merging(["n": String(n)]) { a, _ in a })
    }

    /// The form of `key` for the count `n`, its placeholders unfilled: the operator's, else the
    /// catalog's by its own plural rule (context: the key; msgid: English's "one"), else English's.
    public func form(_ key: String, _ n: Int) -> String {
        let given = overrides["\(key).\(language.pluralCategory(n))"] ?? overrides["\(key).other"]
        if let given { return given }
        if let one = table.english["\(key).one"], let text = language.catalog?.text(key, one, count: n) { return text }
        return self["\(key).\(Language.english.pluralCategory(n))"]
    }

    /// `x` with `digits` decimals, written the language's way.
    public func decimal(_ x: Double, digits: Int) -> String {
        var scale = 1.0
        for _ in 0..<max(0, digits) { scale *= 10 }
        let r = (x * scale).rounded() / scale
        let whole = Int(r.magnitude)
        var s = (r < 0 && r != 0 ? "-" : "") + String(whole)
        if digits > 0 {
            let frac = Int(((r.magnitude - Double(whole)) * scale).rounded())
            let f = String(frac)
            s += String(language.decimalSeparator) + String(repeating: "0", count: max(0, digits - f.count)) + f
        }
        return s
    }

    /// One pass over the bytes: texts are formatted every frame (the lander's readout).
    static func fill(_ template: String, _ values: [String: String]) -> String {
        let bytes = template.utf8
        guard bytes.contains(UInt8(ascii: "{")) else { return template }
        var out = [UInt8]()
        out.reserveCapacity(bytes.count + 16)
        var i = bytes.startIndex
        while i != bytes.endIndex {
            let b = bytes[i]
            if b == UInt8(ascii: "{"), let close = bytes[i...].firstIndex(of: UInt8(ascii: "}")),
               let value = values[String(decoding: bytes[bytes.index(after: i)..<close], as: UTF8.self)] {
                out.append(contentsOf: value.utf8)
                i = bytes.index(after: close)
            } else {
                out.append(b)
                i = bytes.index(after: i)
            }
        }
        return String(decoding: out, as: UTF8.self)
    }
}

extension Substring {
    var trimmingSpaces: String {
        String(drop { $0 == " " || $0 == "\t" }.reversed().drop { $0 == " " || $0 == "\t" || $0 == "\r" }.reversed())
    }
}

extension String {
    /// Without one pair of surrounding quotes, as shell-style files write values.
    var trimmingQuotes: String {
        guard count >= 2, let f = first, f == "\"" || f == "'", last == f else { return self }
        return String(dropFirst().dropLast())
    }
}
