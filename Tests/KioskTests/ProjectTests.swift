import Foundation
import Testing

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
