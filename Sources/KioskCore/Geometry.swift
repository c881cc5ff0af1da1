#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Plain geometry in logical points (Double) and device pixels (Int32). Logical points are what
/// layout uses; pixels are what buffers hold; `scale` converts between them.

public struct Point: Equatable, Hashable, Sendable, CustomStringConvertible {
    public var x: Double
    public var y: Double
    public init(x: Double, y: Double) { self.x = x; self.y = y }
    public static let zero = Point(x: 0, y: 0)
    public static func + (a: Point, b: Point) -> Point { Point(x: a.x + b.x, y: a.y + b.y) }
    public static func - (a: Point, b: Point) -> Point { Point(x: a.x - b.x, y: a.y - b.y) }
    public static func * (a: Point, s: Double) -> Point { Point(x: a.x * s, y: a.y * s) }
    /// Euclidean distance to `other`.
    public func distance(to other: Point) -> Double {
        let dx = x - other.x, dy = y - other.y
        return (dx * dx + dy * dy).squareRoot()
    }
    public var description: String { "(\(x), \(y))" }
}

public struct Size: Equatable, Hashable, Sendable, CustomStringConvertible {
    public var width: Double
    public var height: Double
    public init(width: Double, height: Double) { self.width = width; self.height = height }
    public static let zero = Size(width: 0, height: 0)
    public var isEmpty: Bool { width <= 0 || height <= 0 }
    public var description: String { "\(format(width))×\(format(height))" }
}

/// Distances in from each edge (UIKit's UIEdgeInsets).
public struct EdgeInsets: Equatable, Hashable, Sendable {
    public var top, left, bottom, right: Double
    public init(top: Double = 0, left: Double = 0, bottom: Double = 0, right: Double = 0) {
        self.top = top; self.left = left; self.bottom = bottom; self.right = right
    }
    public static let zero = EdgeInsets()
}

public struct Rect: Equatable, Hashable, Sendable, CustomStringConvertible {
    public var origin: Point
    public var size: Size
    public init(origin: Point, size: Size) { self.origin = origin; self.size = size }
    public init(x: Double, y: Double, width: Double, height: Double) {
        origin = Point(x: x, y: y); size = Size(width: width, height: height)
    }
    public static let zero = Rect(x: 0, y: 0, width: 0, height: 0)
    public var minX: Double { origin.x }
    public var minY: Double { origin.y }
    public var maxX: Double { origin.x + size.width }
    public var maxY: Double { origin.y + size.height }
    public var midX: Double { origin.x + size.width / 2 }
    public var midY: Double { origin.y + size.height / 2 }
    public var width: Double { size.width }
    public var height: Double { size.height }
    public var center: Point { Point(x: midX, y: midY) }
    public var isEmpty: Bool { size.isEmpty }

    /// A square of side `2 * radius` centred on `center`.
    public init(center: Point, radius: Double) {
        self.init(x: center.x - radius, y: center.y - radius, width: radius * 2, height: radius * 2)
    }
    public func contains(_ p: Point) -> Bool { p.x >= minX && p.x < maxX && p.y >= minY && p.y < maxY }
    /// The rectangle less `insets` on each side (never negative in size).
    public func inset(by insets: EdgeInsets) -> Rect {
        Rect(x: minX + insets.left, y: minY + insets.top,
             width: max(0, width - insets.left - insets.right), height: max(0, height - insets.top - insets.bottom))
    }
    public func insetBy(dx: Double, dy: Double) -> Rect {
        Rect(x: minX + dx, y: minY + dy, width: width - 2 * dx, height: height - 2 * dy)
    }
    public func offsetBy(dx: Double, dy: Double) -> Rect {
        Rect(x: minX + dx, y: minY + dy, width: width, height: height)
    }
    public func union(_ o: Rect) -> Rect {
        if isEmpty { return o }
        if o.isEmpty { return self }
        let x0 = min(minX, o.minX), y0 = min(minY, o.minY)
        return Rect(x: x0, y: y0, width: max(maxX, o.maxX) - x0, height: max(maxY, o.maxY) - y0)
    }
    public func intersection(_ o: Rect) -> Rect {
        let x0 = max(minX, o.minX), y0 = max(minY, o.minY)
        let x1 = min(maxX, o.maxX), y1 = min(maxY, o.maxY)
        if x1 <= x0 || y1 <= y0 { return .zero }
        return Rect(x: x0, y: y0, width: x1 - x0, height: y1 - y0)
    }
    public func intersects(_ o: Rect) -> Bool { !intersection(o).isEmpty }
    /// The smallest pixel rectangle that covers this rect at `scale` (outward rounding, so
    /// anti-aliased edges are always inside the damage).
    public func pixelBounds(scale: Int) -> PixelRect {
        let s = Double(scale)
        let x0 = (minX * s).rounded(.down), y0 = (minY * s).rounded(.down)
        let x1 = (maxX * s).rounded(.up), y1 = (maxY * s).rounded(.up)
        return PixelRect(x: Int32(clamping: Int(x0)), y: Int32(clamping: Int(y0)),
                         width: Int32(clamping: Int(x1 - x0)), height: Int32(clamping: Int(y1 - y0)))
    }
    public var description: String { "\(format(minX)),\(format(minY)) \(size)" }
}

