import KioskCore
import KioskRender
import KioskScenes

/// Kiosk's icon: the lander's rocket, firing, on the kiosk's dark background — drawn from the
/// same shapes the game draws (`ShipShape`), as PNG at any size or as SVG.
enum AppIcon {
    static let background = Color.ink
    /// Unit coordinates of the icon: a rounded square, the rocket's box inside it.
    static let cornerRadius = 0.2
    static let rocket = Rect(x: 0.29, y: 0.13, width: 0.42, height: 0.56)

    static func image(size: Int) -> Image? {
        guard let img = Image(pixelSize: PixelSize(width: Int32(size), height: Int32(size)), hasAlpha: true) else { return nil }
        let c = Canvas(image: img)
        let s = Double(size)
        c.fillRoundedRect(Rect(x: 0, y: 0, width: s, height: s), radius: s * cornerRadius, color: background)
        let r = Rect(x: rocket.minX * s, y: rocket.minY * s, width: rocket.width * s, height: rocket.height * s)
        let f = ShipShape.flameBox
        ShipShape.drawFlame(in: c, Rect(x: r.minX + r.width * f.x, y: r.minY + r.height * f.y, width: r.width * f.w, height: r.height * f.h))
        ShipShape.drawRocket(in: c, r)
        return img
    }

    /// The same picture as SVG, in a 256-unit square.
    static func svg() -> String {
        let s = 256.0
        func n(_ v: Double) -> String { String(format2: v) }
        func pt(_ u: (Double, Double), in r: Rect) -> String { "\(n(r.minX + u.0 * r.width)),\(n(r.minY + u.1 * r.height))" }
        func hex(_ c: Color) -> String {
            let v = [c.red, c.green, c.blue].map { Int(($0 * 255).rounded()) }
            return "#" + v.map { ($0 < 16 ? "0" : "") + String($0, radix: 16) }.joined()
        }
        let r = Rect(x: rocket.minX * s, y: rocket.minY * s, width: rocket.width * s, height: rocket.height * s)
        let f = ShipShape.flameBox
        let fr = Rect(x: r.minX + r.width * f.x, y: r.minY + r.height * f.y, width: r.width * f.w, height: r.height * f.h)
        var out = """
        <svg xmlns="http://www.w3.org/2000/svg" width="256" height="256" viewBox="0 0 256 256">
          <rect width="256" height="256" rx="\(n(s * cornerRadius))" fill="\(hex(background))"/>

        """
        for (i, poly) in ShipShape.flames.enumerated() {
            out += "  <polygon points=\"\(poly.map { pt($0, in: fr) }.joined(separator: " "))\" fill=\"\(hex(i == 0 ? ShipShape.flameOuter : ShipShape.flameInner))\"/>\n"
        }
        out += "  <polygon points=\"\(ShipShape.hull.map { pt($0, in: r) }.joined(separator: " "))\" fill=\"\(hex(ShipShape.body))\"/>\n"
        let w = ShipShape.window
        out += "  <circle cx=\"\(n(r.minX + w.x * r.width))\" cy=\"\(n(r.minY + w.y * r.height))\" r=\"\(n(w.r * r.width))\" fill=\"\(hex(ShipShape.trim))\"/>\n"
        for (a, b) in ShipShape.legs {
            let p = pt(a, in: r).split(separator: ","), q = pt(b, in: r).split(separator: ",")
            out += "  <line x1=\"\(p[0])\" y1=\"\(p[1])\" x2=\"\(q[0])\" y2=\"\(q[1])\" stroke=\"\(hex(ShipShape.body))\" stroke-width=\"\(n(r.width * ShipShape.legWidth))\"/>\n"
        }
        return out + "</svg>\n"
    }
}
