/// A TOML 1.0 reader for settings files, written for a kiosk: any bytes in, a document or one
/// error with its line and column out — never a trap, never a hang, bounded work and memory.
///
/// Why our own: TOMLKit's bundled toml++ aborts the process on some malformed documents
/// (internal assertions such as `is_bare_key_character` on `[#]`), and a settings file pushed to a
/// fleet must not be able to take panels down. Every value keeps where it was written, so a
/// setting with a bad value is reported at the value and an unknown one at its key.
///
/// Beyond TOML 1.0, as limits: the file must be UTF-8 without NUL (also as `\u0000`), at most
/// `Limits.maxBytes`, arrays and inline tables nested at most `maxDepth` deep, strings at most
/// `maxStringBytes` long. A leading byte order mark is skipped (and reported by the caller).
package enum TOML {
    package struct Position: Equatable, Comparable, CustomStringConvertible {
        package var line: Int
        package var column: Int
        package var description: String { "\(line):\(column)" }
        package static func < (a: Position, b: Position) -> Bool { (a.line, a.column) < (b.line, b.column) }
    }

    package struct ParseError: Error, Equatable, CustomStringConvertible {
        package var position: Position
        package var message: String
        package var description: String { "\(position): \(message)" }
    }

    package struct Limits {
        package var maxBytes: Int
        package var maxDepth: Int
        package var maxStringBytes: Int
        package init(maxBytes: Int = 256 * 1024, maxDepth: Int = 32, maxStringBytes: Int = 64 * 1024) {
            self.maxBytes = maxBytes
            self.maxDepth = maxDepth
            self.maxStringBytes = maxStringBytes
        }
    }

    /// A date and/or time as written (offset date-time, local date-time, local date, local time).
    package struct DateTime: Equatable {
        package var year: Int?, month: Int?, day: Int?
        package var hour: Int?, minute: Int?, second: Int?
        package var nanosecond = 0
        /// Minutes east of UTC; nil for local times.
        package var offsetMinutes: Int?
    }

    package indirect enum Value: Equatable {
        case string(String)
        case integer(Int64)
        case float(Double)
        case bool(Bool)
        case dateTime(DateTime)
        case array([Node])
        case table(Table)

        package static func == (a: Value, b: Value) -> Bool {
            switch (a, b) {
            case let (.string(x), .string(y)): return x == y
            case let (.integer(x), .integer(y)): return x == y
            case let (.float(x), .float(y)): return x == y || (x.isNaN && y.isNaN)
            case let (.bool(x), .bool(y)): return x == y
            case let (.dateTime(x), .dateTime(y)): return x == y
            case let (.array(x), .array(y)): return x.map(\.value) == y.map(\.value)
            case let (.table(x), .table(y)): return x.keys == y.keys && x.keys.allSatisfy { x[$0]!.value == y[$0]!.value }
            default: return false
            }
        }
    }

    /// A value and where it was written: `position` at the value, `keyPosition` at its key (for
    /// a table: at its header, or the first key that made it).
    package struct Node {
        package var value: Value
        package var position: Position
        package var keyPosition: Position

        package var string: String? { if case .string(let s) = value { return s }; return nil }
        package var int: Int? { if case .integer(let i) = value { return Int(exactly: i) }; return nil }
        package var double: Double? { if case .float(let d) = value { return d }; return nil }
        package var bool: Bool? { if case .bool(let b) = value { return b }; return nil }
        package var array: [Node]? { if case .array(let a) = value { return a }; return nil }
        package var table: Table? { if case .table(let t) = value { return t }; return nil }
    }

    /// A table: its keys in the order they were written.
    package final class Table {
        package enum Kind { case root, explicit, implicit, dotted, inline }
        package fileprivate(set) var keys: [String] = []
        private var entries: [String: Node] = [:]
        fileprivate var kind: Kind
        /// Arrays made by `[[header]]`, the only arrays headers may add to.
        fileprivate var tableArrays: Set<String> = []

        package init(kind: Kind) { self.kind = kind }

        package subscript(key: String) -> Node? { entries[key] }

        fileprivate func set(_ key: String, _ node: Node) {
            if entries[key] == nil { keys.append(key) }
            entries[key] = node
        }

        /// Appends to the array at `key` without copying it (thousands of `[[x]]` stay linear).
        fileprivate func append(_ element: Node, toArray key: String) {
            guard var node = entries.removeValue(forKey: key), case .array(var items) = node.value else { return }
            node.value = .bool(false) // drop the node's reference so `items` is the only one
            items.append(element)
            node.value = .array(items)
            entries[key] = node
        }
    }

    /// Parses a whole document.
    package static func parse(_ bytes: [UInt8], limits: Limits = Limits()) throws(ParseError) -> Table {
        var p = Parser(bytes: bytes, limits: limits)
        return try p.document()
    }
}

// MARK: - The parser

private struct Parser {
    typealias ParseError = TOML.ParseError
    typealias Node = TOML.Node
    typealias Table = TOML.Table

