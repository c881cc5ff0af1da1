import KioskCore

/// What kind of thing a screen reader says a view is, and its state (UIKit's
/// UIAccessibilityTraits): spoken after its label, "Tiles, scene, selected".
public struct AccessibilityTraits: OptionSet, Sendable, Hashable {
    public let rawValue: Int
    public init(rawValue: Int) { self.rawValue = rawValue }

    public static let button = AccessibilityTraits(rawValue: 1 << 0)
    /// One of the scene bar's pills: a button that shows a scene.
    public static let scene = AccessibilityTraits(rawValue: 1 << 1)
    public static let staticText = AccessibilityTraits(rawValue: 1 << 2)
    public static let header = AccessibilityTraits(rawValue: 1 << 3)
    public static let selected = AccessibilityTraits(rawValue: 1 << 4)
    public static let notEnabled = AccessibilityTraits(rawValue: 1 << 5)
}

extension View {
    /// What a screen reader speaks of this view in `texts`' language: label, role, value, state
    /// ("Tiles, scene, selected"; "Thrust, button"). Nil when it has nothing to say.
    public func spokenDescription(_ texts: Texts) -> String? {
        guard let label = spokenLabel, !label.isEmpty else { return nil }
        var parts = [label]
        let t = accessibilityTraits
        if t.contains(.scene) { parts.append(texts["access.scene"]) } else if t.contains(.button) { parts.append(texts["access.button"]) }
        if t.contains(.header) { parts.append(texts["access.header"]) }
        if let v = accessibilityValue, !v.isEmpty { parts.append(v) }
        if t.contains(.selected) { parts.append(texts["access.selected"]) }
        if t.contains(.notEnabled) { parts.append(texts["access.dimmed"]) }
        return parts.joined(separator: texts["access.separator"])
    }

    /// The views a screen reader visits under this one, in reading order: rows from the top,
    /// each from the leading edge (the right in a right-to-left language). Hidden and
    /// transparent views and what an element holds are left out; a view that groups its
    /// elements (a scroll view's text) is read whole where it stands, in its own order.
    public func accessibilityElements() -> [View] {
        var items: [ReadingItem] = []
        collectReadingItems(into: &items)
        return Self.readingOrder(items, rightToLeft: isRightToLeft).flatMap(\.views)
    }

    /// An element, or a group's elements, and where it stands.
    struct ReadingItem {
        var views: [View]
        var frame: Rect
    }

    private func collectReadingItems(into items: inout [ReadingItem]) {
        guard !isHidden, alpha > 0.01 else { return }
        if isAccessibilityElement {
            if spokenLabel.map({ !$0.isEmpty }) == true { items.append(ReadingItem(views: [self], frame: convert(bounds, to: nil))) }
            return
        }
        guard groupsAccessibilityElements else {
            for v in subviews { v.collectReadingItems(into: &items) }
            return
        }
        var inner: [ReadingItem] = []
        for v in subviews { v.collectReadingItems(into: &inner) }
        let ordered = Self.readingOrder(inner, rightToLeft: isRightToLeft).flatMap(\.views)
        if !ordered.isEmpty { items.append(ReadingItem(views: ordered, frame: convert(bounds, to: nil))) }
    }

    /// The smallest element under `point` (window coordinates) where it can be seen: a finger's,
    /// found in one walk (what a clipping view hides is not there to touch).
    public func accessibilityElement(at point: Point) -> View? {
        var best: (view: View, area: Double)?
        visitVisibleElements(clip: nil) { v, frame in
            let area = frame.width * frame.height
            if frame.contains(point), area < best?.area ?? .infinity { best = (v, area) }
        }
        return best?.view
    }

    /// Each element a screen reader visits, with the part of its frame in the window that shows.
    private func visitVisibleElements(clip: Rect?, _ body: (View, Rect) -> Void) {
        guard !isHidden, alpha > 0.01 else { return }
        let frame = convert(bounds, to: nil)
        let shown = clip.map { frame.intersection($0) } ?? frame
        if isAccessibilityElement {
            if spokenLabel.map({ !$0.isEmpty }) == true, !shown.isEmpty { body(self, shown) }
            return
        }
        let inner = clipsToBounds ? shown : clip
        if let inner, inner.isEmpty { return }
        for v in subviews { v.visitVisibleElements(clip: inner, body) }
    }

    /// Rows: an item whose vertical middle lies within a row's first item joins that row. Of
    /// items starting level, the tallest starts the row (a text and the button at its top
    /// corner are one row: the text first, read from the leading side).
    static func readingOrder(_ items: [ReadingItem], rightToLeft: Bool) -> [ReadingItem] {
        var rows: [[ReadingItem]] = []
        // Level to a quarter point: two views laid out from one edge differ in their last bits.
        func top(_ i: ReadingItem) -> Double { (i.frame.minY * 4).rounded() }
        let sorted = items.sorted { top($0) != top($1) ? top($0) < top($1) : $0.frame.height > $1.frame.height }
        for item in sorted {
            if let i = rows.lastIndex(where: { r in (r[0].frame.minY...r[0].frame.maxY).contains(item.frame.midY) }) {
                rows[i].append(item)
            } else {
                rows.append([item])
            }
        }
        return rows.flatMap { row in row.sorted { rightToLeft ? $0.frame.maxX > $1.frame.maxX : $0.frame.minX < $1.frame.minX } }
    }
}
