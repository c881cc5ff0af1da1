/// The keysyms Kiosk acts on, named (xkbcommon's XKB_KEY_* values: KeyEvent carries them
/// without the layers above Platform knowing xkbcommon).
public enum Key {
    public static let space: UInt32 = 0x0020
    public static let a: UInt32 = 0x0061
    public static let backSpace: UInt32 = 0xff08
    public static let `return`: UInt32 = 0xff0d
    public static let keypadEnter: UInt32 = 0xff8d
    public static let escape: UInt32 = 0xff1b
    public static let tab: UInt32 = 0xff09
    /// Shift+Tab, as xkbcommon names it.
    public static let leftTab: UInt32 = 0xfe20
    public static let down: UInt32 = 0xff54
    public static let left: UInt32 = 0xff51
    public static let up: UInt32 = 0xff52
    public static let right: UInt32 = 0xff53
    public static let f1: UInt32 = 0xffbe
    public static let f4: UInt32 = 0xffc1
    public static let f12: UInt32 = 0xffc9
}