    let b: [UInt8]
    let limits: TOML.Limits
    var i = 0
    var depth = 0
    let root = Table(kind: .root)
    let positions: PositionIndex

    init(bytes: [UInt8], limits: TOML.Limits) {
        b = bytes
        self.limits = limits
        positions = PositionIndex(b)
    }

    // MARK: Positions and errors

    /// Line and column (in characters, 1-based) of byte offset `at`. CRLF is one line break.
    func position(_ at: Int) -> TOML.Position { positions.position(at, in: b) }

    func fail(_ message: String, at: Int? = nil) -> ParseError {
        ParseError(position: position(at ?? i), message: message)
    }

    /// A character for messages: printable as itself, otherwise as U+XXXX.
    func describe(_ at: Int) -> String {
        guard at < b.count else { return "the end of the file" }
        let c = b[at]
        if c >= 0x21 && c < 0x7F { return "'\(Character(Unicode.Scalar(c)))'" }
        switch c {
        case 0x20: return "a space"
        case 0x09: return "a tab"
        case 0x0A: return "the end of the line"
        case 0x0D: return "a carriage return"
        default:
            if c < 0x80 { return "the control character U+\(hex(Int(c), 4))" }
            guard let (s, _) = scalar(at) else { return "a byte that is not UTF-8" }
            switch s.properties.generalCategory {
            case .format, .control, .spaceSeparator, .lineSeparator, .paragraphSeparator, .privateUse, .unassigned,
                 .nonspacingMark, .enclosingMark, .spacingMark:
                return s.value == 0xFEFF ? "a byte order mark (U+FEFF)" : "the invisible character U+\(hex(Int(s.value), 4))"
            default:
                return "'\(Character(s))'"
            }
        }
    }

    func hex(_ v: Int, _ width: Int) -> String {
        let s = String(v, radix: 16, uppercase: true)
        return String(repeating: "0", count: max(0, width - s.count)) + s
    }

    // MARK: Bytes

    var atEnd: Bool { i >= b.count }
    func peek(_ o: Int = 0) -> UInt8? { i + o < b.count ? b[i + o] : nil }
    func at(_ s: String, _ o: Int = 0) -> Bool {
        var k = i + o
        for c in s.utf8 {
            guard k < b.count, b[k] == c else { return false }
            k += 1
        }
        return true
    }

    /// The Unicode scalar at `at` and its length, if the bytes there are valid UTF-8.
    func scalar(_ at: Int) -> (Unicode.Scalar, Int)? {
        guard at < b.count else { return nil }
        let c0 = b[at]
        if c0 < 0x80 { return (Unicode.Scalar(c0), 1) }
        let n: Int, minimum: UInt32
        var v: UInt32
        switch c0 {
        case 0xC2...0xDF: n = 2; v = UInt32(c0 & 0x1F); minimum = 0x80
        case 0xE0...0xEF: n = 3; v = UInt32(c0 & 0x0F); minimum = 0x800
        case 0xF0...0xF4: n = 4; v = UInt32(c0 & 0x07); minimum = 0x10000
        default: return nil
        }
        guard at + n <= b.count else { return nil }
        for k in 1..<n {
            let c = b[at + k]
            guard c & 0xC0 == 0x80 else { return nil }
            v = v << 6 | UInt32(c & 0x3F)
        }
        guard v >= minimum, let s = Unicode.Scalar(v) else { return nil }
        return (s, n)
    }

    /// Whole-file checks first: UTF-8 only, no NUL, size.
    func validate() throws(ParseError) {
        guard b.count <= limits.maxBytes else {
            throw ParseError(position: TOML.Position(line: 1, column: 1),
                             message: "the file is \(b.count / 1024) KiB; settings files may be at most \(limits.maxBytes / 1024) KiB")
        }
        var k = 0
        while k < b.count {
            if b[k] == 0 { throw fail("NUL characters are not allowed", at: k) }
            if b[k] < 0x80 { k += 1; continue }
            guard let (_, n) = scalar(k) else { throw fail("the file is not valid UTF-8 here", at: k) }
            k += n
        }
    }

    // MARK: Whitespace, comments, line ends

    mutating func skipSpaces() {
        while let c = peek(), c == 0x20 || c == 0x09 { i += 1 }
    }

    /// A comment (from `#` to the end of the line), which may hold no control characters.
    mutating func skipComment() throws(ParseError) {
        guard peek() == UInt8(ascii: "#") else { return }
        i += 1
        while let c = peek(), c != 0x0A {
            if c == 0x0D && peek(1) == 0x0A { break }
            if (c < 0x20 && c != 0x09) || c == 0x7F { throw fail("control character U+\(hex(Int(c), 4)) in a comment") }
            i += 1
        }
    }

    /// Consumes a line break; false if there is none here.
    mutating func newline() -> Bool {
        if peek() == 0x0A { i += 1; return true }
        if peek() == 0x0D && peek(1) == 0x0A { i += 2; return true }
        return false
    }

    /// After an expression: spaces, a comment, then the end of the line or file.
    mutating func endOfLine() throws(ParseError) {
        skipSpaces()
        try skipComment()
        if atEnd || newline() { return }
        throw fail("expected the end of the line, found \(describe(i))")
    }

