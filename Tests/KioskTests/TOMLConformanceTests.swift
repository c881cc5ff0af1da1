import Foundation
import KioskCore
import Testing
@testable import Kiosk

/// The official TOML test suite (toml-lang/toml-test) as a yardstick: the copy Debian ships in
/// golang-github-burntsushi-toml-dev (make test installs it), or a checkout named by
/// `KIOSK_TOML_TEST=/path/to/toml-test/tests`. Every TOML 1.0 invalid document must be refused
/// with a position, every valid one read to the expected values. `swift test --filter
/// TOMLConformance` prints the tally.
private let tomlTestSuite = ProcessInfo.processInfo.environment["KIOSK_TOML_TEST"]
    ?? "/usr/share/gocode/src/github.com/BurntSushi/toml/internal/toml-test/tests"

@Suite(.enabled(if: FileManager.default.fileExists(atPath: tomlTestSuite + "/valid")))
struct TOMLConformanceTests {
    static var dir: String { tomlTestSuite }

    /// The suite's list of TOML 1.0 documents where it has one (later copies hold TOML 1.1's
    /// too); an older copy, such as Debian 12's, has no list: every document but TOML 1.1's.
    static func files() throws -> [String] {
        if let list = try? String(contentsOfFile: dir + "/files-toml-1.0.0", encoding: .utf8) {
            return list.split(separator: "\n").map(String.init).filter { $0.hasSuffix(".toml") }
        }
        let all = FileManager.default.enumerator(atPath: dir)?.compactMap { $0 as? String } ?? []
        return all.filter { $0.hasSuffix(".toml") && ($0.hasPrefix("valid/") || $0.hasPrefix("invalid/")) && !toml11.contains($0) }.sorted()
    }

    /// What a copy without the lists holds of TOML 1.1 (`\e`, which 1.0 refuses, as we do).
    static let toml11: Set<String> = ["valid/string/escape-esc.toml"]

    static func read(_ name: String) throws -> [UInt8] {
        Array(try Data(contentsOf: URL(fileURLWithPath: dir + "/" + name)))
    }

    @Test func everyInvalidDocumentIsRefusedWithAPosition() throws {
        var accepted: [String] = []
        let invalid = try TOMLConformanceTests.files().filter { $0.hasPrefix("invalid/") }
        for name in invalid {
            let bytes = try TOMLConformanceTests.read(name)
            do {
                _ = try TOML.parse(bytes)
                accepted.append(name)
            } catch {
                #expect(error.position.line >= 1 && error.position.column >= 1)
            }
        }
        print("toml-test 1.0 invalid: \(invalid.count - accepted.count) of \(invalid.count) refused; accepted: \(accepted)")
        #expect(accepted.isEmpty)
    }

    @Test func everyValidDocumentReadsToTheExpectedValues() throws {
        var failed: [String] = [], refusedByLimit: [String] = []
        let valid = try TOMLConformanceTests.files().filter { $0.hasPrefix("valid/") }
        for name in valid {
            let bytes = try TOMLConformanceTests.read(name)
            let expected = try JSONSerialization.jsonObject(with: Data(try TOMLConformanceTests.read(String(name.dropLast(5)) + ".json")))
            do {
                let table = try TOML.parse(bytes)
                if let why = TOMLConformanceTests.compare(.table(table), expected, path: "") { failed.append("\(name): \(why)") }
            } catch where error.message.hasPrefix("NUL characters") {
                refusedByLimit.append(name) // our limit, on purpose: a NUL cuts C strings short
            } catch {
                failed.append("\(name): \(error)")
            }
        }
        print("toml-test 1.0 valid: refused by the NUL limit: \(refusedByLimit)")
        #expect(refusedByLimit.count <= 3)
        print("toml-test 1.0 valid: \(valid.count - failed.count - refusedByLimit.count) of \(valid.count) read as expected")
        for f in failed { print("  \(f)") }
        #expect(failed.isEmpty)
    }

    /// nil when `v` matches toml-test's JSON form, else where and why not.
    static func compare(_ v: TOML.Value, _ json: Any, path: String) -> String? {
        switch v {
        case .table(let t):
            guard let obj = json as? [String: Any] else { return "\(path): expected \(json), got a table" }
            if Set(obj.keys) != Set(t.keys) { return "\(path): keys \(t.keys.sorted()) vs \(obj.keys.sorted())" }
            for k in t.keys { if let w = compare(t[k]!.value, obj[k]!, path: path + "." + k) { return w } }
            return nil
        case .array(let a):
            guard let arr = json as? [Any], arr.count == a.count else { return "\(path): expected \(json), got an array of \(a.count)" }
            for (n, (x, y)) in zip(a, arr).enumerated() { if let w = compare(x.value, y, path: "\(path)[\(n)]") { return w } }
            return nil
        default:
            guard let o = json as? [String: Any], let type = o["type"] as? String, let text = o["value"] as? String else {
                return "\(path): expected \(json), got \(v)"
            }
            switch (v, type) {
            case (.string(let s), "string"): return s == text ? nil : "\(path): \(s.debugDescription) vs \(text.debugDescription)"
            case (.integer(let i), "integer"): return Int64(text) == i ? nil : "\(path): \(i) vs \(text)"
            case (.bool(let b), "bool"): return "\(b)" == text ? nil : "\(path): \(b) vs \(text)"
            case (.float(let d), "float"):
                let want: Double = text == "inf" || text == "+inf" ? .infinity : text == "-inf" ? -.infinity
                    : text.hasSuffix("nan") ? .nan : Double(text) ?? .nan
                return d == want || (d.isNaN && want.isNaN) ? nil : "\(path): \(d) vs \(text)"
            case (.dateTime(let dt), "datetime"), (.dateTime(let dt), "datetime-local"), (.dateTime(let dt), "date-local"), (.dateTime(let dt), "time-local"):
                // Read the expected text with the same reader: equal fields, equal value.
                guard let t = try? TOML.parse(Array("x = \(text)".utf8)), case .dateTime(let want)? = t["x"]?.value else {
                    return "\(path): cannot read the expected \(text)"
                }
                let kind = dt.offsetMinutes != nil ? "datetime" : dt.year != nil && dt.hour != nil ? "datetime-local" : dt.year != nil ? "date-local" : "time-local"
                return dt == want && kind == type ? nil : "\(path): \(dt) (\(kind)) vs \(text) (\(type))"
            default:
                return "\(path): \(v) vs \(type) \(text)"
            }
        }
    }
}
