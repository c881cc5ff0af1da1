import KioskCore

/// A push button: title and/or image, translucent feedback while pressed, an action on release
/// inside, and a hot area larger than it looks (`touchDownHitOutset` to start, and
/// `trackingHitOutset` while the finger moves, as in the touch-patterns material).
open class Button: View {
    public let titleLabel = Label()
    public let imageView = ImageView()
    public var action: ((Button) -> Void)?
    public var isEnabled = true { didSet { if isEnabled != oldValue { refresh() } } }
    public private(set) var isHighlighted = false
    /// Opacity at rest, while pressed, and when disabled.
    public var normalAlpha = 1.0, highlightedAlpha = 0.6, disabledAlpha = 0.35
    /// How far outside its bounds a finger that started on the button still counts as on it.
    public var trackingHitOutset: Double = 40
    private var tracking: Touch?

    public override init(frame: Rect = .zero) {
        super.init(frame: frame)
        touchDownHitOutset = 10
        isAccessibilityElement = true
        accessibilityTraits = .button
        titleLabel.alignment = .center
        titleLabel.isUserInteractionEnabled = false
        imageView.isUserInteractionEnabled = false
        imageView.isHidden = true
        addSubview(imageView)
        addSubview(titleLabel)
        refresh()
    }

    public var title: String {
        get { titleLabel.text }
        set { titleLabel.text = newValue }
    }

    open override func layoutSubviews() {
        let b = Rect(origin: .zero, size: bounds.size)
        imageView.frame = b
        titleLabel.frame = b.insetBy(dx: 6, dy: 0)
    }

    /// On a fill that goes black in high contrast, the button's edge is drawn in its title's colour.
    open override var highContrastOutline: Color? {
        guard backgroundColor.map(\.isSurfaceInHighContrast) ?? true else { return nil }
        return titleLabel.textColor
    }

    open override var spokenLabel: String? { accessibilityLabel ?? (title.isEmpty ? nil : title) }

    /// A screen reader's double tap: the action, as a tap would fire it.
    open override func accessibilityActivate() -> Bool {
        guard isEnabled else { return false }
        action?(self)
        return true
    }

    private func refresh() {
        alpha = !isEnabled ? disabledAlpha : isHighlighted ? highlightedAlpha : normalAlpha
    }

    private func setHighlighted(_ on: Bool) {
        guard on != isHighlighted else { return }
        isHighlighted = on
        refresh()
    }

    private func isInside(_ t: Touch) -> Bool {
        bounds.insetBy(dx: -trackingHitOutset, dy: -trackingHitOutset).contains(t.location(in: self))
    }

    open override func touchesBegan(_ touches: Set<Touch>, event: TouchEvent) {
        guard isEnabled, tracking == nil, let t = touches.first else { return }
        tracking = t
        setHighlighted(true)
    }
    open override func touchesMoved(_ touches: Set<Touch>, event: TouchEvent) {
        guard let t = tracking, touches.contains(t) else { return }
        setHighlighted(isInside(t))
    }
    open override func touchesEnded(_ touches: Set<Touch>, event: TouchEvent) {
        guard let t = tracking, touches.contains(t) else { return }
        tracking = nil
        let fire = isInside(t) && isEnabled
        setHighlighted(false)
        if fire { action?(self) }
    }
    open override func touchesCancelled(_ touches: Set<Touch>, event: TouchEvent) {
        guard let t = tracking, touches.contains(t) else { return }
        tracking = nil
        setHighlighted(false)
    }
}

extension Button {
    /// The look of a quiet control on a dark scene (a page's arrows, Back): dusk, its title in
    /// paper, rounded.
    public func styleQuiet(fontSize: Double) {
        backgroundColor = Color.dusk
        cornerRadius = 12
        titleLabel.fontSize = fontSize
        titleLabel.textColor = Color.paper
    }
}
