import KioskCore
import KioskRender

/// Shows a PNG scaled to fill its bounds. A missing or corrupt file is reported once (one line
/// naming the file) and a vector placeholder is drawn instead, so the kiosk keeps going.
open class ImageView: View {
    public var image: Image? { didSet { setNeedsDisplay() } }
    /// Drawn when there is no image: a vector fallback supplied by the owner, or a framed cross.
    public var fallback: ((Canvas, Rect) -> Void)?
    open override var drawsContent: Bool { true }

    public init(frame: Rect = .zero, image: Image? = nil) {
        self.image = image
        super.init(frame: frame)
    }

    /// Loads `path`; on failure logs one line through `report` and keeps the fallback.
    /// Returns whether the image loaded.
    @discardableResult
    public func load(path: String, scale: Int = 1, report: (String) -> Void) -> Bool {
        do {
            image = try PNG.read(path: path, scale: scale, limits: .theme)
            return true
        } catch {
            report("image \(error); drawing a placeholder instead")
            image = nil
            return false
        }
    }

    open override func draw(in canvas: Canvas) {
        let box = Rect(origin: .zero, size: bounds.size)
        if let image, image.size.width > 0, image.size.height > 0 {
            let t = AffineTransform(scaleX: box.width / image.size.width, y: box.height / image.size.height)
            canvas.draw(image, transform: t)
        } else if let fallback {
            fallback(canvas, box)
        } else {
            let c = Color.slate
            canvas.strokeRect(box, width: 2, color: c)
            canvas.strokeLine(from: Point(x: 0, y: 0), to: Point(x: box.maxX, y: box.maxY), width: 2, color: c)
            canvas.strokeLine(from: Point(x: box.maxX, y: 0), to: Point(x: 0, y: box.maxY), width: 2, color: c)
        }
    }
}
