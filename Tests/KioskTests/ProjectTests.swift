import Foundation
import Testing
@testable import Kiosk

@Suite struct ProjectTests {
    /// Wayland stays in Platform: everything above it must build and run headless.
    @Test func onlyPlatformImportsWayland() throws {
        let src = repositoryRoot + "/Sources/Kiosk"
        let files = try #require(FileManager.default.enumerator(atPath: src)?.allObjects as? [String])
        var offenders: [String] = []
        for f in files where f.hasSuffix(".swift") && !f.hasPrefix("Platform/") {
            let text = try String(contentsOfFile: "\(src)/\(f)", encoding: .utf8)
            for line in text.split(separator: "\n") where line.hasPrefix("import CWayland") || line.hasPrefix("import CXKBCommon") {
                offenders.append("\(f): \(line)")
            }
        }
        #expect(offenders.isEmpty, "\(offenders)")
    }

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
