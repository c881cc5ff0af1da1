/// One language's messages as gettext keeps them: a `.mo` file as msgfmt compiles it, or a
/// `.po` file as translators edit it (an operator may drop either). A message is found by its
/// context (the kiosk's text key) and its English text; a count's form by the catalog's own
/// `Plural-Forms` rule. Fuzzy entries count as untranslated, as gettext has them.
public struct MessageCatalog: Sendable, Equatable {
    /// The forms of each translated message, by context and English text ("ctxt\u{4}msgid").
    public private(set) var messages: [String: [String]] { didSet { byContext = Self.index(messages) } }
    /// The same by context alone, with the English: found without building a key (a text may be
    /// looked up every frame).
    private var byContext: [String: Message]
    /// The contexts (else English) of a .po file's fuzzy entries: msgmerge marked them, their
    /// English changed; left out of `messages`. (msgfmt leaves them out of a .mo.)
    public private(set) var fuzzy: [String] = []
    /// The header's fields ("Language", "Plural-Forms").
    public let header: [String: String]
    public let plural: PluralRule

    public init(messages: [String: [String]], header: [String: String] = [:]) throws(CatalogError) {
        self.messages = messages
        byContext = Self.index(messages)
        self.header = header
        if let forms = header["Plural-Forms"] {
            guard let rule = PluralRule(header: forms) else { throw CatalogError(line: 0, message: "Plural-Forms \"\(forms)\" cannot be read") }
            plural = rule
        } else {
            plural = .germanic
        }
    }

    /// Without the messages `keys` names (a translation that cannot be used).
    public func removing(_ keys: Set<String>) -> MessageCatalog {
        var c = self
        for k in keys { c.messages[k] = nil }
        return c
    }

    /// This catalog laid over `base` (an operator's retranslation over the package's): its
    /// messages and header fields first, the base's where it has none. The base's counted
    /// messages only when both count alike: their forms are numbered by the rule.
    public func over(_ base: MessageCatalog) throws(CatalogError) -> MessageCatalog {
        let given = header.filter { !$0.value.isEmpty && !$0.value.contains("INTEGER") }
        var c = try MessageCatalog(messages: base.messages, header: base.header.merging(given) { _, mine in mine })
        if c.plural != base.plural { c.messages = c.messages.filter { $0.value.count == 1 } }
        c.messages.merge(messages) { _, mine in mine }
        c.fuzzy = fuzzy
        return c
    }

    struct Message: Equatable, Sendable {
        var msgid: String
        var forms: [String]
    }

    private static func index(_ messages: [String: [String]]) -> [String: Message] {
        var out: [String: Message] = [:]
        for (key, forms) in messages {
            let parts = key.split(separator: "\u{4}", maxSplits: 1, omittingEmptySubsequences: false)
            if parts.count == 2 { out[String(parts[0])] = Message(msgid: String(parts[1]), forms: forms) }
        }
        return out
    }

    private func forms(_ context: String?, _ msgid: String) -> [String]? {
        if let context, let m = byContext[context] { return m.msgid == msgid ? m.forms : messages[Self.key(context, msgid)] }
        return messages[Self.key(context, msgid)]
    }

    public static func key(_ context: String?, _ msgid: String) -> String { context.map { $0 + "\u{4}" + msgid } ?? msgid }

    /// The translation of `msgid` in `context`, nil when there is none (or it is empty).
    public func text(_ context: String?, _ msgid: String) -> String? {
        forms(context, msgid)?.first.flatMap { $0.isEmpty ? nil : $0 }
    }

    /// The form of a counted message for `n`, by the catalog's rule.
    public func text(_ context: String?, _ msgid: String, count n: Int) -> String? {
        guard let forms = forms(context, msgid) else { return nil }
        let i = plural.index(n)
        return forms.indices.contains(i) && !forms[i].isEmpty ? forms[i] : nil
    }

    public struct CatalogError: Error, Equatable, CustomStringConvertible, Sendable {
        /// 1-based in a .po file; 0 for the file as a whole.
        public var line: Int
        public var message: String
        public var description: String { line > 0 ? "\(line): \(message)" : message }
    }
}

// MARK: The compiled form (.mo)

