import KioskCore
import KioskRender

/// An overlay panel (help screens): a dimmed backdrop over the whole root and a rounded card
/// with a title, a body and a Close button; a tap on the backdrop (outside the card) closes it
/// too. The card is as tall as its text needs; a body longer than the card can hold (large text
/// on a small panel) shows a part at a time, and a More button beside Close turns to the next.
open class Panel: View {
    public let card = View()
    public let titleLabel = Label()
    public let bodyLabel = Label()
    public let closeButton = Button()
    public let moreButton = Button()
    /// The body's whole text (a screen reader says all of it, whichever part shows).
    public var body = "" {
        didSet {
            guard body != oldValue else { return }
            part = 0
            bodyLabel.accessibilityLabel = body
            setNeedsLayout()
        }
    }
    /// Which part of the body shows, of how many.
    public private(set) var part = 0, partCount = 1
    public var onClose: (() -> Void)?
    /// Edges the card keeps clear of (the root's safe area: the shell's scene bar); the
    /// backdrop still covers everything.
    public var contentInsets: EdgeInsets = .zero { didSet { if contentInsets != oldValue { setNeedsLayout() } } }

    public override init(frame: Rect = .zero) {
        super.init(frame: frame)
        backgroundColor = Color.black.withAlpha(0.55)
        card.backgroundColor = Color.panel
        card.cornerRadius = 16
        card.borderWidth = 1
        card.borderColor = Color.steel
        titleLabel.fontSize = 28
        bodyLabel.fontSize = 20
        bodyLabel.numberOfLines = 0
        bodyLabel.textColor = Color.mist
        closeButton.title = "Close"
        closeButton.titleLabel.fontSize = 20
        closeButton.titleLabel.textColor = Color.ink
        closeButton.backgroundColor = Color.sky
        closeButton.cornerRadius = 10
        closeButton.action = { [unowned self] _ in dismiss() }
        moreButton.title = "More"
        moreButton.titleLabel.fontSize = 20
        moreButton.titleLabel.textColor = Color.paper
        moreButton.backgroundColor = Color.dusk
        moreButton.cornerRadius = 10
        moreButton.action = { [unowned self] _ in
            part = (part + 1) % partCount
            setNeedsLayout()
        }
        addSubview(card)
        card.addSubview(titleLabel)
        card.addSubview(bodyLabel)
        card.addSubview(closeButton)
        card.addSubview(moreButton)
    }

    open override func layoutSubviews() {
        let area = bounds.inset(by: contentInsets)
        let mm = root?.info.pointsPerMillimetre ?? DisplayInfo.fallbackPointsPerMillimetre
        let w = max(0, min(area.width - 48, 720))
        let buttonH = max(48, 11 * mm), buttonW = max(140, 30 * mm)
        // Where the body would hold fewer than three lines (large text on a small panel), the
        // card gives up its margins and the title's spare height to the text.
        let lineH = bodyLineHeight, titleLine = titleLabel.sizeThatFits(width: w).height
        let compact = area.height - 32 - (20 + 44 + 8 + 20 + buttonH + 20) < 3 * lineH
        let outer = compact ? 8.0 : 32, gap = compact ? 8.0 : 20, titleH = compact ? max(1, titleLine) : 44
        let chrome = gap + titleH + (compact ? 4 : 8) + gap + buttonH + gap
        bodyLabel.text = bodyPart(width: w - 56, height: area.height - outer - chrome)
        moreButton.isHidden = partCount < 2
        let bodyH = bodyLabel.sizeThatFits(width: w - 56).height
        let h = max(0, min(area.height - outer, chrome + bodyH))
        card.frame = Rect(x: area.minX + (area.width - w) / 2, y: area.minY + (area.height - h) / 2, width: w, height: h)
        titleLabel.frame = Rect(x: 28, y: gap, width: w - 56, height: titleH)
        let bodyY = gap + titleH + (compact ? 4 : 8)
        bodyLabel.frame = Rect(x: 28, y: bodyY, width: w - 56, height: max(0, h - bodyY - gap - buttonH - gap))
        closeButton.frame = Rect(x: isRightToLeft ? 28 : w - 28 - buttonW, y: h - gap - buttonH, width: buttonW, height: buttonH)
        moreButton.frame = Rect(x: isRightToLeft ? w - 28 - buttonW : 28, y: h - gap - buttonH, width: buttonW, height: buttonH)
    }

    private var bodyLineHeight: Double {
        guard let root, let font = root.fonts.font(bodyLabel.fontFamily, points: bodyLabel.fontSize, scale: root.info.scale) else { return 24 }
        return font.lineHeight
    }

    /// The part of `body` on show: its wrapped lines, as many as `height` holds per part (the
    /// lines kept as they were wrapped, so the part lays out the same).
    private func bodyPart(width: Double, height: Double) -> String {
        guard let root, let font = root.fonts.font(bodyLabel.fontFamily, points: bodyLabel.fontSize, scale: root.info.scale) else { return body }
        let lines = Label.wrap(body, font: font, width: width, maxLines: .max).map(\.text)
        let perPart = max(1, Int(height / max(1, font.lineHeight)))
        partCount = max(1, (lines.count + perPart - 1) / perPart)
        part = min(part, partCount - 1)
        guard partCount > 1 else { return body }
        return lines[(part * perPart)..<min(lines.count, (part + 1) * perPart)].joined(separator: "\n")
    }

    /// Shows the panel over `root`'s content, fading in.
    /// Shows the panel over all of `view` (a scene's: within its safe area).
    public func present(in view: View) {
        frame = Rect(origin: .zero, size: view.bounds.size)
        contentInsets = (view as? SceneView)?.info.safeAreaInsets ?? .zero
        alpha = 0
        view.addSubview(self)
        View.animate(duration: 0.2, animations: { self.alpha = 1 })
    }

    public func dismiss() {
        View.animate(duration: 0.2, animations: { self.alpha = 0 }, completion: { _ in
            self.removeFromSuperview()
            self.onClose?()
        })
    }

    open override func touchesEnded(_ touches: Set<Touch>, event: TouchEvent) {
        guard let t = touches.first, !card.bounds.contains(t.location(in: card)) else { return }
        dismiss()
    }
    open override func touchesBegan(_ touches: Set<Touch>, event: TouchEvent) {}
    open override func touchesMoved(_ touches: Set<Touch>, event: TouchEvent) {}
    open override func touchesCancelled(_ touches: Set<Touch>, event: TouchEvent) {}
}
