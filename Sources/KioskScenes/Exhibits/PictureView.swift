import KioskCore
import KioskRender
import KioskUI

/// Decodes the exhibits' pictures through the scene's helper (away from the frame loop in the
/// live kiosk) and says once, per file, that one cannot be shown.
final class PictureLoader {
    let helper: Helper
    private let report: (String) -> Void
    private var reported: Set<String> = []
    /// Pictures decoded, and those that could not be (tests and the benchmark count them).
    private(set) var decoded = 0, failed = 0

    init(helper: Helper, report: @escaping (String) -> Void) {
        self.helper = helper
        self.report = report
    }

    /// Decodes `path` for `box` pixels; `done` gets the image, or nil (said once) when it cannot.
    @discardableResult
    func load(_ path: String, box: PixelSize, fit: Picture.Fit, scale: Int, done: @escaping (Image?) -> Void) -> HelperTask {
        helper.run({ () -> Result<UncheckedImage, Picture.Failure> in
            do throws(Picture.Failure) {
                return .success(UncheckedImage(image: try Picture.read(path: path, box: box, fit: fit, scale: scale)))
            } catch { return .failure(error) }
        }, then: { [weak self] result in
            switch result {
            case .success(let decoded):
                self?.decoded += 1
                done(decoded.image)
            case .failure(let failure):
                self?.failed += 1
                self?.say(failure)
                done(nil)
            }
        })
    }

    private func say(_ failure: Picture.Failure) {
        guard reported.insert(failure.path).inserted else { return }
        report("exhibits: picture \(failure); a placeholder is shown instead")
    }
}

/// An image made on the helper's thread and used only on the frame loop's once handed over.
struct UncheckedImage: @unchecked Sendable {
    let image: Image
}

/// One exhibit's picture, decoded for the pixels it takes on screen: again only when that size
/// changes (a turn, the large mode). While it loads a quiet panel shows; a picture that cannot
/// be shown is a drawn placeholder.
package final class PictureView: View {
    private let loader: PictureLoader
    let fit: Picture.Fit
    var path: String? { didSet { if path != oldValue { request() } } }
    private(set) var image: Image? { didSet { setNeedsDisplay() } }
    private(set) var failed = false { didSet { if failed != oldValue { setNeedsDisplay() } } }
    /// What shows where the picture does not reach, and while it loads.
    var background = Color.panel
    /// What the shown (or coming) image was decoded for.
    private var wanted: (path: String, box: PixelSize, scale: Int)?
    private var task: HelperTask?

    init(loader: PictureLoader, fit: Picture.Fit) {
        self.loader = loader
        self.fit = fit
        super.init()
        isUserInteractionEnabled = false
    }

    package override var drawsContent: Bool { true }

    package override func layoutSubviews() { request() }

    /// Whether it or what holds it is hidden (a tile on another page of the board).
    private var isHiddenInTree: Bool {
        var v: View? = self
        while let cur = v { if cur.isHidden { return true }; v = cur.superview }
        return false
    }

    /// The picture for the pixels this view covers now, unless it has them already; nothing for
    /// a view not shown (its page's layout asks when it is).
    private func request() {
        guard let path else {
            // Let go: what was coming is not wanted any more.
            task?.cancel()
            (wanted, image, failed) = (nil, nil, false)
            return
        }
        guard !isHiddenInTree, let info = measuring?.info, bounds.width >= 1, bounds.height >= 1 else { return }
        let box = PixelSize(width: Int32((bounds.width * Double(info.scale)).rounded()), height: Int32((bounds.height * Double(info.scale)).rounded()))
        if let w = wanted, w.path == path, w.box == box, w.scale == info.scale { return }
        task?.cancel()
        wanted = (path, box, info.scale)
        if image.map({ $0.pixelSize != box && fit == .filling }) ?? false { image = nil }
        task = loader.load(path, box: box, fit: fit, scale: info.scale) { [weak self] decoded in
            guard let self, self.wanted?.path == path, self.wanted?.box == box else { return }
            image = decoded
            failed = decoded == nil
        }
    }

    package override func draw(in canvas: Canvas) {
        let b = Rect(origin: .zero, size: bounds.size)
        canvas.fill(b, color: background)
        if let image {
            // Inside: centred in the view; filling: the view's size exactly.
            let s = image.size
            let origin = Point(x: (b.width - s.width) / 2, y: (b.height - s.height) / 2)
            canvas.draw(image, transform: AffineTransform(translationX: origin.x, y: origin.y), within: b)
            return
        }
        guard failed else { return }
        // A picture that could not be shown: a framed mountain and sun, as a file manager's.
        let side = min(b.width, b.height) * 0.4, c = b.center
        let frame = Rect(x: c.x - side / 2, y: c.y - side * 0.4, width: side, height: side * 0.8)
        let slate = Color.slate
        canvas.strokeRect(frame, width: max(1, side * 0.04), color: slate)
        canvas.fillPolygon([Point(x: frame.minX + side * 0.08, y: frame.maxY - side * 0.08), Point(x: frame.minX + side * 0.38, y: frame.midY),
                            Point(x: frame.minX + side * 0.6, y: frame.maxY - side * 0.25), Point(x: frame.minX + side * 0.72, y: frame.maxY - side * 0.35),
                            Point(x: frame.maxX - side * 0.08, y: frame.maxY - side * 0.08)], color: slate)
        canvas.fillCircle(center: Point(x: frame.maxX - side * 0.25, y: frame.minY + side * 0.22), radius: side * 0.08, color: slate)
    }
}