extension MessageCatalog {
    /// A `.mo` file: either byte order, its strings as UTF-8.
    public static func read(mo bytes: [UInt8]) throws(CatalogError) -> MessageCatalog {
        func word(_ at: Int, swapped: Bool) throws(CatalogError) -> Int {
            guard at >= 0, at + 4 <= bytes.count else { throw CatalogError(line: 0, message: "a .mo file cut short") }
            var value: UInt32 = 0
            for i in 0..<4 {
                let byte = UInt32(bytes[at + (swapped ? i : 3 - i)])
                value = value << 8 | byte
            }
            return Int(value)
        }
        guard bytes.count >= 28 else { throw CatalogError(line: 0, message: "not a .mo file (too short)") }
        let magic = try word(0, swapped: false)
        guard magic == 0x9504_12DE || magic == 0xDE12_0495 else { throw CatalogError(line: 0, message: "not a .mo file (no gettext magic number)") }
        let swapped = magic == 0xDE12_0495
        guard try word(4, swapped: swapped) >> 16 == 0 else { throw CatalogError(line: 0, message: "a .mo file of an unknown major revision") }
        let count = try word(8, swapped: swapped), originals = try word(12, swapped: swapped), translations = try word(16, swapped: swapped)
        guard count <= bytes.count / 16 else { throw CatalogError(line: 0, message: "a .mo file with more messages than bytes") }
        func string(_ table: Int, _ i: Int) throws(CatalogError) -> String {
            let length = try word(table + 8 * i, swapped: swapped), offset = try word(table + 8 * i + 4, swapped: swapped)
            guard offset >= 0, length >= 0, offset + length <= bytes.count else { throw CatalogError(line: 0, message: "a .mo file whose string \(i) lies outside it") }
            return String(decoding: bytes[offset..<offset + length], as: UTF8.self)
        }
        var messages: [String: [String]] = [:], header: [String: String] = [:]
        for i in 0..<count {
            let original = try string(originals, i), translated = try string(translations, i)
            // "msgid\0msgid_plural": found by the singular.
            let id = String(original.split(separator: "\0", maxSplits: 1, omittingEmptySubsequences: false)[0])
            if id.isEmpty { header = parseHeader(translated); continue }
            messages[id] = translated.split(separator: "\0", omittingEmptySubsequences: false).map(String.init)
        }
        return try MessageCatalog(messages: messages, header: header)
    }

    /// "Name: value" lines.
    static func parseHeader(_ text: String) -> [String: String] {
        var fields: [String: String] = [:]
        for line in text.split(separator: "\n") {
            guard let colon = line.firstIndex(of: ":") else { continue }
            fields[line[..<colon].trimmingSpaces] = line[line.index(after: colon)...].trimmingSpaces
        }
        return fields
    }
}

// MARK: The source form (.po)

extension MessageCatalog {
    /// One entry of a `.po` file as written, for the reader and for checks (`PoFile`).
    public struct Entry: Equatable, Sendable {
        public var line = 0
        public var comments: [String] = []
        public var flags: Set<String> = []
        public var context: String?
        public var msgid = ""
        public var msgidPlural: String?
        public var msgstr: [String] = []
        public var isFuzzy: Bool { flags.contains("fuzzy") }
    }

