import Foundation
import Testing
@testable import Kiosk

@Suite struct ProjectTests {
    /// The committed wayland-scanner output matches the vendored XML.
    @Test func generatedProtocolCodeIsFresh() throws {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/bin/sh")
        p.arguments = [repositoryRoot + "/Protocols/generate.sh", "--check"]
        let err = Pipe()
        p.standardError = err
        try p.run()
        p.waitUntilExit()
        let msg = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        #expect(p.terminationStatus == 0, "\(msg)")
    }
}

@Suite struct BenchPhrasesTests {
    /// The live measurement tool lists the bench's sixteen phrases too (it writes them into a
    /// kiosk.toml): the two lists must not drift apart.
    @Test func theLiveToolUsesTheBenchsSixteenPhrases() throws {
        let tool = try String(contentsOfFile: repositoryRoot + "/Tests/E2E/tools/live_usage.py", encoding: .utf8)
        let start = try #require(tool.range(of: "PHRASES = ["))
        let end = try #require(tool[start.upperBound...].range(of: "]"))
        let block = tool[start.upperBound..<end.lowerBound]
        let listed = block.split(separator: "\"").enumerated().filter { $0.offset % 2 == 1 }.map { String($0.element) }
        #expect(listed == BenchWorkloads.sixteenPhrases)
    }
}
