import Testing
@testable import Kiosk
@testable import KioskPlatform
@testable import KioskCore

@Suite struct TouchAccumulatorTests {
    @Test func aFrameCommitsABatch() {
        var acc = TouchAccumulator()
        acc.down(id: 1, at: Point(x: 10, y: 20), time: 5)
        acc.down(id: 2, at: Point(x: 30, y: 40), time: 5)
        let b = acc.frame()
        #expect(b == TouchBatch(time: 5, points: [touch(1, .began, 10, 20), touch(2, .began, 30, 40)]))
        #expect(acc.frame() == nil) // nothing new
    }

    @Test func motionsWithinAFrameCollapse() {
        var acc = TouchAccumulator()
        acc.down(id: 1, at: Point(x: 0, y: 0), time: 1)
        _ = acc.frame()
        acc.motion(id: 1, to: Point(x: 1, y: 1), time: 2)
        acc.motion(id: 1, to: Point(x: 2, y: 2), time: 3)
        #expect(acc.frame() == TouchBatch(time: 3, points: [touch(1, .moved, 2, 2)]))
    }

    @Test func theLastUpFlushesWithoutAFrame() {
        var acc = TouchAccumulator()
        acc.down(id: 1, at: Point(x: 0, y: 0), time: 1)
        acc.down(id: 2, at: Point(x: 5, y: 5), time: 1)
        _ = acc.frame()
        #expect(acc.up(id: 1, time: 2) == false)
        #expect(acc.up(id: 2, time: 3) == true) // weston 10 sends no frame after this
        #expect(acc.frame()?.points == [touch(1, .ended, 0, 0), touch(2, .ended, 5, 5)])
    }

    @Test func unknownIdsAreIgnored() {
        var acc = TouchAccumulator()
        acc.motion(id: 9, to: Point(x: 1, y: 1), time: 1)
        #expect(acc.up(id: 9, time: 1) == false)
        #expect(acc.frame() == nil)
    }

    @Test func aCancelEndsAPointWhoseUpWaitsForItsFrame() {
        // Found by the touch fuzzer: the up was dropped with the pending changes, the point was
        // no longer active, and the layers above kept it pressed for good.
        var acc = TouchAccumulator()
        acc.down(id: 1, at: Point(x: 1, y: 1), time: 1)
        acc.down(id: 2, at: Point(x: 5, y: 5), time: 1)
        _ = acc.frame()
        #expect(acc.up(id: 1, time: 2) == false) // finger 2 is still down: no flush
        #expect(acc.cancel(at: 9)?.points == [touch(1, .cancelled, 1, 1), touch(2, .cancelled, 5, 5)])
    }

    @Test func cancelDropsPendingAndCancelsEveryActivePoint() {
        var acc = TouchAccumulator()
        acc.down(id: 1, at: Point(x: 1, y: 1), time: 1)
        _ = acc.frame()
        acc.down(id: 2, at: Point(x: 2, y: 2), time: 2) // pending, never committed
        acc.motion(id: 1, to: Point(x: 3, y: 3), time: 2)
        let c = acc.cancel(at: 9)
        #expect(c?.points == [touch(1, .cancelled, 3, 3), touch(2, .cancelled, 2, 2)])
        #expect(acc.frame() == nil)
        #expect(acc.active.isEmpty)
        #expect(acc.cancel(at: 9) == nil)
    }

    @Test func aRepeatedDownEndsTheOldSequenceFirst() {
        var acc = TouchAccumulator()
        acc.down(id: 4, at: Point(x: 1, y: 1), time: 1)
        _ = acc.frame()
        acc.down(id: 4, at: Point(x: 9, y: 9), time: 2) // its up was lost
        #expect(acc.frame()?.points == [touch(4, .ended, 1, 1), touch(4, .began, 9, 9)])
    }
}

@Suite struct WindowGeometryTests {
    /// The table in Quirks.bufferTransform, checked point by point: mirroring the rows of a
    /// buffer turned by `r` must equal the wl_output transform it names (weston's mapping).
    @Test func flippedTransformsMirrorTheTurnedBuffer() {
        let W = 7, H = 4
        // Surface point → buffer point for wl_output transform t (weston_transformed_coord).
        func map(_ t: Int32, _ x: Int, _ y: Int) -> (Int, Int) {
            switch t {
            case 0: return (x, y)
            case 1: return (y, W - x)
            case 2: return (W - x, H - y)
            case 3: return (H - y, x)
            case 4: return (W - x, y)
            case 5: return (y, x)
            case 6: return (x, H - y)
            default: return (H - y, W - x)
            }
        }
        for r: Int32 in 0...3 {
            #expect(Quirks.bufferTransform(rotation: r, flipped: false) == r)
            let f = Quirks.bufferTransform(rotation: r, flipped: true)
            let bufferHeight = r % 2 == 1 ? W : H
            for x in 0...W { for y in 0...H {
                let (bx, by) = map(r, x, y)
                #expect(map(f, x, y) == (bx, bufferHeight - by), "rotation \(r) → \(f) at \(x),\(y)")
            } }
        }
    }

