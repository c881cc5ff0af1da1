import Testing
#if canImport(Glibc)
import Glibc
#endif
@testable import Kiosk
@testable import KioskRender
@testable import KioskCore

@Suite struct ScreenshotFileTests {
    /// Waits (up to 5 s) for the picture being written on its thread.
    func settle() {
        for _ in 0..<500 where PictureWork.isBusy { usleep(10_000) }
    }

    /// `[metrics] screenshot`: a still screen (the night) costs one picture and then nothing —
    /// no timer, no picture however long; a screen that changes every frame gets one picture an
    /// interval, the last after it stopped changing.
    @Test func aStillScreenWritesNothingAndAChangingOneAtMostEveryInterval() throws {
        let scheduler = ManualScheduler()
        let dir = "/tmp/kiosk-screenshot-test-\(getpid())"
        mkdir(dir, 0o700)
        defer { unlink(dir + "/screen.png"); rmdir(dir) }
        var taken: [Double] = []
        let file = ScreenshotFile(path: dir + "/screen.png", interval: 10, scheduler: scheduler, log: makeLogger(verbose: false)) {
            taken.append(scheduler.now)
            return Image(pixelSize: PixelSize(width: 8, height: 4), hasAlpha: false)
        }
        file.framePresented()
        for t in stride(from: 0.0, through: 100, by: 0.5) { scheduler.advance(to: t); settle() }
        #expect(taken == [0.5])
        #expect(readSmallFile(dir + "/screen.png")?.starts(with: [0x89, 0x50, 0x4e, 0x47]) == true)
        var t = 100.0
        while t < 130 {
            scheduler.advance(to: t)
            file.framePresented()
            settle()
            t += 1.0 / 60
        }
        for t in stride(from: 130.0, through: 300, by: 0.5) { scheduler.advance(to: t); settle() }
        #expect(taken.map { ($0 * 100).rounded() / 100 } == [0.5, 100.5, 110.5, 120.5, 130.5])
    }
}