    /// The entries of `.po` text (the header first, with its empty msgid); obsolete ones (`#~`) left out.
    public static func entries(po text: String) throws(CatalogError) -> [Entry] {
        var entries: [Entry] = [], current = Entry(), started = false
        var field: String?, plural = 0
        func finish() {
            if started { entries.append(current) }
            current = Entry()
            started = false
            field = nil
        }
        for (n, raw) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let line = raw.hasSuffix("\r") ? raw.dropLast() : raw[...]
            let number = n + 1
            if line.trimmingSpaces.isEmpty { if started { finish() }; continue }
            if line.hasPrefix("#~") { continue }
            if line.hasPrefix("#") {
                if started && field != nil { finish() }
                if line.hasPrefix("#,") {
                    current.flags.formUnion(line.dropFirst(2).split(separator: ",").map { $0.trimmingSpaces })
                } else if line.hasPrefix("#.") {
                    current.comments.append(line.dropFirst(2).trimmingSpaces)
                }
                if current.line == 0 { current.line = number }
                continue
            }
            let (keyword, rest) = splitKeyword(line)
            let value = try quoted(rest, line: number)
            switch keyword {
            case "":
                guard let f = field else { throw CatalogError(line: number, message: "a string that continues nothing") }
                append(value, to: f, plural: plural, in: &current)
            case "msgctxt", "msgid":
                if started && (field == "msgstr" || keyword == "msgctxt" || field == "msgid") { finish() }
                if current.line == 0 { current.line = number }
                started = true
                field = keyword
                if keyword == "msgctxt" { current.context = value } else { current.msgid = value }
            case "msgid_plural":
                guard started else { throw CatalogError(line: number, message: "msgid_plural without a msgid") }
                field = keyword
                current.msgidPlural = value
            default:
                guard started else { throw CatalogError(line: number, message: "\(keyword) without a msgid") }
                if keyword == "msgstr" { plural = 0 } else if keyword.hasPrefix("msgstr["), keyword.hasSuffix("]"), let i = Int(keyword.dropFirst(7).dropLast()), (0..<100).contains(i) {
                    plural = i
                } else { throw CatalogError(line: number, message: "unknown keyword '\(keyword)'") }
                field = "msgstr"
                while current.msgstr.count <= plural { current.msgstr.append("") }
                current.msgstr[plural] = value
            }
        }
        finish()
        return entries
    }

    /// A `.po` file's translated messages (not fuzzy, not empty) and its header.
    public static func read(po text: String) throws(CatalogError) -> MessageCatalog {
        var messages: [String: [String]] = [:], header: [String: String] = [:], fuzzy: [String] = []
        for e in try entries(po: text) {
            if e.msgid.isEmpty && e.context == nil { header = parseHeader(e.msgstr.first ?? ""); continue }
            if e.isFuzzy { fuzzy.append(e.context ?? e.msgid) }
            guard !e.isFuzzy, e.msgstr.contains(where: { !$0.isEmpty }) else { continue }
            messages[key(e.context, e.msgid)] = e.msgstr
        }
        var catalog = try MessageCatalog(messages: messages, header: header)
        catalog.fuzzy = fuzzy
        return catalog
    }

    private static func append(_ value: String, to field: String, plural: Int, in e: inout Entry) {
        switch field {
        case "msgctxt": e.context = (e.context ?? "") + value
        case "msgid": e.msgid += value
        case "msgid_plural": e.msgidPlural = (e.msgidPlural ?? "") + value
        default: e.msgstr[plural] += value
        }
    }

    private static func splitKeyword(_ line: Substring) -> (String, Substring) {
        let trimmed = line.drop { $0 == " " || $0 == "\t" }
        guard !trimmed.hasPrefix("\"") else { return ("", trimmed) }
        let keyword = trimmed.prefix { $0 != " " && $0 != "\t" && $0 != "\"" }
        return (String(keyword), trimmed.dropFirst(keyword.count))
    }

    /// The C string in `text` ("…" with \n, \t, \", \\ and the rest of C's escapes).
    private static func quoted(_ text: Substring, line: Int) throws(CatalogError) -> String {
        let t = text.trimmingSpaces
        guard t.count >= 2, t.first == "\"", t.last == "\"" else { throw CatalogError(line: line, message: "a string in double quotes expected") }
        var out = [UInt8](), bytes = Array(t.utf8.dropFirst().dropLast()), i = 0
        while i < bytes.count {
            let b = bytes[i]
            i += 1
            if b == UInt8(ascii: "\"") { throw CatalogError(line: line, message: "a double quote inside a string must be written \\\"") }
            guard b == UInt8(ascii: "\\") else { out.append(b); continue }
            guard i < bytes.count else { throw CatalogError(line: line, message: "a string ending in a backslash") }
            let e = bytes[i]
            i += 1
            switch e {
            case UInt8(ascii: "n"): out.append(10)
            case UInt8(ascii: "t"): out.append(9)
            case UInt8(ascii: "r"): out.append(13)
            case UInt8(ascii: "a"): out.append(7)
            case UInt8(ascii: "b"): out.append(8)
            case UInt8(ascii: "f"): out.append(12)
            case UInt8(ascii: "v"): out.append(11)
            case UInt8(ascii: "\\"), UInt8(ascii: "\""), UInt8(ascii: "'"), UInt8(ascii: "?"): out.append(e)
            case UInt8(ascii: "0")...UInt8(ascii: "7"):
                var v = Int(e - 48), n = 1
                while n < 3, i < bytes.count, (48...55).contains(bytes[i]) { v = v * 8 + Int(bytes[i] - 48); i += 1; n += 1 }
                out.append(UInt8(v & 0xFF))
            default: throw CatalogError(line: line, message: "unknown escape \\\(Character(Unicode.Scalar(e)))")
            }
        }
        return String(decoding: out, as: UTF8.self)
    }
}

// MARK: Plural forms

/// A catalog's `Plural-Forms` rule: `nplurals=N; plural=EXPR;` with EXPR in C over n, as
/// gettext evaluates it (Arabic's six forms, Japanese's one, English's two).
public struct PluralRule: Sendable, Equatable {
    public let count: Int
    let expression: Expression

