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
