import Testing
@testable import KioskUI
@testable import KioskRender
@testable import KioskCore

/// A root at 800×600 with a manual clock and scheduler, rendered into an image on demand.
final class Harness {
    let scheduler = ManualScheduler()
    let root: RootView
    let image: Image
    var time: Double { scheduler.now }

    init(width: Double = 800, height: Double = 600, scale: Int = 1, physical: Size? = nil) {
        root = RootView(info: DisplayInfo(size: Size(width: width, height: height), scale: scale, physicalSize: physical),
                        fonts: FontCache(), scheduler: scheduler)
        root.backgroundColor = .black
        image = Image(pixelSize: PixelSize(width: Int32(width) * Int32(scale), height: Int32(height) * Int32(scale)),
                      hasAlpha: false, scale: scale)!
    }

    /// Renders the damage since the last frame; returns that damage.
    @discardableResult
    func frame(advance dt: Double = 0) -> Region {
        root.advance(to: time + dt)
        let px = image.pixelSize
        let damage = root.invalidation.take(scale: image.scale, bounds: PixelRect(x: 0, y: 0, width: px.width, height: px.height))
        let c = Canvas(image: image)
        c.setClip(damage)
        root.render(in: c)
        c.setClip(nil)
        return damage
    }

    func touches(_ pts: [TouchPoint], dt: Double = 0) {
        if dt > 0 { root.advance(to: time + dt) }
        root.handle(TouchBatch(time: time, points: pts))
    }
    func down(_ id: Int32, _ x: Double, _ y: Double, dt: Double = 0) { touches([touch(id, .began, x, y)], dt: dt) }
    func move(_ id: Int32, _ x: Double, _ y: Double, dt: Double = 0) { touches([touch(id, .moved, x, y)], dt: dt) }
    func up(_ id: Int32, _ x: Double, _ y: Double, dt: Double = 0) { touches([touch(id, .ended, x, y)], dt: dt) }
    func cancel(_ id: Int32, _ x: Double, _ y: Double, dt: Double = 0) { touches([touch(id, .cancelled, x, y)], dt: dt) }
    func wait(_ dt: Double) { root.advance(to: time + dt) }

    func rgb(_ x: Int, _ y: Int) -> (Int, Int, Int) { let c = channels(image.pixel(x: x, y: y)); return (c.r, c.g, c.b) }
}

/// Records the touch callbacks it gets.
final class RecordingView: View {
    var log: [String] = []
    var drawCount = 0
    var handles = true
    override var drawsContent: Bool { true }
    override func draw(in canvas: Canvas) { drawCount += 1; canvas.fill(Rect(origin: .zero, size: bounds.size), color: .white) }
    override func touchesBegan(_ t: Set<Touch>, event: TouchEvent) {
        log.append("began \(t.map { "\($0.id)" }.sorted().joined(separator: ","))")
        if !handles { super.touchesBegan(t, event: event) }
    }
    override func touchesMoved(_ t: Set<Touch>, event: TouchEvent) { log.append("moved"); if !handles { super.touchesMoved(t, event: event) } }
    override func touchesEnded(_ t: Set<Touch>, event: TouchEvent) { log.append("ended"); if !handles { super.touchesEnded(t, event: event) } }
    override func touchesCancelled(_ t: Set<Touch>, event: TouchEvent) { log.append("cancelled"); if !handles { super.touchesCancelled(t, event: event) } }
}

final class RecordingResponder: Responder {
    var log: [String] = []
    override func touchesBegan(_ t: Set<Touch>, event: TouchEvent) { log.append("began") }
    override func touchesEnded(_ t: Set<Touch>, event: TouchEvent) { log.append("ended") }
}

func approx(_ a: Double, _ b: Double, _ eps: Double = 1e-6) -> Bool { abs(a - b) <= eps }
func approx(_ a: Point, _ b: Point, _ eps: Double = 1e-6) -> Bool { approx(a.x, b.x, eps) && approx(a.y, b.y, eps) }

/// A view scene on a manual clock, driven with scripted touch batches.
final class SceneRig<S: ViewScene> {
    let scheduler = ManualScheduler()
    let scene: S
    init(size: Size = Size(width: 1920, height: 1080), make: (FontCache, ManualScheduler) -> S) {
        scene = make(FontCache(), scheduler)
        scene.layout(DisplayInfo(size: size))
        scene.advance(to: 0)
    }
    var now: Double { scheduler.now }
    /// Advances by `dt`, then delivers the batch.
    func send(_ pts: [TouchPoint], after dt: Double = 0.016) {
        scene.advance(to: now + dt)
        scene.handle(TouchBatch(time: now, points: pts))
    }
    func wait(_ dt: Double) { scene.advance(to: now + dt) }
}