    /// Spaces, comments and line breaks (inside arrays).
    mutating func skipBlank() throws(ParseError) {
        while true {
            skipSpaces()
            try skipComment()
            if !newline() { return }
        }
    }

    // MARK: Document

    mutating func document() throws(ParseError) -> Table {
        try validate()
        if at("\u{FEFF}") { i += 3 }
        var current = root
        while true {
            try skipBlank()
            if atEnd { return root }
            let start = i
            if peek() == UInt8(ascii: "[") {
                if peek(1) == UInt8(ascii: "[") {
                    i += 2
                    skipSpaces()
                    let path = try key()
                    skipSpaces()
                    guard at("]]") else { throw fail("expected ']]' to close the array-of-tables header, found \(describe(i))") }
                    i += 2
                    current = try appendArrayTable(path, at: start)
                } else {
                    i += 1
                    skipSpaces()
                    let path = try key()
                    skipSpaces()
                    guard peek() == UInt8(ascii: "]") else { throw fail("expected ']' to close the table header, found \(describe(i))") }
                    i += 1
                    current = try defineTable(path, at: start)
                }
                try endOfLine()
            } else {
                try keyValue(into: current)
                try endOfLine()
            }
        }
    }

    typealias KeyPart = (name: String, at: Int)

    /// A dotted key: bare, "basic" or 'literal' parts joined by dots (spaces allowed around them).
    mutating func key() throws(ParseError) -> [KeyPart] {
        var parts: [KeyPart] = []
        while true {
            let start = i
            guard let c = peek() else { throw fail("expected a key, found the end of the file") }
            let name: String
            if c == UInt8(ascii: "\"") {
                guard !at("\"\"\"") else { throw fail("a key cannot be a multi-line string") }
                name = try basicString()
            } else if c == UInt8(ascii: "'") {
                guard !at("'''") else { throw fail("a key cannot be a multi-line string") }
                name = try literalString()
            } else {
                var k = i
                while k < b.count, isBareKey(b[k]) { k += 1 }
                guard k > i else { throw fail("expected a key (letters, digits, '_', '-', or a quoted name), found \(describe(i))") }
                name = String(decoding: b[i..<k], as: UTF8.self)
                i = k
            }
            parts.append((name, start))
            skipSpaces()
            guard peek() == UInt8(ascii: ".") else { return parts }
            i += 1
            skipSpaces()
        }
    }

    func isBareKey(_ c: UInt8) -> Bool {
        (c >= 0x41 && c <= 0x5A) || (c >= 0x61 && c <= 0x7A) || (c >= 0x30 && c <= 0x39) || c == 0x5F || c == 0x2D
    }

    func dotted(_ path: [KeyPart], upTo n: Int? = nil) -> String {
        path.prefix(n ?? path.count).map { part in
            part.name.utf8.allSatisfy(isBareKey) && !part.name.isEmpty ? part.name : "\"\(part.name)\""
        }.joined(separator: ".")
    }

    /// `key = value` into `table`, making the tables of a dotted key on the way.
    mutating func keyValue(into table: Table) throws(ParseError) {
        let keyStart = i
        let path = try key()
        guard peek() == UInt8(ascii: "=") else {
            throw fail(atEnd || peek() == 0x0A || peek() == 0x0D
                       ? "expected '=' and a value after the key '\(dotted(path))'"
                       : "expected '=' after the key '\(dotted(path))', found \(describe(i))")
        }
        i += 1
        skipSpaces()
        let valueStart = i
        let value = try self.value()
        var t = table
        for (n, part) in path.dropLast().enumerated() {
            if let existing = t[part.name] {
                guard let sub = existing.table, sub.kind == .dotted else {
                    let what = existing.table.map { $0.kind == .inline ? "as an inline table" : "as a table elsewhere" } ?? "as \(describeKind(existing, in: t, part.name))"
                    throw fail("'\(dotted(path, upTo: n + 1))' is already defined \(what); a dotted key cannot add to it", at: part.at)
                }
                t = sub
            } else {
                let sub = Table(kind: .dotted)
                t.set(part.name, Node(value: .table(sub), position: position(part.at), keyPosition: position(part.at)))
                t = sub
            }
        }
        let last = path[path.count - 1]
        guard t[last.name] == nil else { throw fail("the key '\(dotted(path))' is defined twice", at: last.at) }
        t.set(last.name, Node(value: value, position: position(valueStart), keyPosition: position(keyStart)))
    }

    /// Walks a header's path to the table that holds its last key, making implicit tables.
    mutating func parentTable(_ path: [KeyPart]) throws(ParseError) -> Table {
        var t = root
        for (n, part) in path.dropLast().enumerated() {
            if let existing = t[part.name] {
                if let sub = existing.table, sub.kind != .inline {
                    t = sub
                } else if t.tableArrays.contains(part.name), let last = existing.array?.last?.table {
                    t = last
                } else {
                    throw fail("'\(dotted(path, upTo: n + 1))' is already defined as \(describeKind(existing, in: t, part.name)); it cannot hold tables", at: part.at)
                }
            } else {
                let sub = Table(kind: .implicit)
                t.set(part.name, Node(value: .table(sub), position: position(part.at), keyPosition: position(part.at)))
                t = sub
            }
        }
        return t
    }

