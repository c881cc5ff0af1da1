#if canImport(Glibc)
import Glibc
#endif
import KioskCore

/// A view taller inside than it looks, as UIScrollView: `content` holds what scrolls, the view
/// shows the part at `offset` (its bounds' origin) and clips the rest. A finger drags it and
/// lets it glide on (momentum, slowing as UIKit's does); `scroll(byPages:)` moves it a page for
/// a button; a screen reader's focus brings what it focuses into view. Moving only repaints the
/// view itself: its bounds' origin moves, nothing else does.
open class ScrollView: View {
    public let content = View()
    /// How far down the content is shown, 0 to `maximumOffset`.
    public var offset: Double {
        get { bounds.origin.y }
        set {
            let clamped = min(max(0, newValue), maximumOffset)
            guard clamped != bounds.origin.y else { return }
            bounds = Rect(origin: Point(x: 0, y: clamped), size: bounds.size)
            onScroll?()
        }
    }
    /// The content's height, which the owner lays out: scrolling goes down to its end.
    public var contentHeight = 0.0 {
        didSet { content.frame = Rect(x: 0, y: 0, width: bounds.width, height: contentHeight); offset = offset }
    }
    public var maximumOffset: Double { max(0, contentHeight - bounds.height) }
    /// Whether there is more than fits.
    public var canScroll: Bool { maximumOffset > 0.5 }
    /// Told whenever the offset changed (a button's state follows it).
    public var onScroll: (() -> Void)?

    /// Momentum: points per second, decaying to a stop; a target for a page's scroll.
    private var velocity = 0.0
    private var glideTime: Double?
    private var target: (from: Double, to: Double, start: Double)?
    private var dragStart = 0.0
    /// UIKit's normal deceleration: the velocity keeps 0.998 of itself each millisecond.
    static let decelerationPerSecond = 0.13
    static let pageDuration = 0.3

    public override init(frame: Rect = .zero) {
        super.init(frame: frame)
        clipsToBounds = true
        isMultipleTouchEnabled = false
        addSubview(content)
        let pan = PanGestureRecognizer { [unowned self] pan in dragged(pan) }
        pan.name = "scroll"
        addGestureRecognizer(pan)
        addDisplayLink(wantsFrames: { [unowned self] in glideTime != nil || target != nil }) { [unowned self] time in glide(to: time) }
    }

    open override func layoutSubviews() {
        content.frame = Rect(x: 0, y: 0, width: bounds.width, height: contentHeight)
        offset = offset
    }

    private func dragged(_ pan: PanGestureRecognizer) {
        switch pan.state {
        case .began:
            stop()
            dragStart = offset
        case .changed:
            offset = dragStart - pan.translation(in: nil).y
        case .ended:
            velocity = -pan.velocity(in: nil).y
            glideTime = nil
            if abs(velocity) > 20 { glideTime = pan.view?.root?.scheduler.now }
        default:
            break
        }
    }

    /// A finger on it stops a glide, as on a phone.
    open override func touchesBegan(_ touches: Set<Touch>, event: TouchEvent) { stop() }

    public func stop() {
        glideTime = nil
        target = nil
        velocity = 0
    }

    /// A page down (1) or up (-1): most of a screen, so that a line of the last one stays in view.
    public func scroll(byPages pages: Int) {
        let step = max(1, bounds.height * 0.85) * Double(pages)
        let now = root?.scheduler.now ?? 0
        stop()
        target = (offset, min(max(0, offset + step), maximumOffset), now)
    }

    /// Brings `rect` (content coordinates) into view, at once: the screen reader's focus moved there.
    public func scrollToVisible(_ rect: Rect) {
        stop()
        if rect.minY < offset { offset = rect.minY - 8 } else if rect.maxY > offset + bounds.height { offset = min(rect.minY - 8, rect.maxY - bounds.height + 8) }
    }

    private func glide(to time: Double) {
        if let t = target {
            let f = min(1, (time - t.start) / Self.pageDuration)
            let eased = 1 - (1 - f) * (1 - f)
            offset = t.from + (t.to - t.from) * eased
            if f >= 1 { target = nil }
            return
        }
        guard let last = glideTime else { return }
        let dt = max(0, time - last)
        glideTime = time
        let before = offset
        // Exact for any frame spacing: the distance a decaying velocity covers in dt.
        let k = log(Self.decelerationPerSecond)
        let decayed = velocity * exp(k * dt)
        offset += (decayed - velocity) / k
        velocity = decayed
        if abs(velocity) < 10 || offset == before && dt > 0 { stop() }
    }

    /// Its elements are read as one block where it stands, in the content's order.
    open override var groupsAccessibilityElements: Bool { true }
}