    /// wlroots places touch at the panel's normalized point stretched over the turned surface;
    /// the correction must find the surface point whose pixel the finger covered, through the
    /// same buffer mapping the frames are drawn with (weston_transformed_coord, as above).
    @Test func touchPlacedUnturnedByWlrootsLandsWhereTheFingerIs() {
        let W = 800.0, H = 1280.0
        let wlroots: Set<String> = ["zwlr_export_dmabuf_manager_v1"]
        func toBuffer(_ t: Int32, _ x: Double, _ y: Double) -> (Double, Double) {
            switch t {
            case 1: return (y, W - x)
            case 2: return (W - x, H - y)
            case 3: return (H - y, x)
            default: return (x, y)
            }
        }
        for r in 1...3 {
            let c = Quirks.touchCorrection(announced: wlroots, surface: Size(width: W, height: H), bufferRotation: Rotation(quarterTurns: r))
            #expect(c != nil)
            let (bw, bh) = r % 2 == 1 ? (H, W) : (W, H)
            for (x, y) in [(100.0, 200.0), (700.0, 50.0), (400.0, 1200.0)] {
                let (bx, by) = toBuffer(Window.wlTransform(bufferRotation: Rotation(quarterTurns: r)), x, y)
                let placed = Point(x: bx / bw * W, y: by / bh * H) // what cage 0.1.4 sends
                let p = c!.apply(placed)
                #expect(abs(p.x - x) < 1e-9 && abs(p.y - y) < 1e-9, "turn \(r): \(placed) → \(p), not \(x),\(y)")
            }
        }
        // Unturned, or a compositor that turns touch itself (weston): nothing to correct.
        #expect(Quirks.touchCorrection(announced: wlroots, surface: Size(width: W, height: H), bufferRotation: .upright) == nil)
        #expect(Quirks.touchCorrection(announced: ["weston_capture_v1"], surface: Size(width: W, height: H), bufferRotation: Rotation(quarterTurns: 1)) == nil)
    }

    @Test func configuresPastTheLargestBufferAreFittedKeepingTheirShape() {
        #expect(Window.fitting(Size(width: 1920, height: 1080), scale: 1) == Size(width: 1920, height: 1080))
        #expect(Window.fitting(Size(width: 3840, height: 2160), scale: 2) == Size(width: 3840, height: 2160))
        let huge = Window.fitting(Size(width: 16384, height: 16384), scale: 1)
        #expect(huge.width == huge.height)
        #expect(huge.width * huge.height <= Window.maxBufferArea && huge.width > 6000)
        let wide = Window.fitting(Size(width: 20000, height: 100), scale: 1)
        #expect(wide.width == Window.maxBufferSide && wide.height < 100 && wide.height >= 40)
        let scaled = Window.fitting(Size(width: 8192, height: 8192), scale: 4)
        #expect(scaled.width * 4 <= Window.maxBufferSide && scaled.width == scaled.height)
        #expect(Window.fitting(Size(width: 1, height: 1), scale: 1) == Size(width: 1, height: 1))
    }
}

@Suite struct SystemdTests {
    @Test func theWatchdogIsPingedByItsProcessOrItsChild() {
        let env = ["WATCHDOG_USEC": "2000000"]
        #expect(SystemdNotifier.watchdogInterval(env, pid: 50, parent: 40) == 1.0)
        #expect(SystemdNotifier.watchdogInterval(env.merging(["WATCHDOG_PID": "50"]) { $1 }, pid: 50, parent: 40) == 1.0)
        // cage is the unit's main process and Kiosk its child: Kiosk pings for it.
        #expect(SystemdNotifier.watchdogInterval(env.merging(["WATCHDOG_PID": "40"]) { $1 }, pid: 50, parent: 40) == 1.0)
        #expect(SystemdNotifier.watchdogInterval(env.merging(["WATCHDOG_PID": "7"]) { $1 }, pid: 50, parent: 40) == nil)
        #expect(SystemdNotifier.watchdogInterval([:], pid: 50, parent: 40) == nil)
        #expect(SystemdNotifier.watchdogInterval(["WATCHDOG_USEC": "zero"], pid: 50, parent: 40) == nil)
        #expect(SystemdNotifier(environment: [:]) == nil && SystemdNotifier(environment: ["NOTIFY_SOCKET": "relative"]) == nil)
    }

    @Test func journalPrioritiesFollowSyslog() {
        #expect([Logger.Level.debug, .info, .notice, .warning, .error, .critical].map(Logger.priority) == [7, 6, 5, 4, 3, 2])
        #expect(!Logger.stderrIsJournal(nil) && !Logger.stderrIsJournal("1:2:3") && !Logger.stderrIsJournal("0:0"))
        #expect(Logger.line(.warning, "w", prefixesPriority: true) == "<4>kiosk: warning: w\n")
        #expect(Logger.line(.notice, "n", prefixesPriority: false) == "kiosk: n\n")
    }
}
