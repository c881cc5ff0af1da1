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
    /// transparent views and what an element holds are left out.
    public func accessibilityElements() -> [View] {
        var found: [(view: View, frame: Rect)] = []
        visitAccessibilityElements { found.append(($0, $1)) }
        return Self.readingOrder(found, rightToLeft: isRightToLeft).map(\.view)
    }

    /// The smallest element under `point` (window coordinates): a finger's, found in one walk.
    public func accessibilityElement(at point: Point) -> View? {
        var best: (view: View, area: Double)?
        visitAccessibilityElements { v, frame in
            let area = frame.width * frame.height
            if frame.contains(point), area < best?.area ?? .infinity { best = (v, area) }
        }
        return best?.view
    }

    /// Each element a screen reader visits, with its frame in the window.
    private func visitAccessibilityElements(_ body: (View, Rect) -> Void) {
        guard !isHidden, alpha > 0.01 else { return }
        if isAccessibilityElement {
            if spokenLabel.map({ !$0.isEmpty }) == true { body(self, convert(bounds, to: nil)) }
            return
        }
        for v in subviews { v.visitAccessibilityElements(body) }
    }

    /// Rows: an element whose vertical middle lies within a row's first element joins that row.
    static func readingOrder(_ items: [(view: View, frame: Rect)], rightToLeft: Bool) -> [(view: View, frame: Rect)] {
        var rows: [[(view: View, frame: Rect)]] = []
        for item in items.sorted(by: { $0.frame.minY < $1.frame.minY }) {
            if let i = rows.lastIndex(where: { r in (r[0].frame.minY...r[0].frame.maxY).contains(item.frame.midY) }) {
                rows[i].append(item)
            } else {
                rows.append([item])
            }
        }
        return rows.flatMap { row in row.sorted { rightToLeft ? $0.frame.maxX > $1.frame.maxX : $0.frame.minX < $1.frame.minX } }
    }
}
