/// A straight (non-premultiplied) RGBA colour with components in 0...1.
public struct Color: Equatable, Hashable, Sendable {
    public var red, green, blue, alpha: Double
    public init(red: Double, green: Double, blue: Double, alpha: Double = 1) {
        self.red = red; self.green = green; self.blue = blue; self.alpha = alpha
    }
    /// From a 0xRRGGBB literal.
    public init(rgb: UInt32, alpha: Double = 1) {
        self.init(red: Double((rgb >> 16) & 0xff) / 255, green: Double((rgb >> 8) & 0xff) / 255,
                  blue: Double(rgb & 0xff) / 255, alpha: alpha)
    }
    /// From "#rrggbb" (or "rrggbb"), as settings write it; nil for anything else.
    public init?(hex s: String) {
        let hex = s.hasPrefix("#") ? String(s.dropFirst()) : s
        guard hex.count == 6, let v = UInt32(hex, radix: 16) else { return nil }
        self.init(rgb: v)
    }
    /// "#rrggbb", as settings write it (alpha left out).
    public var hex: String {
        let v = [red, green, blue].reduce(0) { $0 << 8 | Int(($1 * 255).rounded()) }
        let digits = String(v, radix: 16)
        return "#" + String(repeating: "0", count: 6 - digits.count) + digits
    }
    public func withAlpha(_ a: Double) -> Color { Color(red: red, green: green, blue: blue, alpha: a) }

    public static let black = Color(red: 0, green: 0, blue: 0)
    public static let white = Color(red: 1, green: 1, blue: 1)
    public static let clear = Color(red: 0, green: 0, blue: 0, alpha: 0)

}