    /// English, German, French's neighbours: one form for 1, another for the rest.
    public static let germanic = PluralRule(count: 2, expression: .binary("!=", .n, .number(1)))

    init(count: Int, expression: Expression) {
        self.count = count
        self.expression = expression
    }

    /// The rule a header's `Plural-Forms` value states, nil when it cannot be read.
    public init?(header: String) {
        var count: Int?, expr: Expression?
        for part in header.split(separator: ";") {
            let kv = part.split(separator: "=", maxSplits: 1)
            guard kv.count == 2 else { continue }
            switch kv[0].trimmingSpaces {
            case "nplurals": count = Int(kv[1].trimmingSpaces)
            case "plural": expr = Expression.parse(String(kv[1]))
            default: continue
            }
        }
        guard let count, (1...6).contains(count), let expr else { return nil }
        self.count = count
        expression = expr
    }

    /// The form for `n` (always one of the rule's forms).
    public func index(_ n: Int) -> Int { min(max(0, expression.value(n)), count - 1) }

    indirect enum Expression: Sendable, Equatable {
        case n
        case number(Int)
        case not(Expression)
        case binary(String, Expression, Expression)
        case choice(Expression, Expression, Expression)

        func value(_ n: Int) -> Int {
            switch self {
            case .n: return n
            case .number(let v): return v
            case .not(let e): return e.value(n) == 0 ? 1 : 0
            case .choice(let c, let a, let b): return c.value(n) != 0 ? a.value(n) : b.value(n)
            case .binary(let op, let a, let b):
                let x = a.value(n)
                // Short-circuit as C does.
                if op == "&&" { return x != 0 && b.value(n) != 0 ? 1 : 0 }
                if op == "||" { return x != 0 || b.value(n) != 0 ? 1 : 0 }
                let y = b.value(n)
                switch op {
                case "==": return x == y ? 1 : 0
                case "!=": return x != y ? 1 : 0
                case "<": return x < y ? 1 : 0
                case ">": return x > y ? 1 : 0
                case "<=": return x <= y ? 1 : 0
                case ">=": return x >= y ? 1 : 0
                case "+": return x &+ y
                case "-": return x &- y
                case "*": return x &* y
                case "/": return y == 0 ? 0 : x / y
                case "%": return y == 0 ? 0 : x % y
                default: return 0
                }
            }
        }

        /// C's grammar for these operators, lowest precedence first.
        static func parse(_ text: String) -> Expression? {
            var p = Parser(tokens: tokens(text))
            guard let e = p.ternary(), p.at == p.tokens.count else { return nil }
            return e
        }

        private static func tokens(_ text: String) -> [String] {
            var out: [String] = [], chars = Array(text), i = 0
            while i < chars.count {
                let c = chars[i]
                if c == " " || c == "\t" || c == "\n" { i += 1; continue }
                if c.isNumber {
                    var j = i
                    while j < chars.count, chars[j].isNumber { j += 1 }
                    out.append(String(chars[i..<j]))
                    i = j
                    continue
                }
                let two = i + 1 < chars.count ? String(chars[i...i + 1]) : ""
                if ["==", "!=", "<=", ">=", "&&", "||"].contains(two) { out.append(two); i += 2; continue }
                out.append(String(c))
                i += 1
            }
            return out
        }

        private struct Parser {
            let tokens: [String]
            var at = 0
            private var peek: String? { at < tokens.count ? tokens[at] : nil }
            private mutating func take(_ t: String) -> Bool { if peek == t { at += 1; return true }; return false }

            mutating func ternary() -> Expression? {
                guard let c = binary(0) else { return nil }
                guard take("?") else { return c }
                guard let a = ternary(), take(":"), let b = ternary() else { return nil }
                return .choice(c, a, b)
            }

            private static let levels: [[String]] = [["||"], ["&&"], ["==", "!="], ["<", ">", "<=", ">="], ["+", "-"], ["*", "/", "%"]]

            private mutating func binary(_ level: Int) -> Expression? {
                guard level < Self.levels.count else { return unary() }
                guard var left = binary(level + 1) else { return nil }
                while let op = peek, Self.levels[level].contains(op) {
                    at += 1
                    guard let right = binary(level + 1) else { return nil }
                    left = .binary(op, left, right)
                }
                return left
            }

            private mutating func unary() -> Expression? {
                if take("!") { return unary().map { .not($0) } }
                if take("(") {
                    guard let e = ternary(), take(")") else { return nil }
                    return e
                }
                guard let t = peek else { return nil }
                at += 1
                if t == "n" { return .n }
                return Int(t).map { .number($0) }
            }
        }
    }
}
