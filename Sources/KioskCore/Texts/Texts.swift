/// A language the kiosk writes its own words in: one of its own (`TextCatalog` has a table for
/// each), or one an operator added or retranslated with a gettext catalog (`catalog`).
public struct Language: Hashable, Sendable, CustomStringConvertible {
    /// ISO 639-1 code, as `[shell] language` and `LANG` name it.
    public let code: String
    /// The language's name in itself, as the visitors' language pill shows it.
    public let name: String
    public let isRightToLeft: Bool
    /// Between the whole and the fraction of a number ("1.5" or "1,5").
    public let decimalSeparator: Character
    /// An operator's catalog: its texts come first.
    public let catalog: MessageCatalog?

    public var description: String { code }

    public init(code: String, name: String, isRightToLeft: Bool, decimalSeparator: Character, catalog: MessageCatalog? = nil) {
        (self.code, self.name, self.isRightToLeft, self.decimalSeparator, self.catalog) = (code, name, isRightToLeft, decimalSeparator, catalog)
    }

    /// The language of `catalog`, for `code`: what the catalog's header says of it
    /// (`X-Kiosk-Language-Name`, `X-Kiosk-Direction: rtl`, `X-Kiosk-Decimal-Separator`), else
    /// what the kiosk knows of the code, else its code, left to right, a point.
    public init(code: String, catalog: MessageCatalog) {
        let own = Language.all.first { $0.code == code }, h = catalog.header
        self.init(code: code, name: h["X-Kiosk-Language-Name"].flatMap { $0.isEmpty ? nil : $0 } ?? own?.name ?? code,
                  isRightToLeft: h["X-Kiosk-Direction"].map { $0 == "rtl" } ?? own?.isRightToLeft ?? false,
                  decimalSeparator: h["X-Kiosk-Decimal-Separator"]?.first ?? own?.decimalSeparator ?? ".", catalog: catalog)
    }

    public func hash(into h: inout Hasher) { h.combine(code) }

    public static let english = Language(code: "en", name: "English", isRightToLeft: false, decimalSeparator: ".")
    public static let all: [Language] = [
        english,
        Language(code: "de", name: "Deutsch", isRightToLeft: false, decimalSeparator: ","),
        Language(code: "fr", name: "Français", isRightToLeft: false, decimalSeparator: ","),
        Language(code: "es", name: "Español", isRightToLeft: false, decimalSeparator: ","),
        Language(code: "ja", name: "日本語", isRightToLeft: false, decimalSeparator: "."),
        Language(code: "ar", name: "العربية", isRightToLeft: true, decimalSeparator: "."),
    ]
    public static var codes: [String] { all.map(\.code) }

    /// The language `name` means among `languages`: a code ("fr"), or a locale ("fr_FR.UTF-8",
    /// "fr-CA"); nil when there is none.
    public static func named(_ name: String, in languages: [Language] = all) -> Language? {
        let code = name.lowercased().prefix { $0.isLetter }
        return languages.first { $0.code == code }
    }

    /// The language of the locale in `environment` (LC_ALL, LC_MESSAGES, then LANG, as
    /// gettext reads them), else in the system's locale files' text (`/etc/locale.conf`,
    /// `/etc/default/locale`: a service may start with no locale or systemd's "C.UTF-8");
    /// English for "C", "POSIX", none, or one without a table.
    public static func fromLocale(_ environment: [String: String], files: [String] = [], in languages: [Language] = all) -> Language {
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

    /// CLDR's cardinal plural category of `n` ("zero", "one", "two", "few", "many", "other").
    public func pluralCategory(_ n: Int) -> String {
        switch code {
        case "ja": return "other"
        case "fr": return n == 0 || n == 1 ? "one" : "other"
        case "ar":
            let r = n % 100
            switch n {
            case 0: return "zero"
            case 1: return "one"
            case 2: return "two"
            default: return (3...10).contains(r) ? "few" : (11...99).contains(r) ? "many" : "other"
            }
        default: return n == 1 ? "one" : "other"
        }
    }
}

/// The kiosk's own words in one language: every visible string by its key ("tiles.hint"),
/// from the operator's `[text]` table first, then the language's table, then English.
/// Placeholders are named in braces ("{n} selected").
public struct Texts: Equatable, Sendable {
    public let language: Language
    public let overrides: [String: String]

