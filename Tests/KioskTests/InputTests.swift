import Testing
@testable import Kiosk

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

    @Test func cancelDropsPendingAndCancelsEveryActivePoint() {
        var acc = TouchAccumulator()
        acc.down(id: 1, at: Point(x: 1, y: 1), time: 1)
        _ = acc.frame()
        acc.down(id: 2, at: Point(x: 2, y: 2), time: 2) // pending, never committed
        acc.motion(id: 1, to: Point(x: 3, y: 3), time: 2)
        let c = acc.cancel()
        #expect(c?.points == [touch(1, .cancelled, 3, 3), touch(2, .cancelled, 2, 2)])
        #expect(acc.frame() == nil)
        #expect(acc.active.isEmpty)
        #expect(acc.cancel() == nil)
    }

    @Test func aRepeatedDownEndsTheOldSequenceFirst() {
        var acc = TouchAccumulator()
        acc.down(id: 4, at: Point(x: 1, y: 1), time: 1)
        _ = acc.frame()
        acc.down(id: 4, at: Point(x: 9, y: 9), time: 2) // its up was lost
        #expect(acc.frame()?.points == [touch(4, .ended, 1, 1), touch(4, .began, 9, 9)])
    }
}
