import Foundation
import KioskCore
import Testing
@testable import Kiosk
@testable import KioskUI
@testable import KioskRender
@testable import KioskCore

/// The settings reader on documents written to break it: every category of TOML 1.0's grammar,
/// the limits Kiosk adds, and a seeded mutation fuzzer. Each invalid document must be refused
/// with the line and column where it goes wrong, never with a trap or a hang.
@Suite struct TOMLTests {
    static func parse(_ text: String) -> Result<TOML.Table, TOML.ParseError> {
        do { return .success(try TOML.parse(Array(text.utf8))) } catch { return .failure(error) }
    }

    /// (document, where, what): headers, keys, all four strings and their escapes, integers,
    /// floats, booleans, dates and times, arrays, inline tables, redefinitions, control
    /// characters, nesting — including every document that made toml++ abort (`[#]`, `[é]`,
    /// `[`, `[.]`, `[a..b]`).
    static let invalid: [(String, String, String)] = [
        ("[#]", "1:2", "expected a key (letters, digits, '_', '-', or a quoted name), found '#'"),
        ("[é]", "1:2", "expected a key (letters, digits, '_', '-', or a quoted name), found 'é'"),
        ("[", "1:2", "expected a key, found the end of the file"),
        ("[.]", "1:2", "expected a key (letters, digits, '_', '-', or a quoted name), found '.'"),
        ("[a..b]", "1:4", "expected a key (letters, digits, '_', '-', or a quoted name), found '.'"),
        ("[a]]", "1:4", "expected the end of the line, found ']'"),
        ("[a] x = 1", "1:5", "expected the end of the line, found 'x'"),
        ("[ [a]]", "1:3", "expected a key (letters, digits, '_', '-', or a quoted name), found '['"),
        ("[[a] ]", "1:4", "expected ']]' to close the array-of-tables header, found ']'"),
        ("[[a]]]", "1:6", "expected the end of the line, found ']'"),
        ("[a.]", "1:4", "expected a key (letters, digits, '_', '-', or a quoted name), found ']'"),
        ("[.a]", "1:2", "expected a key (letters, digits, '_', '-', or a quoted name), found '.'"),
        ("a.b = 1\n[a]", "2:1", "the table [a] is defined by dotted keys; a table is defined once"),
        ("[a]\n[a]", "2:1", "the table [a] is defined already; a table is defined once"),
        ("[a.b]\n[a]\nb.c = 1", "3:1", "'b' is already defined as a table elsewhere; a dotted key cannot add to it"),
        ("a = {}\n[a]", "2:1", "the table [a] is defined as an inline table; a table is defined once"),
        ("a = [1]\n[[a]]", "2:1", "[[a]] cannot add to 'a', which is an array"),
        ("[[a]]\n[a]", "2:1", "the table [a] is defined as an array of tables; a table is defined once"),
        ("[a]\n[[a]]", "2:1", "[[a]] cannot add to 'a', which is a table"),
        ("a = 1\na = 2", "2:1", "the key 'a' is defined twice"),
        ("a = 1\na.b = 2", "2:1", "'a' is already defined as a value; a dotted key cannot add to it"),
        ("\"a\" = 1\na = 2", "2:1", "the key 'a' is defined twice"),
        ("a b = 1", "1:3", "expected '=' after the key 'a', found 'b'"),
        ("a = ", "1:5", "expected a value, found the end of the file"),
        ("= 1", "1:1", "expected a key (letters, digits, '_', '-', or a quoted name), found '='"),
        ("a = 1 b = 2", "1:7", "expected the end of the line, found 'b'"),
        ("é = 1", "1:1", "expected a key (letters, digits, '_', '-', or a quoted name), found 'é'"),
        ("'''a''' = 1", "1:1", "a key cannot be a multi-line string"),
        ("\"\"\"a\"\"\" = 1", "1:1", "a key cannot be a multi-line string"),
        ("a = \"unterminated", "1:18", "the string opened at 1:5 is not closed"),
        ("a = \"bad \\q escape\"", "1:10", "unknown escape '\\q' (use \\b \\t \\n \\f \\r \\\" \\\\ \\uXXXX \\UXXXXXXXX)"),
        ("a = \"\\u00\"", "1:6", "\\u needs 4 hexadecimal digits"),
        ("a = \"\\uD800\"", "1:6", "\\uD800 is not a Unicode scalar value"),
        ("a = \"\\U00110000\"", "1:6", "\\U00110000 is not a Unicode scalar value"),
        ("a = \"\\u0000\"", "1:6", "NUL characters are not allowed in strings"),
        ("a = 'literal 'quote'", "1:15", "expected the end of the line, found 'q'"),
        ("a = '''never closed", "1:20", "the multi-line string opened at 1:5 is not closed with '''"),
        ("a = \"\"\"never closed", "1:20", "the multi-line string opened at 1:5 is not closed with \"\"\""),
        ("a = \"\"\"a\"\"\"\"\"\"", "1:14", "expected the end of the line, found '\"'"),
        ("a = \"ctrl \u{1}\"", "1:11", "control character U+0001 in a string; write it as an escape"),
        ("a = 01", "1:5", "'01': a number cannot start with 0"),
        ("a = +0x10", "1:5", "'+0x10' is not a valid number"),
        ("a = 0x", "1:5", "'0x' is not a valid number"),
        ("a = 0xG1", "1:5", "'0xG1' is not a valid integer"),
        ("a = 0b102", "1:5", "'0b102' is not a valid integer"),
        ("a = 0o8", "1:5", "'0o8' is not a valid integer"),
        ("a = 1__000", "1:5", "'1__000': an underscore in a number must sit between two digits"),
        ("a = _1", "1:5", "expected a value"),
        ("a = 1_", "1:5", "'1_': an underscore in a number must sit between two digits"),
        ("a = 99999999999999999999", "1:5", "'99999999999999999999' does not fit in a 64-bit integer"),
        ("a = -9223372036854775809", "1:5", "'-9223372036854775809' does not fit in a 64-bit integer"),
        ("a = 1.", "1:5", "'1.' is not a valid number"),
        ("a = .1", "1:5", "expected a value"),
        ("a = 1e", "1:5", "'1e' is not a valid number"),
        ("a = 1.e5", "1:5", "'1.e5' is not a valid number"),
        ("a = 1e_5", "1:5", "'1e_5' is not a valid number"),
        ("a = 00.1", "1:5", "'00.1' is not a valid number"),
        ("a = 1.0f", "1:5", "'1.0f' is not a valid number"),
        ("a = infinity", "1:5", "'infinity' is not a valid number"),
        ("a = nan1", "1:5", "'nan1' is not a valid number"),
        ("a = truee", "1:5", "expected a value"),
        ("a = True", "1:5", "expected a value"),
        ("a = 1979-13-01", "1:5", "1979-13-01 is not a day of the calendar"),
        ("a = 1979-02-30", "1:5", "1979-02-30 is not a day of the calendar"),
        ("a = 1900-02-29", "1:5", "1900-02-29 is not a day of the calendar"),
        ("a = 2000-02-29T25:00:00", "1:5", "25:00:00 is not a time of day"),
        ("a = 1979-05-27T07:32", "1:5", "not a valid time: seconds are required"),
        ("a = 1979-05-27T07:32:00+24:00", "1:5", "not a valid time offset"),
        ("a = 1979-05-27T07:32:00.Z", "1:5", "a fraction of a second needs digits"),
        ("a = 07:32:00Z", "1:13", "unexpected 'Z' after a date or time"),
        ("a = 1979-05-27 07:32", "1:5", "not a valid time: seconds are required"),
        ("a = 1979-5-27", "1:5", "not a valid date"),
        ("a = [1,,2]", "1:8", "expected a value"),
        ("a = [1 2]", "1:8", "expected ',' or ']' in the array, found '2'"),
        ("a = [1,", "1:8", "the array opened at 1:5 is not closed with ']'"),
        ("a = [,]", "1:6", "expected a value"),
        ("a = {a = 1,}", "1:12", "an inline table cannot end with a comma"),
        ("a = {a = 1\n}", "1:11", "expected ',' or '}' in the inline table, found the end of the line"),
        ("a = {a = 1, a = 2}", "1:13", "the key 'a' is defined twice"),
        ("a = {b = 1}\na.c = 2", "2:1", "'a' is already defined as an inline table; a dotted key cannot add to it"),
        ("a = {b.c = 1}\n[a.b]", "2:2", "'a' is already defined as an inline table; it cannot hold tables"),
        ("a = 1 # ctrl \u{7f}", "1:14", "control character U+007F in a comment"),
        ("# \u{8} ctrl", "1:3", "control character U+0008 in a comment"),
        ("a = 1\r", "1:6", "expected the end of the line, found a carriage return"),
        ("a = \"x\"\rb = 1", "1:8", "expected the end of the line, found a carriage return"),
        ("a = [[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[1]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]", "1:38", "arrays and inline tables nest more than 32 deep"),
    ]