    func describeKind(_ n: Node, in parent: Table, _ key: String) -> String {
        switch n.value {
        case .table(let t) where t.kind == .inline: return "an inline table"
        case .table: return "a table"
        case .array: return parent.tableArrays.contains(key) ? "an array of tables" : "an array"
        default: return "a value"
        }
    }

    /// `[a.b]`: a table defined once (an implicit one may be defined now).
    mutating func defineTable(_ path: [KeyPart], at start: Int) throws(ParseError) -> Table {
        let parent = try parentTable(path)
        let last = path[path.count - 1]
        if let existing = parent[last.name] {
            guard let t = existing.table, t.kind == .implicit else {
                let kind = existing.table?.kind
                let what = kind == .dotted ? "by dotted keys" : kind == .explicit ? "already" : "as \(describeKind(existing, in: parent, last.name))"
                throw fail("the table [\(dotted(path))] is defined \(what); a table is defined once", at: start)
            }
            t.kind = .explicit
            parent.set(last.name, Node(value: .table(t), position: position(start), keyPosition: position(start)))
            return t
        }
        let t = Table(kind: .explicit)
        parent.set(last.name, Node(value: .table(t), position: position(start), keyPosition: position(start)))
        return t
    }

    /// `[[a.b]]`: a new table at the end of the array of tables `a.b`.
    mutating func appendArrayTable(_ path: [KeyPart], at start: Int) throws(ParseError) -> Table {
        let parent = try parentTable(path)
        let last = path[path.count - 1]
        let t = Table(kind: .explicit)
        let element = Node(value: .table(t), position: position(start), keyPosition: position(start))
        if let existing = parent[last.name] {
            guard parent.tableArrays.contains(last.name) else {
                throw fail("[[\(dotted(path))]] cannot add to '\(dotted(path))', which is \(describeKind(existing, in: parent, last.name))", at: start)
            }
            parent.append(element, toArray: last.name)
        } else {
            parent.set(last.name, Node(value: .array([element]), position: position(start), keyPosition: position(start)))
            parent.tableArrays.insert(last.name)
        }
        return t
    }

    // MARK: Values

    mutating func value() throws(ParseError) -> TOML.Value {
        guard let c = peek() else { throw fail("expected a value, found the end of the file") }
        switch c {
        case UInt8(ascii: "\""):
            return .string(at("\"\"\"") ? try multilineBasicString() : try basicString())
        case UInt8(ascii: "'"):
            return .string(at("'''") ? try multilineLiteralString() : try literalString())
        case UInt8(ascii: "["): return try array()
        case UInt8(ascii: "{"): return try inlineTable()
        case UInt8(ascii: "t"):
            if at("true") && !isValueChar(peek(4)) { i += 4; return .bool(true) }
        case UInt8(ascii: "f"):
            if at("false") && !isValueChar(peek(5)) { i += 5; return .bool(false) }
        default: break
        }
        if c == UInt8(ascii: "+") || c == UInt8(ascii: "-") || (c >= 0x30 && c <= 0x39) || c == UInt8(ascii: "i") || c == UInt8(ascii: "n") {
            return try numberOrDate()
        }
        if c == 0x0A || c == 0x0D { throw fail("expected a value after '=', found the end of the line") }
        throw fail("expected a value (a string in quotes, a number, true/false, a date, [array] or {table}), found \(describe(i))")
    }

    func isValueChar(_ c: UInt8?) -> Bool {
        guard let c else { return false }
        return isBareKey(c) || c == UInt8(ascii: ".") || c == UInt8(ascii: "+") || c == UInt8(ascii: ":")
    }

    mutating func nest() throws(ParseError) {
        depth += 1
        if depth > limits.maxDepth { throw fail("arrays and inline tables nest more than \(limits.maxDepth) deep") }
    }

    mutating func array() throws(ParseError) -> TOML.Value {
        let open = i
        i += 1
        try nest()
        defer { depth -= 1 }
        var items: [Node] = []
        while true {
            try skipBlank()
            guard let c = peek() else { throw fail("the array opened at \(position(open)) is not closed with ']'") }
            if c == UInt8(ascii: "]") { i += 1; return .array(items) }
            let start = i
            let v = try value()
            items.append(Node(value: v, position: position(start), keyPosition: position(start)))
            try skipBlank()
            if peek() == UInt8(ascii: ",") { i += 1; continue }
            if peek() == UInt8(ascii: "]") { i += 1; return .array(items) }
            if atEnd { throw fail("the array opened at \(position(open)) is not closed with ']'") }
            throw fail("expected ',' or ']' in the array, found \(describe(i))")
        }
    }

