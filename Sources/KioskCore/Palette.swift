#if canImport(Glibc)
import Glibc
#endif

/// Kiosk's colours, named once: dark surfaces with light text, one blue accent, and the warm,
/// green and red of the touch widgets and the tile board's buttons.
extension Color {
    // Surfaces, darkest first: the sky behind the lander (space); scene backgrounds, and text
    // on light buttons (ink); cards and panels over a scene (panel); quiet controls on a panel
    // (dusk); borders and dividers (steel).
    public static let space = Color(rgb: 0x05070c), ink = Color(rgb: 0x101418), panel = Color(rgb: 0x1c232c),
                      dusk = Color(rgb: 0x2d3748), steel = Color(rgb: 0x3a4756)
    // Marks and text: grips and inactive marks (slate), secondary text (mist), primary text (paper).
    public static let slate = Color(rgb: 0x8a97a6), mist = Color(rgb: 0xc9d3de), paper = Color(rgb: 0xe8eef4)
    // Accents: the active scene, selected items and primary buttons (sky); warm highlights —
    // hold buttons, the engine's flame (amber); positive actions and the statistics overlay
    // (leaf); the landing pad and markers (lemon); destructive actions (coral).
    public static let sky = Color(rgb: 0x4fc3f7), amber = Color(rgb: 0xffb74d), leaf = Color(rgb: 0x81c784),
                      lemon = Color(rgb: 0xfff176), coral = Color(rgb: 0xe57373)
}

/// The large high-contrast mode's colours, derived from any colour so that every view gets them
/// without a palette of its own: surfaces go black, and whatever is drawn on them is lightened
/// (its hue kept) until it stands 7:1 against black — WCAG's enhanced contrast, for text and
/// controls alike. Dark text on a light fill stays dark: black on at least 7:1. Alpha is kept:
/// a view fading or disabled fades the same.
extension Color {
    /// Below this relative luminance a colour is a surface (steel, the borders, is just above).
    static let surfaceLuminance = 0.05
    /// The least luminance that stands 7.4:1 against black (7:1 with a margin for blending).
    static let highContrastLuminance = 0.32

    /// Whether the colour is a surface in the high-contrast mode (black there).
    public var isSurfaceInHighContrast: Bool { relativeLuminance < Color.surfaceLuminance }

    public var inHighContrast: Color {
        let l = relativeLuminance
        if isSurfaceInHighContrast { return Color(red: 0, green: 0, blue: 0, alpha: alpha) }
        guard l < Color.highContrastLuminance else { return self }
        // Mixed with white by bisection: luminance rises with the share of white.
        var low = 0.0, high = 1.0
        for _ in 0..<20 {
            let mid = (low + high) / 2
            if mixed(withWhite: mid).relativeLuminance < Color.highContrastLuminance { low = mid } else { high = mid }
        }
        return mixed(withWhite: high)
    }

    private func mixed(withWhite share: Double) -> Color {
        Color(red: red + (1 - red) * share, green: green + (1 - green) * share, blue: blue + (1 - blue) * share, alpha: alpha)
    }

    /// WCAG 2's relative luminance of the colour (alpha not counted).
    public var relativeLuminance: Double {
        func linear(_ c: Double) -> Double { c <= 0.04045 ? c / 12.92 : pow((c + 0.055) / 1.055, 2.4) }
        return 0.2126 * linear(red) + 0.7152 * linear(green) + 0.0722 * linear(blue)
    }

    /// WCAG 2's contrast ratio between two colours (1 to 21).
    public static func contrast(_ a: Color, _ b: Color) -> Double {
        let la = a.relativeLuminance, lb = b.relativeLuminance
        return (max(la, lb) + 0.05) / (min(la, lb) + 0.05)
    }
}