    @Test func invalidDocumentsAreRefusedWhereTheyGoWrong() {
        for (doc, at, message) in TOMLTests.invalid {
            switch TOMLTests.parse(doc) {
            case .success: Issue.record("accepted: \(doc.debugDescription)")
            case .failure(let e):
                #expect("\(e.position)" == at, "\(doc.debugDescription): \(e)")
                #expect(e.message.hasPrefix(message), "\(doc.debugDescription): \(e)")
            }
        }
    }

    @Test func bytesThatAreNotTextAreRefused() throws {
        func error(_ bytes: [UInt8]) -> String {
            do { _ = try TOML.parse(bytes); return "accepted" } catch { return "\(error)" }
        }
        let q = Array("a = \"".utf8), e = Array("\"".utf8)
        #expect(error(q + [0xFF] + e) == "1:6: the file is not valid UTF-8 here")
        #expect(error(q + [0xC0, 0x80] + e) == "1:6: the file is not valid UTF-8 here") // an overlong NUL
        #expect(error(q + [0xED, 0xA0, 0x80] + e) == "1:6: the file is not valid UTF-8 here") // a surrogate
        #expect(error(Array("a = 1\nb = 2 ".utf8) + [0]) == "2:7: NUL characters are not allowed")
        #expect(error(Array("a = 1\n".utf8) + [0xEF, 0xBB, 0xBF] + Array("b = 2".utf8))
                == "2:1: expected a key (letters, digits, '_', '-', or a quoted name), found a byte order mark (U+FEFF)")
        // A byte order mark at the very start is skipped.
        let t = try TOML.parse([0xEF, 0xBB, 0xBF] + Array("a = 1".utf8))
        #expect(t["a"]?.int == 1 && t["a"]?.keyPosition == TOML.Position(line: 1, column: 2))
    }

    @Test func limitsAreReportedNotSilentlyApplied() {
        do {
            _ = try TOML.parse([UInt8](repeating: 0x20, count: 300 * 1024))
            Issue.record("accepted")
        } catch {
            #expect(error.message == "the file is 300 KiB; settings files may be at most 256 KiB")
        }
        let deep = "a = " + String(repeating: "[", count: 32) + String(repeating: "]", count: 32)
        #expect((try? TOML.parse(Array(deep.utf8))) != nil, "32 levels are fine")
        let deeper = "a = " + String(repeating: "{b = ", count: 33) + "1" + String(repeating: "}", count: 33)
        #expect(throws: TOML.ParseError.self) { try TOML.parse(Array(deeper.utf8)) }
        let long = "a = \"" + String(repeating: "x", count: 64 * 1024 + 1) + "\""
        do {
            _ = try TOML.parse(Array(long.utf8))
            Issue.record("accepted")
        } catch {
            #expect(error.message == "the string is longer than 64 KiB")
        }
    }

    @Test func everyKindOfValueReadsWithItsPosition() throws {
        let doc = #"""
        # comment
        title = "Kiosk \\ \u00e9 \U0001F600 \t"
        lit = 'C:\no\escape'
        ml = """
        one \
            two""""
        mll = '''
        raw ''\nline'''
        int = [+99, -17, 0, 1_000, 0xDEAD_beef, 0o755, 0b1101]
        big = 9_223_372_036_854_775_807
        floats = [1.0, -0.01, 5e+22, 1e06, -2E-2, 6.626e-34, 224_617.445_991, inf, -inf, nan]
        bools = [true, false]
        odt = 1979-05-27T07:32:00.999999-07:00
        ldt = 1979-05-27 07:32:00
        ld = 1979-05-27
        lt = 00:32:00.5
        nested = [[1, 2], ["a", 'b'], [{x = 1}, {}]]
        "quoted key" = 1
        site."google.com" = true
        [a.b]
        c = { d = 1, e.f = "g" }
        [[fruit]]
          name = "apple"
          [fruit.physical]
            color = "red"
        [[fruit]]
          name = "banana"
        """#
        let t = try TOML.parse(Array(doc.utf8))
        #expect(t["title"]?.string == "Kiosk \\ é 😀 \t")
        #expect(t["title"]?.keyPosition == TOML.Position(line: 2, column: 1) && t["title"]?.position == TOML.Position(line: 2, column: 9))
        #expect(t["lit"]?.string == #"C:\no\escape"#)
        #expect(t["ml"]?.string == "one two\"")
        #expect(t["mll"]?.string == #"raw ''\nline"#)
        #expect(t["int"]?.array?.compactMap(\.int) == [99, -17, 0, 1000, 0xDEADBEEF, 0o755, 0b1101])
        #expect(t["big"]?.int == Int.max)
        let f = t["floats"]?.array?.compactMap(\.double) ?? []
        #expect(f.count == 10 && f[2] == 5e22 && f[3] == 1e6 && f[6] == 224617.445991 && f[7] == .infinity && f[9].isNaN)
        #expect(t["bools"]?.array?.compactMap(\.bool) == [true, false])
        if case .dateTime(let d)? = t["odt"]?.value {
            #expect(d.year == 1979 && d.second == 0 && d.nanosecond == 999_999_000 && d.offsetMinutes == -420)
        } else { Issue.record("odt") }
        if case .dateTime(let d)? = t["ldt"]?.value { #expect(d.hour == 7 && d.offsetMinutes == nil) } else { Issue.record("ldt") }
        if case .dateTime(let d)? = t["lt"]?.value { #expect(d.year == nil && d.nanosecond == 500_000_000) } else { Issue.record("lt") }
        #expect(t["nested"]?.array?[2].array?[0].table?["x"]?.int == 1)
        #expect(t["quoted key"]?.int == 1 && t["site"]?.table?["google.com"]?.bool == true)
        let c = t["a"]?.table?["b"]?.table?["c"]?.table
        #expect(c?["d"]?.int == 1 && c?["e"]?.table?["f"]?.string == "g")
        let fruit = t["fruit"]?.array ?? []
        #expect(fruit.count == 2 && fruit[0].table?["physical"]?.table?["color"]?.string == "red" && fruit[1].table?["name"]?.string == "banana")
        #expect(fruit.count == 2 && fruit[1].keyPosition == TOML.Position(line: 26, column: 1))
    }

    @Test func tablesMayBeDefinedInAnyOrderOnce() throws {
        let t = try TOML.parse(Array("[a.b.c]\nx = 1\n[a]\ny = 2\n[a.b]\nz = 3\n".utf8))
        #expect(t["a"]?.table?["y"]?.int == 2 && t["a"]?.table?["b"]?.table?["z"]?.int == 3)
        // Sub-tables of a table made by dotted keys may still get headers.
        let u = try TOML.parse(Array("[fruit]\napple.color = \"red\"\n[fruit.apple.texture]\nsmooth = true\n".utf8))
        #expect(u["fruit"]?.table?["apple"]?.table?["texture"]?.table?["smooth"]?.bool == true)
    }

    @Test func windowsLineEndsCountAsOneLine() throws {
        switch TOMLTests.parse("a = 1\r\nb = 2\r\nc = =\r\n") {
        case .success: Issue.record("accepted")
        case .failure(let e): #expect(e.position == TOML.Position(line: 3, column: 5))
        }
        let t = try TOML.parse(Array("a = \"\"\"\r\none\r\ntwo\"\"\"\r\n".utf8))
        #expect(t["a"]?.string == "one\ntwo")
    }

    @Test func thousandsOfArrayTablesStayCheap() throws {
        let doc = String(repeating: "[[t]]\nx = 1\n", count: 20_000)
        let t = try TOML.parse(Array(doc.utf8), limits: TOML.Limits(maxBytes: 1 << 20))
        #expect(t["t"]?.array?.count == 20_000)
        #expect(t["t"]?.array?.last?.keyPosition == TOML.Position(line: 39_999, column: 1))
    }

    /// A seeded mutation fuzzer over real settings files: 20,000 documents a run, each parsed
    /// under the default limits. A trap would end the test process; every refusal must point
    /// inside the document. Longer runs: `make fuzz`.
    @Test func twentyThousandMutatedDocumentsNeverTrap() {
        let result = TOMLFuzz.run(seed: 2026, count: 20_000)
        #expect(result.misplaced.isEmpty, "\(result.misplaced.prefix(3))")
        #expect(result.refused > 10_000 && result.accepted > 500, "\(result)") // the mutations reach both sides
    }
}

/// Mutations of real settings documents for the TOML reader (also driven by `make fuzz`).
enum TOMLFuzz {
    struct Result: CustomStringConvertible {
        var accepted = 0, refused = 0
        /// Refusals whose position lies outside the document.
        var misplaced: [String] = []
        var description: String { "\(accepted) accepted, \(refused) refused" }
    }

    static func run(seed: UInt64, count: Int) -> Result {
        let seeds = [example, rich]
        var rng = SplitMix64(seed: seed)
        var r = Result()
        for n in 0..<count {
            let doc = mutate(seeds[n % seeds.count], &rng)
            do {
                _ = try TOML.parse(doc)
                r.accepted += 1
            } catch {
                r.refused += 1
                let lines = doc.filter { $0 == 0x0A }.count + 1
                if !(1...lines).contains(error.position.line) || error.position.column < 1 {
                    r.misplaced.append("\(error) in \(String(decoding: doc, as: UTF8.self).debugDescription)")
                }
            }
        }
        return r
    }

    static let alphabet: [[UInt8]] = ["[", "]", "[[", "]]", "{", "}", "=", "\"", "'", "\"\"\"", "'''", ".", ",", "#", "\n", "\r\n",
                                      "\r", "\t", " ", "\\", "\\u", "\\U0010FFFF", "0", "1", "9", "_", "-", "+", "e", "x", "0x", ":",
                                      "T", "Z", "é", "\u{FEFF}", "inf", "nan", "true", "1979-05-27", "07:32:00", "a.b", "\u{7F}"]
        .map { Array($0.utf8) } + [[0], [0xFF], [0x80], [0xC3], [0xED, 0xA0, 0x80]]

    static func mutate(_ seed: [UInt8], _ rng: inout SplitMix64) -> [UInt8] { Fuzz.mutate(seed, tokens: alphabet, &rng) }

    static let example: [UInt8] = Array("""
    [shell]
    scenes = ["touch", "lander", "tiles"]   # what the public can switch between
    start = "touch"
    idle_timeout = 120
    rotate = 0
    scene_bar = true
    theme = ""

    [words]
    phrases = ["Peace Love Groovy Music"]
    speed = 150
    interval = 0.5
    color = "#8e24aa"

    [lander]
    pad = "right"

    [admin]
    gesture = "top-left"
    pin = "2580"
    """.utf8)

    static let rich: [UInt8] = Array(#"""
    a.b."c d" = { e = [1, 2.5, -3e4, 0x1F, 'lit', """ml"""], f = 1979-05-27T07:32:00Z }
    [[t.u]]
    v = '''
    x'''
    [t.w]
    z = [ [ true, false ], [ 07:32:00, 1979-05-27 ] ]
    """#.utf8)
}

/// Long fuzz runs (`make fuzz`): `KIOSK_FUZZ=<documents>`, `KIOSK_FUZZ_SEED=<seed>` (default: the clock).
@Suite(.enabled(if: ProcessInfo.processInfo.environment["KIOSK_FUZZ"] != nil))
struct LongFuzzRuns {
    @Test func everyReader() {
        let env = ProcessInfo.processInfo.environment
        let count = Int(env["KIOSK_FUZZ"] ?? "") ?? 1_000_000
        let seed = UInt64(env["KIOSK_FUZZ_SEED"] ?? "") ?? UInt64(Date().timeIntervalSince1970)
        let result = TOMLFuzz.run(seed: seed, count: count)
        print("TOML fuzz, seed \(seed): \(count) documents, \(result)")
        #expect(result.misplaced.isEmpty, "\(result.misplaced.prefix(3))")
        let state = Fuzz.savedState(seed: seed, count: count)
        print("saved-state fuzz, seed \(seed): \(count) files, \(state)")
        let png = Fuzz.png(seed: seed, count: count / 4)
        print("PNG fuzz, seed \(seed): \(count / 4) files, \(png.decoded) decoded, \(png.refused) refused")
        #expect(png.oversized == 0)
        for name in ["touch", "tiles", "lander"] {
            guard let scene = SceneCatalog.make(name, fonts: FontCache()) else { continue }
            scene.layout(DisplayInfo(size: Size(width: 1280, height: 800)))
            let t = Fuzz.touch(seed: seed, count: count, scene: scene)
            print("touch fuzz on \(name), seed \(seed): \(count) events, \(t.batches) batches, \(t.stuck) stuck")
            #expect(t.stuck == 0)
        }
    }
}