    mutating func inlineTable() throws(ParseError) -> TOML.Value {
        let open = i
        i += 1
        try nest()
        defer { depth -= 1 }
        let t = Table(kind: .inline)
        skipSpaces()
        if peek() == UInt8(ascii: "}") { i += 1; return .table(t) }
        while true {
            skipSpaces()
            if atEnd || peek() == 0x0A || peek() == 0x0D {
                throw fail("the inline table opened at \(position(open)) must close with '}' on the same line")
            }
            try keyValue(into: t)
            skipSpaces()
            if peek() == UInt8(ascii: ",") {
                i += 1
                skipSpaces()
                if peek() == UInt8(ascii: "}") { throw fail("an inline table cannot end with a comma") }
                continue
            }
            if peek() == UInt8(ascii: "}") { i += 1; break }
            throw fail("expected ',' or '}' in the inline table, found \(describe(i))")
        }
        // Tables made by dotted keys inside it are as closed as it is.
        func seal(_ t: Table) {
            t.kind = .inline
            for k in t.keys { if let sub = t[k]?.table { seal(sub) } }
        }
        seal(t)
        return .table(t)
    }

    // MARK: Strings

    mutating func appendScalar(_ s: Unicode.Scalar, to out: inout String.UnicodeScalarView, count: inout Int, at: Int) throws(ParseError) {
        if s.value == 0 { throw fail("NUL characters are not allowed in strings", at: at) }
        count += s.utf8.count
        if count > limits.maxStringBytes { throw fail("the string is longer than \(limits.maxStringBytes / 1024) KiB", at: at) }
        out.append(s)
    }

    /// Copies one character of string content, refusing control characters (tab is fine).
    mutating func plainChar(into out: inout String.UnicodeScalarView, count: inout Int) throws(ParseError) {
        let c = b[i]
        if (c < 0x20 && c != 0x09) || c == 0x7F {
            if c == 0x0A || c == 0x0D { throw fail("the string is not closed before the end of the line") }
            throw fail("control character U+\(hex(Int(c), 4)) in a string; write it as an escape")
        }
        guard let (s, n) = scalar(i) else { throw fail("the file is not valid UTF-8 here") }
        try appendScalar(s, to: &out, count: &count, at: i)
        i += n
    }

    mutating func escape(into out: inout String.UnicodeScalarView, count: inout Int) throws(ParseError) {
        let at = i
        i += 1 // the backslash
        guard let c = peek() else { throw fail("the string is not closed") }
        i += 1
        let simple: [UInt8: UInt32] = [UInt8(ascii: "b"): 8, UInt8(ascii: "t"): 9, UInt8(ascii: "n"): 10, UInt8(ascii: "f"): 12,
                                       UInt8(ascii: "r"): 13, UInt8(ascii: "\""): 34, UInt8(ascii: "\\"): 92]
        if let v = simple[c] { return try appendScalar(Unicode.Scalar(v)!, to: &out, count: &count, at: at) }
        guard c == UInt8(ascii: "u") || c == UInt8(ascii: "U") else {
            throw fail("unknown escape '\\\(Character(Unicode.Scalar(c)))' (use \\b \\t \\n \\f \\r \\\" \\\\ \\uXXXX \\UXXXXXXXX)", at: at)
        }
        let n = c == UInt8(ascii: "u") ? 4 : 8
        var v: UInt32 = 0
        for _ in 0..<n {
            guard let d = peek(), let h = hexValue(d) else { throw fail("\\\(Character(Unicode.Scalar(c))) needs \(n) hexadecimal digits", at: at) }
            v = v << 4 | UInt32(h)
            i += 1
        }
        guard let s = Unicode.Scalar(v) else { throw fail("\\\(Character(Unicode.Scalar(c)))\(hex(Int(v), n)) is not a Unicode scalar value", at: at) }
        try appendScalar(s, to: &out, count: &count, at: at)
    }

    func hexValue(_ c: UInt8) -> UInt8? {
        switch c {
        case 0x30...0x39: return c - 0x30
        case 0x41...0x46: return c - 0x41 + 10
        case 0x61...0x66: return c - 0x61 + 10
        default: return nil
        }
    }

    /// A one-line string: "basic" (escapes allowed) or 'literal' (none).
    mutating func basicString() throws(ParseError) -> String { try oneLineString(escapes: true) }
    mutating func literalString() throws(ParseError) -> String { try oneLineString(escapes: false) }

    mutating func oneLineString(escapes: Bool) throws(ParseError) -> String {
        let open = i, quote = b[i]
        i += 1
        var out = String.UnicodeScalarView(), count = 0
        while true {
            guard let c = peek() else { throw fail("the string opened at \(position(open)) is not closed") }
            if c == quote { i += 1; return String(out) }
            if escapes && c == UInt8(ascii: "\\") { try escape(into: &out, count: &count); continue }
            try plainChar(into: &out, count: &count)
        }
    }

    mutating func multilineBasicString() throws(ParseError) -> String { try multilineString(escapes: true) }
    mutating func multilineLiteralString() throws(ParseError) -> String { try multilineString(escapes: false) }

