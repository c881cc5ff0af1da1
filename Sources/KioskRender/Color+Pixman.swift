import CPixman
import KioskCore

extension Color {
    /// pixman wants 16-bit premultiplied components.
    package var pixman: pixman_color_t {
        let a = max(0, min(1, alpha))
        func c(_ v: Double) -> UInt16 { UInt16((max(0, min(1, v)) * a * 65535).rounded()) }
        return pixman_color_t(red: c(red), green: c(green), blue: c(blue), alpha: UInt16((a * 65535).rounded()))
    }
}
