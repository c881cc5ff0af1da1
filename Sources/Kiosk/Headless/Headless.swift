import KioskCore
import KioskRender
import KioskUI

/// Renders scenes without a compositor: snapshots, benchmarks and golden-image tests.
///
/// It keeps two images and swaps them each frame like a double-buffered window, repainting in
/// each the new damage plus what that image missed, so frame times match the live window's work.
final class HeadlessRenderer {
    let stage: Stage
    let clock: ManualClock
    private var buffers: [(image: Image, damage: BufferDamage)]
    private var current = 0

    /// `bufferRotation`: quarter turns from the window to its buffer, as on a rotated output.
    init(scene: Scene, info: DisplayInfo, rotation: Rotation = .upright, bufferRotation: Rotation = .upright, clock: ManualClock = ManualClock()) throws {
        self.clock = clock
        stage = Stage(scene: scene, info: info, rotation: rotation)
        stage.setBufferRotation(bufferRotation)
        let px = stage.pixelSize
        var bufs: [(Image, BufferDamage)] = []
        for _ in 0..<2 {
            guard let img = Image(pixelSize: px, hasAlpha: false, scale: info.scale) else {
                throw HeadlessError.badSize(px)
            }
            bufs.append((img, BufferDamage(size: px)))
        }
        buffers = bufs
    }

    enum HeadlessError: Error, CustomStringConvertible {
        case badSize(PixelSize)
        var description: String {
            switch self { case .badSize(let s): return "cannot render at \(s) pixels (1 to \(DisplayInfo.maxPixelSide) on each side)" }
        }
    }

    /// The image holding the latest frame.
    var image: Image { buffers[current].image }

    /// Renders one frame at the clock's time; returns the new damage.
    @discardableResult
    func renderFrame() -> Region {
        stage.advance(to: clock.now)
        let damage = stage.takeDamage()
        let px = stage.pixelSize
        if buffers[0].image.pixelSize != px, let a = Image(pixelSize: px, hasAlpha: false, scale: stage.info.scale),
           let b = Image(pixelSize: px, hasAlpha: false, scale: stage.info.scale) {
            // A new display size (a relayout): new images, as a window gets new buffers.
            buffers = [(a, BufferDamage(size: px)), (b, BufferDamage(size: px))]
        }
        let next = (current + 1) % buffers.count
        let target = buffers[next]
        let paint = target.damage.repaint(for: damage)
        if !paint.isEmpty {
            let canvas = Canvas(image: target.image)
            canvas.setClip(paint)
            stage.draw(in: canvas)
            canvas.setClip(nil)
        }
        target.damage.drawn(damage, siblings: buffers.map(\.damage))
        current = next
        return damage
    }

    /// Advances simulated time to `seconds` in 60 Hz frames (what `--at` means).
    func run(until seconds: Double) {
        renderFrame()
        while clock.now + 1e-9 < seconds {
            clock.advance(by: min(1.0 / 60, seconds - clock.now))
            renderFrame()
        }
    }
}

/// Parses `1920x1080` (or `1920×1080`) into a logical size.
func parseSize(_ text: String) -> Size? {
    let parts = text.lowercased().replacingOccurrences(of: "×", with: "x").split(separator: "x")
    guard parts.count == 2, let w = Int(parts[0]), let h = Int(parts[1]), w > 0, h > 0, w <= Int(DisplayInfo.maxPixelSide), h <= Int(DisplayInfo.maxPixelSide) else { return nil }
    return Size(width: Double(w), height: Double(h))
}

private extension String {
    func replacingOccurrences(of a: String, with b: String) -> String {
        split(separator: Character(a), omittingEmptySubsequences: false).joined(separator: b)
    }
}