    /// A string over several lines between three quotes: basic (escapes, and a backslash that
    /// ends a line joins it to the next) or literal. A line break right after the opening quotes
    /// is not part of it.
    mutating func multilineString(escapes: Bool) throws(ParseError) -> String {
        let open = i, quote = b[i]
        let three = String(repeating: Character(Unicode.Scalar(quote)), count: 3)
        i += 3
        _ = newline()
        var out = String.UnicodeScalarView(), count = 0
        while true {
            guard let c = peek() else { throw fail("the multi-line string opened at \(position(open)) is not closed with \(three)") }
            if at(three) {
                // Up to two quotes may end the content right before the closing three.
                var extra = 0
                while extra < 2 && at(three, extra + 1) { extra += 1 }
                for _ in 0..<extra { try appendScalar(Unicode.Scalar(quote), to: &out, count: &count, at: i) }
                i += 3 + extra
                return String(out)
            }
            if escapes && c == UInt8(ascii: "\\") {
                // A backslash at the end of a line joins it to the next, eating the whitespace.
                var k = i + 1
                while k < b.count, b[k] == 0x20 || b[k] == 0x09 { k += 1 }
                if k < b.count, b[k] == 0x0A || (b[k] == 0x0D && k + 1 < b.count && b[k + 1] == 0x0A) {
                    i = k
                    while true {
                        if newline() { continue }
                        if let d = peek(), d == 0x20 || d == 0x09 { i += 1; continue }
                        break
                    }
                    continue
                }
                try escape(into: &out, count: &count)
                continue
            }
            if newline() {
                try appendScalar("\n", to: &out, count: &count, at: i)
                continue
            }
            try plainChar(into: &out, count: &count)
        }
    }

    // MARK: Numbers and dates

    mutating func numberOrDate() throws(ParseError) -> TOML.Value {
        let start = i
        // A date or time starts with 4 digits and '-' or 2 digits and ':'.
        if isDigit(peek()), isDigit(peek(1)) {
            if peek(2) == UInt8(ascii: ":") { return try dateTime() }
            if isDigit(peek(2)), isDigit(peek(3)), peek(4) == UInt8(ascii: "-") { return try dateTime() }
        }
        // The token: everything a number may contain.
        var k = i
        while k < b.count, isBareKey(b[k]) || b[k] == UInt8(ascii: ".") || b[k] == UInt8(ascii: "+") { k += 1 }
        let token = Array(b[i..<k])
        i = k
        let text = String(decoding: token, as: UTF8.self)
        if let v = Parser.integer(token) { return .integer(v) }
        if Parser.looksLikeInteger(token) {
            throw fail(Parser.integerProblem(token, text), at: start)
        }
        if let v = Parser.float(token) { return .float(v) }
        throw fail("'\(text)' is not a valid number", at: start)
    }

    func isDigit(_ c: UInt8?) -> Bool { c.map { $0 >= 0x30 && $0 <= 0x39 } ?? false }

    /// True when `t` is digits with optional sign/prefix/underscores (so a failure is about range
    /// or underscores, not about being a float).
    static func looksLikeInteger(_ t: [UInt8]) -> Bool {
        guard !t.isEmpty else { return false }
        if t.count > 2, t[0] == UInt8(ascii: "0"), [UInt8(ascii: "x"), UInt8(ascii: "o"), UInt8(ascii: "b")].contains(t[1]) { return true }
        var body = t[...]
        if body.first == UInt8(ascii: "+") || body.first == UInt8(ascii: "-") { body = body.dropFirst() }
        return !body.isEmpty && body.allSatisfy { ($0 >= 0x30 && $0 <= 0x39) || $0 == UInt8(ascii: "_") }
    }
    /// Why `t`, which looks like an integer, is not one.
    static func integerProblem(_ t: [UInt8], _ text: String) -> String {
        if !underscoresOK(t) { return "'\(text)': an underscore in a number must sit between two digits" }
        let body = t.drop { $0 == UInt8(ascii: "+") || $0 == UInt8(ascii: "-") }.filter { $0 != UInt8(ascii: "_") }
        let prefixed = t.count > 2 && t[0] == UInt8(ascii: "0") && [UInt8(ascii: "x"), UInt8(ascii: "o"), UInt8(ascii: "b")].contains(t[1])
        if !prefixed, body.count > 1, body[0] == 0x30 { return "'\(text)': a number cannot start with 0" }
        if t.first == UInt8(ascii: "+") || t.first == UInt8(ascii: "-"), body.count > 2, body[1] == UInt8(ascii: "x") || body[1] == UInt8(ascii: "o") || body[1] == UInt8(ascii: "b") {
            return "'\(text)': hexadecimal, octal and binary numbers take no sign"
        }
        return integer(prefixed ? Array(t.prefix(2)) + [0x30] : [0x30]) != nil && digitsValid(t, prefixed: prefixed)
            ? "'\(text)' does not fit in a 64-bit integer" : "'\(text)' is not a valid integer"
    }
    static func digitsValid(_ t: [UInt8], prefixed: Bool) -> Bool {
        guard prefixed else { return true }
        let radix = [UInt8(ascii: "x"): 16, UInt8(ascii: "o"): 8, UInt8(ascii: "b"): 2][t[1]]!
        return t.dropFirst(2).allSatisfy { $0 == UInt8(ascii: "_") || Int(String(UnicodeScalar($0)), radix: radix) != nil }
    }

