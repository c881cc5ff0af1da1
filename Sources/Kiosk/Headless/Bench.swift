import KioskCore
import KioskRender
import KioskUI

/// `kiosk bench`: headless frame timings for a scene under a scripted workload.
struct BenchResult {
    var frameTimes: [Double] = [] // seconds
    var damagedPixels: [Int] = []
    var totalPixels = 0

    func percentile(_ p: Double) -> Double {
        guard !frameTimes.isEmpty else { return 0 }
        let s = frameTimes.sorted()
        let i = min(s.count - 1, Int((p / 100 * Double(s.count - 1)).rounded()))
        return s[i]
    }
    var report: String {
        let ms = { (v: Double) in String(Int((v * 1e6).rounded())).leftPad(6) + " µs" }
        let meanDamage = damagedPixels.isEmpty ? 0 : Double(damagedPixels.reduce(0, +)) / Double(damagedPixels.count)
        let pct = totalPixels > 0 ? meanDamage / Double(totalPixels) * 100 : 0
        return """
        frames:        \(frameTimes.count)
        median frame: \(ms(percentile(50)))
        p99 frame:    \(ms(percentile(99)))
        max frame:    \(ms(frameTimes.max() ?? 0))
        mean damage:   \(Int(meanDamage)) px (\(String(format2: pct))% of \(totalPixels))
        """
    }
}

/// Drives `renderer` for `frames` frames, moving one finger in a loop over the screen when the
/// scene takes touches, and measures each frame (input handling, damage and drawing).
enum FingerPath { case lissajous, dragFromCentre }

func runTouchBench(renderer: HeadlessRenderer, frames: Int, fingers: Int, path: FingerPath = .lissajous) -> BenchResult {
    var result = BenchResult()
    let px = renderer.stage.pixelSize
    result.totalPixels = px.area
    let size = renderer.stage.info.size
    renderer.renderFrame() // the first, full frame is not what we measure
    let scene = renderer.stage.scene
    var down = false
    for frame in 0..<frames {
        renderer.clock.advance(by: 1.0 / 60)
        let t = Double(frame) / 60
        var points: [TouchPoint] = []
        for f in 0..<fingers {
            // A finger sweeping a Lissajous path at a brisk but realistic ~600 pt/s.
            let phase = Double(f) * 1.3
            // The drag path starts on the view in the centre so the pan grabs it.
            let k = path == .dragFromCentre ? 1.0 : 0.0
            let p = Point(x: size.width * (0.5 + 0.35 * sin(t * 0.9 + phase * (1 - k))),
                          y: size.height * (0.5 + 0.35 * sin(t * 1.3 + phase * (1 - k)) * (1 - k) + k * 0.2 * sin(t * 1.3)))
            points.append(TouchPoint(id: Int32(f), phase: down ? .moved : .began, location: p))
        }
        down = true
        let start = MonotonicClock.now()
        scene.handle(TouchBatch(time: renderer.clock.now, points: points))
        let damage = renderer.renderFrame()
        result.frameTimes.append(MonotonicClock.now() - start)
        result.damagedPixels.append(damage.area)
    }
    return result
}

/// Measures frames with no input at all: damage must be empty once trails have faded.
func runIdleBench(renderer: HeadlessRenderer, frames: Int) -> BenchResult {
    var result = BenchResult()
    result.totalPixels = renderer.stage.pixelSize.area
    renderer.renderFrame()
    for _ in 0..<frames {
        renderer.clock.advance(by: 1.0 / 60)
        let start = MonotonicClock.now()
        let damage = renderer.renderFrame()
        result.frameTimes.append(MonotonicClock.now() - start)
        result.damagedPixels.append(damage.area)
    }
    return result
}

extension String {
    func leftPad(_ n: Int) -> String { count >= n ? self : String(repeating: " ", count: n - count) + self }
    init(format2 v: Double) {
        let r = (v * 100).rounded() / 100
        self = String(r)
    }
}

#if canImport(Glibc)
import Glibc
#endif