    public init(_ language: Language = .english, overrides: [String: String] = [:]) {
        self.language = language
        self.overrides = overrides
    }

    public var isRightToLeft: Bool { language.isRightToLeft }

    /// The text for `key`; the key itself when no table has it (a bug a unit test catches).
    public subscript(key: String) -> String {
        self[key, default: key]
    }

    /// The text for `key`, else `fallback` where no table has it (a scene a test adds).
    public subscript(key: String, default fallback: String) -> String {
        overrides[key] ?? language.catalog.flatMap { c in TextCatalog.english[key].flatMap { c.text(key, $0) } } ?? TextCatalog.table(language.code)[key]
            ?? TextCatalog.english[key] ?? fallback
    }

    /// The text for `key` with its placeholders filled: `texts("lander.readout", ["fuel": "96"])`.
    public func callAsFunction(_ key: String, _ values: [String: String] = [:]) -> String {
        Texts.fill(self[key], values)
    }

    /// The form of `key` for the count `n` ("key.one", "key.other", …), `{n}` filled too.
    public func count(_ key: String, _ n: Int, _ values: [String: String] = [:]) -> String {
        Texts.fill(form(key, n), values.merging(["n": String(n)]) { a, _ in a })
    }

    /// The form of `key` for the count `n`, its placeholders unfilled.
    public func form(_ key: String, _ n: Int) -> String {
        let form = "\(key).\(language.pluralCategory(n))"
        // An operator's catalog, by its own plural rule (context: the key; msgid: English's "one").
        if overrides[form] == nil, overrides["\(key).other"] == nil, let one = TextCatalog.english["\(key).one"],
           let text = language.catalog?.text(key, one, count: n) {
            return text
        }
        let has = { (k: String) in overrides[k] != nil || TextCatalog.table(language.code)[k] != nil }
        let chosen = has(form) ? form : has("\(key).other") ? "\(key).other" : "\(key).\(Language.english.pluralCategory(n))"
        return self[chosen]
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

/// The shipped tables, and the checks an operator's `[text]` table goes through.
public enum TextCatalog {
    public static func table(_ code: String) -> [String: String] {
        switch code {
        case "de": return german
        case "fr": return french
        case "es": return spanish
        case "ja": return japanese
        case "ar": return arabic
        default: return english
        }
    }

    /// Every key a text may be given under (English has them all).
    public static var keys: [String] { english.keys.sorted() }

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
    public static func problem(key: String, value: String) -> String? {
        guard let english = english[key] else {
            let forms = keys.filter { $0.hasPrefix(key + ".") }
            if !forms.isEmpty, forms.allSatisfy({ pluralForms.contains(String($0.dropFirst(key.count + 1))) }) {
                return "text '\(key)' depends on a count: give its forms (\(forms.joined(separator: ", "))); using the kiosk's own"
            }
            let near = nearest(to: key).map { " (did you mean '\($0)'?)" } ?? ""
            return "unknown text '\(key)'\(near); see kiosk.toml(5) for the list"
        }
        let wanted = placeholders(english), given = placeholders(value)
        if let extra = given.subtracting(wanted).sorted().first {
            let has = wanted.isEmpty ? "it has none" : "it has " + wanted.sorted().map { "{\($0)}" }.joined(separator: ", ")
            return "text '\(key)' uses {\(extra)}, which the kiosk does not fill (\(has)); using the kiosk's own"
        }
        return nil
    }

    public static let pluralForms: Set<String> = ["zero", "one", "two", "few", "many", "other"]

    /// The known key closest to `key` in edit distance, if it is close (a typo).
    static func nearest(to key: String) -> String? {
        let best = keys.map { ($0, editDistance(Array($0), Array(key))) }.min { $0.1 < $1.1 }
        return best.flatMap { $0.1 <= max(2, key.count / 5) ? $0.0 : nil }
    }

    static func editDistance(_ a: [Character], _ b: [Character]) -> Int {
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