    /// Underscores only between two digits (of the number's base).
    static func underscoresOK(_ t: [UInt8]) -> Bool {
        for (k, c) in t.enumerated() where c == UInt8(ascii: "_") {
            guard k > 0, k + 1 < t.count, isAlnum(t[k - 1]), isAlnum(t[k + 1]) else { return false }
        }
        return true
    }
    static func isAlnum(_ c: UInt8) -> Bool { (c >= 0x30 && c <= 0x39) || (c >= 0x41 && c <= 0x46) || (c >= 0x61 && c <= 0x66) }

    static func integer(_ t: [UInt8]) -> Int64? {
        guard !t.isEmpty, underscoresOK(t) else { return nil }
        var body = t[...]
        var negative = false
        if t.count > 2, t[0] == UInt8(ascii: "0"), let radix = [UInt8(ascii: "x"): 16, UInt8(ascii: "o"): 8, UInt8(ascii: "b"): 2][t[1]] {
            let digits = t.dropFirst(2).filter { $0 != UInt8(ascii: "_") }
            guard !digits.isEmpty, t[2] != UInt8(ascii: "_"), digitsValid(t, prefixed: true) else { return nil }
            return Int64(String(decoding: digits, as: UTF8.self), radix: radix)
        }
        if body.first == UInt8(ascii: "+") || body.first == UInt8(ascii: "-") {
            negative = body.first == UInt8(ascii: "-")
            body = body.dropFirst()
        }
        guard let f = body.first, f >= 0x30 && f <= 0x39 else { return nil }
        let digits = body.filter { $0 != UInt8(ascii: "_") }
        guard digits.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }), !(digits.count > 1 && digits[0] == 0x30) else { return nil }
        return Int64((negative ? "-" : "") + String(decoding: digits, as: UTF8.self))
    }

    static func float(_ t: [UInt8]) -> Double? {
        var body = t[...]
        var sign = ""
        if body.first == UInt8(ascii: "+") || body.first == UInt8(ascii: "-") {
            sign = body.first == UInt8(ascii: "-") ? "-" : ""
            body = body.dropFirst()
        }
        let s = String(decoding: body, as: UTF8.self)
        if s == "inf" { return sign == "-" ? -.infinity : .infinity }
        if s == "nan" { return .nan }
        // int part, then .frac and/or exponent; underscores only between digits.
        guard underscoresOK(Array(body)) else { return nil }
        var k = body.startIndex
        func digits(_ allowLeadingZeros: Bool) -> Int? {
            let from = k
            while k < body.endIndex, (body[k] >= 0x30 && body[k] <= 0x39) || body[k] == UInt8(ascii: "_") { k += 1 }
            let d = body[from..<k].filter { $0 != UInt8(ascii: "_") }
            guard !d.isEmpty, body[from] != UInt8(ascii: "_"), k == from || body[k - 1] != UInt8(ascii: "_") else { return nil }
            if !allowLeadingZeros && d.count > 1 && d[0] == 0x30 { return nil }
            return d.count
        }
        guard digits(false) != nil else { return nil }
        var hasFraction = false, hasExponent = false
        if k < body.endIndex, body[k] == UInt8(ascii: ".") {
            k += 1
            guard digits(true) != nil else { return nil }
            hasFraction = true
        }
        if k < body.endIndex, body[k] == UInt8(ascii: "e") || body[k] == UInt8(ascii: "E") {
            k += 1
            if k < body.endIndex, body[k] == UInt8(ascii: "+") || body[k] == UInt8(ascii: "-") { k += 1 }
            guard digits(true) != nil else { return nil }
            hasExponent = true
        }
        guard k == body.endIndex, hasFraction || hasExponent else { return nil }
        return Double(sign + String(decoding: body.filter { $0 != UInt8(ascii: "_") }, as: UTF8.self))
    }

    /// Exactly `n` digits as a number, or nil.
    mutating func fixedDigits(_ n: Int) -> Int? {
        var v = 0
        for k in 0..<n {
            guard let c = peek(k), c >= 0x30 && c <= 0x39 else { return nil }
            v = v * 10 + Int(c - 0x30)
        }
        i += n
        return v
    }

    mutating func dateTime() throws(ParseError) -> TOML.Value {
        let start = i
        var dt = TOML.DateTime()
        func bad(_ what: String) -> ParseError { fail("\(what) (dates look like 1979-05-27, times like 07:32:00, together 1979-05-27T07:32:00Z)", at: start) }
        if peek(2) != UInt8(ascii: ":") {
            guard let y = fixedDigits(4), peek() == UInt8(ascii: "-") else { throw bad("not a valid date") }
            i += 1
            guard let m = fixedDigits(2), peek() == UInt8(ascii: "-") else { throw bad("not a valid date") }
            i += 1
            guard let d = fixedDigits(2) else { throw bad("not a valid date") }
            guard (1...12).contains(m), d >= 1, d <= Parser.daysIn(month: m, year: y) else { throw bad("\(y)-\(pad(m))-\(pad(d)) is not a day of the calendar") }
            dt.year = y; dt.month = m; dt.day = d
            // A time follows after 'T' or a single space (only if a time really follows).
            if let c = peek(), c == UInt8(ascii: "T") || c == UInt8(ascii: "t") || (c == 0x20 && isDigit(peek(1)) && isDigit(peek(2)) && peek(3) == UInt8(ascii: ":")) {
                i += 1
            } else {
                try endOfDateTime()
                return .dateTime(dt)
            }
        }
        guard let h = fixedDigits(2), peek() == UInt8(ascii: ":") else { throw bad("not a valid time") }
        i += 1
        guard let mi = fixedDigits(2), peek() == UInt8(ascii: ":") else { throw bad("not a valid time: seconds are required") }
        i += 1
        guard let s = fixedDigits(2) else { throw bad("not a valid time") }
        guard h <= 23, mi <= 59, s <= 60 else { throw bad("\(pad(h)):\(pad(mi)):\(pad(s)) is not a time of day") }
        dt.hour = h; dt.minute = mi; dt.second = s
        if peek() == UInt8(ascii: ".") {
            i += 1
            var digits = 0, ns = 0
            while let c = peek(), c >= 0x30 && c <= 0x39 {
                if digits < 9 { ns = ns * 10 + Int(c - 0x30) }
                digits += 1
                i += 1
            }
            guard digits > 0 else { throw bad("a fraction of a second needs digits") }
            for _ in digits..<max(digits, 9) { ns *= 10 }
            dt.nanosecond = ns
        }
        if dt.year != nil, let c = peek() {
            if c == UInt8(ascii: "Z") || c == UInt8(ascii: "z") {
                i += 1
                dt.offsetMinutes = 0
            } else if c == UInt8(ascii: "+") || c == UInt8(ascii: "-") {
                i += 1
                guard let oh = fixedDigits(2), peek() == UInt8(ascii: ":") else { throw bad("not a valid time offset") }
                i += 1
                guard let om = fixedDigits(2), oh <= 23, om <= 59 else { throw bad("not a valid time offset") }
                dt.offsetMinutes = (oh * 60 + om) * (c == UInt8(ascii: "-") ? -1 : 1)
            }
        }
        try endOfDateTime()
        return .dateTime(dt)
    }

    /// A date or time must end where a value ends.
    mutating func endOfDateTime() throws(ParseError) {
        if let c = peek(), isValueChar(c) || c == UInt8(ascii: "-") { throw fail("unexpected \(describe(i)) after a date or time") }
    }

    func pad(_ v: Int) -> String { v < 10 ? "0\(v)" : "\(v)" }

    static func daysIn(month m: Int, year y: Int) -> Int {
        switch m {
        case 2: return (y % 4 == 0 && y % 100 != 0) || y % 400 == 0 ? 29 : 28
        case 4, 6, 9, 11: return 30
        default: return 31
        }
    }
}

