import CPixman
import KioskCore

/// The exact area of each pixel that a set of closed polygons covers, as an 8-bit mask: what
/// `Canvas` fills its anti-aliased shapes (discs, rings, rounded rectangles, lines, polygons)
/// through.
///
/// Each edge adds, to every pixel it crosses in a row, the signed area to its right within that
/// pixel; a running sum along the row then gives the covered fraction of every pixel (the
/// accumulation rasterizer of font-rs and stb_truetype). Contours wound the other way subtract,
/// so a ring is its outer outline plus its inner one reversed.
///
/// Why not pixman's trapezoids: `pixman_composite_triangles` rasterizes each triangle of a fan
/// on its own, 15 sample rows per pixel row over the triangle's height, so a 134×40 rounded
/// button (50 triangles) took ~0.2 ms and the touch test's first frame 2.5 ms of shapes; this
/// visits each row of the shape once.
struct PolygonCoverage {
    /// The device pixels the mask covers: the shapes' bounds within the canvas and its clip.
    let window: PixelRect
    private let stride: Int
    /// Per row, `stride` cells of signed area deltas (one spare cell on the right: an edge's
    /// last contribution may land just past the window).
    private var cells: [Float]

    init(window: PixelRect) {
        self.window = window
        stride = Int(window.width) + 2
        cells = [Float](repeating: 0, count: stride * Int(window.height))
    }

    /// Adds a closed polygon (device pixels; its last point joins its first).
    mutating func add(contour points: [(x: Double, y: Double)]) {
        guard points.count >= 2 else { return }
        let ox = Double(window.x), oy = Double(window.y)
        var prev = points[points.count - 1]
        for p in points {
            clippedLine(prev.x - ox, prev.y - oy, p.x - ox, p.y - oy)
            prev = p
        }
    }

    /// Left of the window an edge still covers everything to its right: it becomes a vertical
    /// edge on the window's left side. Right of it, an edge covers nothing inside: dropped.
    private mutating func clippedLine(_ x0: Double, _ y0: Double, _ x1: Double, _ y1: Double) {
        guard y0 != y1 else { return }
        let w = Double(window.width)
        if x0 >= w && x1 >= w { return }
        if x0 <= 0 && x1 <= 0 { return line(0, y0, 0, y1) }
        // Split where the edge crosses a side; each part then lies on one side of it.
        for side in [0, w] where (x0 < side) != (x1 < side) && x0 != side && x1 != side {
            let ym = y0 + (side - x0) * (y1 - y0) / (x1 - x0)
            clippedLine(x0, y0, side, ym)
            clippedLine(side, ym, x1, y1)
            return
        }
        line(x0, y0, x1, y1)
    }

    /// One edge inside the window's columns (0...width), any rows.
    private mutating func line(_ ax: Double, _ ay: Double, _ bx: Double, _ by: Double) {
        let (dir, x0, y0, x1, y1): (Float, Double, Double, Double, Double) = ay < by ? (1, ax, ay, bx, by) : (-1, bx, by, ax, ay)
        let h = Int(window.height)
        let first = max(0, Int(y0.rounded(.down))), end = min(h, Int(y1.rounded(.up)))
        guard first < end else { return }
        let dxdy = (x1 - x0) / (y1 - y0)
        let w = Double(window.width)
        // x where the edge enters row `first`.
        var x = x0 + (max(Double(first), y0) - y0) * dxdy
        let stride = self.stride
        cells.withUnsafeMutableBufferPointer { a in
            for y in first..<end {
                let row = y * stride
                let dy = min(Double(y + 1), y1) - max(Double(y), y0)
                let xNext = x + dxdy * dy
                let d = Float(dy) * dir
                // Rounding may carry x a hair outside the window's columns.
                let lo = min(max(min(x, xNext), 0), w), hi = min(max(max(x, xNext), 0), w)
                let loFloor = lo.rounded(.down), hiCeil = hi.rounded(.up)
                let i0 = Int(loFloor), i1 = Int(hiCeil)
                if i1 <= i0 + 1 {
                    // Within one pixel: the area right of the edge's mean x there.
                    let mid = Float(min(1, max(0, 0.5 * (x + xNext) - loFloor)))
                    a[row + i0] += d - d * mid
                    a[row + i0 + 1] += d * mid
                } else {
                    // Across several pixels: a triangle in the first, a trapezoid ramp in
                    // between, a triangle's complement in the last.
                    let s = 1 / (hi - lo)
                    let f0 = lo - loFloor
                    let a0 = 0.5 * s * (1 - f0) * (1 - f0)
                    let f1 = hi - hiCeil + 1
                    let am = 0.5 * s * f1 * f1
                    a[row + i0] += d * Float(a0)
                    if i1 == i0 + 2 {
                        a[row + i0 + 1] += d * Float(1 - a0 - am)
                    } else {
                        let a1 = s * (1.5 - f0)
                        a[row + i0 + 1] += d * Float(a1 - a0)
                        let step = d * Float(s)
                        for i in (i0 + 2)..<(i1 - 1) { a[row + i] += step }
                        let a2 = a1 + Double(i1 - i0 - 3) * s
                        a[row + i1 - 1] += d * Float(1 - a2 - am)
                    }
                    a[row + i1] += d * Float(am)
                }
                x = xNext
            }
        }
    }

    /// The coverage as a `PIXMAN_a8` image of the window's size (the caller unrefs it).
    func mask() -> OpaquePointer? {
        let w = Int(window.width), h = Int(window.height)
        guard w > 0, h > 0, let img = pixman_image_create_bits(PIXMAN_a8, Int32(w), Int32(h), nil, 0) else { return nil }
        let out = UnsafeMutableRawPointer(pixman_image_get_data(img)!).assumingMemoryBound(to: UInt8.self)
        let outStride = Int(pixman_image_get_stride(img))
        cells.withUnsafeBufferPointer { a in
            for y in 0..<h {
                var sum: Float = 0
                let row = y * stride, o = out + y * outStride
                for x in 0..<w {
                    sum += a[row + x]
                    o[x] = UInt8(min(1, abs(sum)) * 255 + 0.5)
                }
            }
        }
        return img
    }
}
