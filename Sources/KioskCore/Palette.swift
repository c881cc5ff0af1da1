/// Kiosk's colours, named once: dark surfaces with light text, one blue accent, and the warm,
/// green and red of the touch widgets and the tile board's buttons.
extension Color {
    /// Near-black: scene backgrounds, and text on light buttons.
    public static let ink = Color(rgb: 0x101418)
    /// The deep sky behind the lander.
    public static let space = Color(rgb: 0x05070c)
    /// Cards and panels over a scene.
    public static let panel = Color(rgb: 0x1c232c)
    /// Quiet controls on a panel.
    public static let dusk = Color(rgb: 0x2d3748)
    /// Borders and dividers.
    public static let steel = Color(rgb: 0x3a4756)
    /// Grips and inactive marks.
    public static let slate = Color(rgb: 0x8a97a6)
    /// Secondary text.
    public static let mist = Color(rgb: 0xc9d3de)
    /// Primary text.
    public static let paper = Color(rgb: 0xe8eef4)
    /// The accent: the active scene, selected items, primary buttons.
    public static let sky = Color(rgb: 0x4fc3f7)
    /// Warm highlights (hold buttons, the engine's flame).
    public static let amber = Color(rgb: 0xffb74d)
    /// Positive actions and the statistics overlay.
    public static let leaf = Color(rgb: 0x81c784)
    /// Landing pad and markers.
    public static let lemon = Color(rgb: 0xfff176)
    /// Destructive actions.
    public static let coral = Color(rgb: 0xe57373)
}