/// An integer rectangle in buffer pixels.
public struct PixelRect: Equatable, Hashable, Sendable, CustomStringConvertible {
    public var x: Int32
    public var y: Int32
    public var width: Int32
    public var height: Int32
    public init(x: Int32, y: Int32, width: Int32, height: Int32) {
        self.x = x; self.y = y; self.width = width; self.height = height
    }
    public var isEmpty: Bool { width <= 0 || height <= 0 }
    public var area: Int { isEmpty ? 0 : Int(width) * Int(height) }
    public var description: String { "\(x),\(y) \(width)×\(height)" }
    /// The smallest rectangle holding both (an empty one counts as nothing).
    public func union(_ o: PixelRect) -> PixelRect {
        if isEmpty { return o }
        if o.isEmpty { return self }
        let x1 = min(x, o.x), y1 = min(y, o.y)
        return PixelRect(x: x1, y: y1, width: max(x + width, o.x + o.width) - x1, height: max(y + height, o.y + o.height) - y1)
    }
    /// The pixels in both (empty, at the origin, when they do not meet).
    public func intersection(_ o: PixelRect) -> PixelRect {
        let x1 = max(x, o.x), y1 = max(y, o.y), x2 = min(x + width, o.x + o.width), y2 = min(y + height, o.y + o.height)
        return x2 > x1 && y2 > y1 ? PixelRect(x: x1, y: y1, width: x2 - x1, height: y2 - y1) : PixelRect(x: 0, y: 0, width: 0, height: 0)
    }
    /// These pixels (of a space of points at `scale`) through `t`, a quarter turn (or flip) and a
    /// translation (points → points, the translation whole pixels at `scale`), as the same
    /// pixels of the turned space: in whole numbers, where mapping through points could round
    /// a third of a pixel the wrong way at scale 3. Nil when `t` is not such a turn.
    public func quarterTurned(by t: AffineTransform, scale: Int) -> PixelRect? {
        // Each axis onto one axis, whole (a turn or a flip): entries 0 or ±1, one per row, not
        // singular. (Tested one by one: an array of the four cost a heap allocation per call,
        // and a turned canvas maps every text mask's rectangle each frame.)
        func unit(_ v: Double) -> Bool { v == 0 || abs(v) == 1 }
        guard unit(t.a), unit(t.b), unit(t.c), unit(t.d), t.a * t.b == 0, t.c * t.d == 0, t.determinant != 0 else { return nil }
        let a = Int32(t.a), b = Int32(t.b), c = Int32(t.c), d = Int32(t.d)
        let s = Double(scale), tx = Int32((t.tx * s).rounded()), ty = Int32((t.ty * s).rounded())
        let x1 = a * x + c * y + tx, y1 = b * x + d * y + ty
        let x2 = a * (x + width) + c * (y + height) + tx, y2 = b * (x + width) + d * (y + height) + ty
        return PixelRect(x: min(x1, x2), y: min(y1, y2), width: abs(x2 - x1), height: abs(y2 - y1))
    }
}

/// A whole-pixel buffer size.
public struct PixelSize: Equatable, Hashable, Sendable, CustomStringConvertible {
    public var width: Int32
    public var height: Int32
    public init(width: Int32, height: Int32) { self.width = width; self.height = height }
    public var area: Int { Int(width) * Int(height) }
    public var description: String { "\(width)x\(height)" }
}

