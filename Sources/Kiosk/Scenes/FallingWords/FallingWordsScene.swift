/// The screensaver: translucent words falling down the screen. Each label's text is laid out
/// once and then only composited (straight from fcft's glyph cache) while it falls; a rotation
/// retargets every falling label to the new bottom, and new labels use the new width.
public final class FallingWordsScene: ViewScene {
    public private(set) var model: FallingWordsModel
    private var labels: [Int: Label] = [:]
    private var time = 0.0
    private var isActive = true

    public init(fonts: FontCache, scheduler: Scheduler = ManualScheduler(), config: FallingWordsConfig = FallingWordsConfig()) {
        model = FallingWordsModel(config: config)
        super.init(name: "words", fonts: fonts, scheduler: scheduler)
    }

    public override func build(in root: RootView) {
        root.backgroundColor = .black
    }

    public override func layout(root: RootView) { place() }

    public override func setActive(_ active: Bool) {
        isActive = active
        super.setActive(active)
    }

    public override func advance(to time: Double) {
        if isActive {
            self.time = time
            let size = root.bounds.size
            let change = model.advance(to: time, height: size.height)
            for id in change.removed { labels.removeValue(forKey: id)?.removeFromSuperview() }
            for id in change.added {
                guard let w = model.words.first(where: { $0.id == id }) else { continue }
                let c = model.config
                let l = Label(frame: Rect(x: 0, y: 0, width: c.baseSize.width * w.scale, height: c.baseSize.height * w.scale))
                l.text = w.text
                l.fontSize = 0.6 * c.baseSize.height * w.scale
                l.adjustsFontSizeToFitWidth = true
                l.minimumScaleFactor = 0.2
                l.alignment = .center
                l.textColor = c.color
                l.alpha = c.alpha
                l.isUserInteractionEnabled = false
                labels[id] = l
                root.addSubview(l)
            }
            place()
        }
        super.advance(to: time)
    }

    private func place() {
        let size = root.bounds.size
        for w in model.words { labels[w.id]?.center = model.centre(of: w, at: time, in: size) }
    }

    public override var isAnimating: Bool { isActive || root.isAnimating }
    public var labelCount: Int { labels.count }
}