/// Byte offset → line and column, fast for offsets that mostly increase (one pass over a file,
/// however many values it holds): the lines' starts are indexed once, and the last answer is
/// continued from when the next offset is on the same line further on.
private final class PositionIndex {
    private var lineStarts: [Int] = [0]
    private var last = (offset: 0, line: 1, column: 1)

    init(_ b: [UInt8]) {
        for (k, c) in b.enumerated() where c == 0x0A { lineStarts.append(k + 1) }
    }

    func position(_ at: Int, in b: [UInt8]) -> TOML.Position {
        let at = min(max(0, at), b.count)
        // The line: the last start at or before `at`.
        var lo = 0, hi = lineStarts.count - 1
        while lo < hi {
            let mid = (lo + hi + 1) / 2
            if lineStarts[mid] <= at { lo = mid } else { hi = mid - 1 }
        }
        let line = lo + 1
        var from = lineStarts[lo], column = 1
        if last.line == line && last.offset <= at && last.offset >= from { from = last.offset; column = last.column }
        var k = from
        while k < at {
            let c = b[k]
            if c & 0xC0 != 0x80, !(c == 0x0D && k + 1 < b.count && b[k + 1] == 0x0A) { column += 1 }
            k += 1
        }
        last = (at, line, column)
        return TOML.Position(line: line, column: column)
    }
}

extension TOML {
    /// `s` as a TOML basic string, quotes and escapes included, that parses back to `s`.
    package static func quoted(_ s: String) -> String {
        var out = "\""
        for u in s.unicodeScalars {
            switch u {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\t": out += "\\t"
            case _ where u.value < 0x20 || u.value == 0x7F: out += "\\u" + String(repeating: "0", count: 4 - String(u.value, radix: 16).count) + String(u.value, radix: 16)
            default: out.unicodeScalars.append(u)
            }
        }
        return out + "\""
    }
}