/// A 2-D affine transform, `x' = a*x + c*y + tx`, `y' = b*x + d*y + ty` (UIKit's layout).
public struct AffineTransform: Equatable, Sendable {
    public var a, b, c, d, tx, ty: Double
    public init(a: Double, b: Double, c: Double, d: Double, tx: Double, ty: Double) {
        self.a = a; self.b = b; self.c = c; self.d = d; self.tx = tx; self.ty = ty
    }
    public static let identity = AffineTransform(a: 1, b: 0, c: 0, d: 1, tx: 0, ty: 0)
    public init(translationX x: Double, y: Double) { self.init(a: 1, b: 0, c: 0, d: 1, tx: x, ty: y) }
    public init(scaleX sx: Double, y sy: Double) { self.init(a: sx, b: 0, c: 0, d: sy, tx: 0, ty: 0) }
    public init(rotationAngle angle: Double) {
        let cs = cos(angle), sn = sin(angle)
        self.init(a: cs, b: sn, c: -sn, d: cs, tx: 0, ty: 0)
    }
    /// `r` into a space `w` × `h` points (the space after turning).
    public static func turning(_ r: Rotation, into w: Double, _ h: Double) -> AffineTransform {
        switch r.quarterTurns {
        case 1: return AffineTransform(a: 0, b: 1, c: -1, d: 0, tx: w, ty: 0)
        case 2: return AffineTransform(a: -1, b: 0, c: 0, d: -1, tx: w, ty: h)
        case 3: return AffineTransform(a: 0, b: -1, c: 1, d: 0, tx: 0, ty: h)
        default: return .identity
        }
    }
    /// `self` followed by `t`.
    public func concatenating(_ t: AffineTransform) -> AffineTransform {
        AffineTransform(a: a * t.a + b * t.c, b: a * t.b + b * t.d,
                        c: c * t.a + d * t.c, d: c * t.b + d * t.d,
                        tx: tx * t.a + ty * t.c + t.tx, ty: tx * t.b + ty * t.d + t.ty)
    }
    public func apply(_ p: Point) -> Point {
        Point(x: a * p.x + c * p.y + tx, y: b * p.x + d * p.y + ty)
    }
    public var determinant: Double { a * d - b * c }
    /// The inverse, or nil when the transform is singular (a zero scale).
    public var inverted: AffineTransform? {
        let det = determinant
        guard abs(det) > 1e-12 else { return nil }
        return AffineTransform(a: d / det, b: -b / det, c: -c / det, d: a / det,
                               tx: (c * ty - d * tx) / det, ty: (b * tx - a * ty) / det)
    }
    /// The bounding box of `r` after the transform. (No arrays: this runs for every view
    /// change and every composited view.)
    public func apply(_ r: Rect) -> Rect {
        if a == 1 && b == 0 && c == 0 && d == 1 { return r.offsetBy(dx: tx, dy: ty) }
        let p1 = apply(Point(x: r.minX, y: r.minY)), p2 = apply(Point(x: r.maxX, y: r.minY))
        let p3 = apply(Point(x: r.minX, y: r.maxY)), p4 = apply(Point(x: r.maxX, y: r.maxY))
        let x0 = min(min(p1.x, p2.x), min(p3.x, p4.x)), x1 = max(max(p1.x, p2.x), max(p3.x, p4.x))
        let y0 = min(min(p1.y, p2.y), min(p3.y, p4.y)), y1 = max(max(p1.y, p2.y), max(p3.y, p4.y))
        return Rect(x: x0, y: y0, width: x1 - x0, height: y1 - y0)
    }
}

package func format(_ v: Double) -> String {
    v == v.rounded() && abs(v) < 1e15 ? String(Int(v)) : String(v)
}


/// A turn by whole quarter turns, clockwise as seen on screen (y down): how the kiosk turns its
/// picture (`rotate`), and how a buffer is turned for a rotated output. Wayland's output
/// transforms count the other way; Platform converts them where it reads them.
public struct Rotation: Hashable, Sendable, CustomStringConvertible {
    /// Clockwise quarter turns, 0...3.
    public let quarterTurns: Int
    public init(quarterTurns: Int) { self.quarterTurns = ((quarterTurns % 4) + 4) % 4 }
    /// 0, 90, 180 or 270 degrees; nil for any other angle.
    public init?(degrees: Int) {
        guard degrees % 90 == 0, (0..<360).contains(degrees) else { return nil }
        self.init(quarterTurns: degrees / 90)
    }
    public static let upright = Rotation(quarterTurns: 0)
    public var degrees: Int { quarterTurns * 90 }
    public var description: String { "\(degrees)°" }
    /// Whether width and height trade places.
    public var swapsSides: Bool { quarterTurns % 2 == 1 }
    /// The turn back.
    public var inverse: Rotation { Rotation(quarterTurns: -quarterTurns) }
    /// This turn followed by `other`.
    public func then(_ other: Rotation) -> Rotation { Rotation(quarterTurns: quarterTurns + other.quarterTurns) }
    /// `size` turned: width and height swapped on a quarter turn.
    public func apply(_ size: Size) -> Size { swapsSides ? Size(width: size.height, height: size.width) : size }
    /// Pixel (x, y) of a `width` × `height` box, turned (y down).
    public func turn(_ x: Int, _ y: Int, width: Int, height: Int) -> (Int, Int) {
        switch quarterTurns {
        case 1: return (height - 1 - y, x)
        case 2: return (width - 1 - x, height - 1 - y)
        case 3: return (y, width - 1 - x)
        default: return (x, y)
        }
    }
}
