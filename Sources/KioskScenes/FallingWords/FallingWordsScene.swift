import KioskCore
import KioskRender
import KioskUI

/// The screensaver: translucent words falling down the screen. Each label's text is laid out
/// once and then only composited (straight from fcft's glyph cache) while it falls; a rotation
/// retargets every falling label to the new bottom, and new labels use the new width.
public final class FallingWordsScene: ViewScene {
    public private(set) var model: FallingWordsModel
    private let wordsView: FallingWordsView
    private var time = 0.0
    private var isActive = true

    public init(fonts: FontCache, scheduler: Scheduler = ManualScheduler(), config: FallingWordsConfig = FallingWordsConfig()) {
        model = FallingWordsModel(config: config)
        wordsView = FallingWordsView(config: model.config)
        super.init(name: "words", fonts: fonts, scheduler: scheduler, texts: Self.textTable)
    }

    public override func build(in view: SceneView) {
        // The words view paints the background itself, in the same pass as the words.
        view.backgroundColor = nil
        view.addSubview(wordsView)
        // Words spawn and fall while the screensaver runs.
        view.addDisplayLink(wantsFrames: { [unowned self] in isActive }) { [unowned self] time in fall(to: time) }
    }

    /// Hundreds of small label boxes: kept apart rather than repainting their bounding box
    /// (the coverage pass walks the damage once, not once per label).
    public override var maximumDamageRects: Int { 4096 }

    public override func layout(view: SceneView) {
        wordsView.frame = view.bounds
        place()
    }

    public override func setActive(_ active: Bool) {
        isActive = active
        super.setActive(active)
    }

    private func fall(to time: Double) {
        guard isActive else { return }
        self.time = time
        let change = model.advance(to: time, height: view.bounds.height)
        wordsView.remove(ids: change.removed)
        for id in change.added {
            if let w = model.words.last(where: { $0.id == id }) { wordsView.add(w) }
        }
        place()
    }

    private func place() { wordsView.place(model: model, time: time, size: view.bounds.size) }

    public var labelCount: Int { wordsView.count }
    /// The mean label's ink box in pixels.
    public var meanLabelInkPixels: Double { wordsView.meanInkPixels }
    /// Fonts loaded (the scene's and those held for making labels), and the label masks kept
    /// (how many, their bytes): what the labels hold.
    public var textMemory: (fonts: Int, masks: Int, maskBytes: Int) {
        let cache = view.root?.renderCache
        return (view.fonts.count + wordsView.labelFontCount, cache?.textMasks.count ?? 0, cache?.textMasks.byteCount ?? 0)
    }
    /// Where the label of word `id` is drawn (its centre, snapped to device pixels).
    public func labelCentre(of id: Int) -> Point? { wordsView.placedCentre(of: id) }
    /// The pixel size of the label of word `id`'s text.
    public func labelPixelSize(of id: Int) -> Int? { wordsView.pixelSize(of: id) }
}
