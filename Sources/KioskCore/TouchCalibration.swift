/// The map from where touches arrive to where the fingers were, fitted from taps on targets
/// the kiosk showed: a touch controller mounted turned, mirrored, with swapped axes, or a
/// little off in scale and position is one affine map (libinput's calibration matrix), found
/// here by least squares.
public enum TouchCalibration {
    /// libinput's matrix that leaves touches as the panel sends them.
    public static let identityMatrix: [Double] = [1, 0, 0, 0, 1, 0]

    /// Where to show the targets on a `size` screen: its corners inset by a tenth, then a
    /// fifth point off both diagonals (at the centre a mistap on one corner could not be told
    /// from one on the opposite corner: three corners and the middle of their diagonal fit any
    /// affine map).
    public static func targets(in size: Size) -> [Point] {
        let w = size.width, h = size.height
        return [Point(x: 0.1 * w, y: 0.1 * h), Point(x: 0.9 * w, y: 0.1 * h), Point(x: 0.9 * w, y: 0.9 * h),
                Point(x: 0.1 * w, y: 0.9 * h), Point(x: 0.5 * w, y: 0.35 * h)]
    }

    /// One tap: where the touch arrived, and the centre of the target shown for it.
    public struct Sample: Equatable, Sendable {
        public var touched: Point
        public var target: Point
        public init(touched: Point, target: Point) { self.touched = touched; self.target = target }
    }

    public struct Fit: Equatable, Sendable {
        /// Touched → target: apply it to every touch.
        public let transform: AffineTransform
        /// The samples' distances from their targets, in points: before and after the fit.
        public let errorsBefore: [Double]
        public let errorsAfter: [Double]
        /// The sample left out as a mistap (a finger far from its target), to be asked again.
        public let rejected: Int?
    }

    public enum Failure: Error, Equatable, CustomStringConvertible {
        case tooFew(Int)
        case onALine
        public var description: String {
            switch self {
            case .tooFew(let n): return "\(n) taps are too few: at least 3, not on a line"
            case .onALine: return "the taps lie on a line: touch targets across the screen"
            }
        }
    }

    /// Fits `samples` (3 or more, not on a line). With 5 or more, when the fit misses a target
    /// by over `tolerance` points, the one sample whose leaving out lets the others fit within
    /// it is left out (`rejected`: a mistap, to be asked again).
    public static func fit(_ samples: [Sample], tolerance: Double) throws -> Fit {
        var transform = try leastSquares(samples)
        var rejected: Int?
        let misses = samples.map { transform.apply($0.touched).distance(to: $0.target) }
        if samples.count >= 5, misses.contains(where: { $0 > tolerance }) {
            // Left out in turn: without the mistap the others agree best (with it, one map
            // cannot meet them all).
            let without = samples.indices.compactMap { i -> (Int, AffineTransform, Double)? in
                var rest = samples
                rest.remove(at: i)
                guard let t = try? leastSquares(rest) else { return nil }
                let misses = rest.map { t.apply($0.touched).distance(to: $0.target) }
                guard misses.allSatisfy({ $0 <= tolerance }) else { return nil }
                return (i, t, misses.map { $0 * $0 }.reduce(0, +))
            }
            if let best = without.min(by: { $0.2 < $1.2 }) { (rejected, transform) = (best.0, best.1) }
        }
        return Fit(transform: transform,
                   errorsBefore: samples.map { $0.touched.distance(to: $0.target) },
                   errorsAfter: samples.map { transform.apply($0.touched).distance(to: $0.target) },
                   rejected: rejected)
    }

    /// The same map as libinput's `LIBINPUT_CALIBRATION_MATRIX` for a `size` screen: six
    /// numbers, row-major, on coordinates normalized to 0...1.
    public static func libinputMatrix(_ t: AffineTransform, size: Size) -> [Double] {
        let w = size.width, h = size.height
        return [t.a, t.c * h / w, t.tx / w, t.b * w / h, t.d, t.ty / h]
    }

    /// The map a libinput matrix stands for on a `size` screen (nil: not invertible).
    public static func transform(libinputMatrix m: [Double], size: Size) -> AffineTransform? {
        guard m.count == 6, m.allSatisfy(\.isFinite) else { return nil }
        let w = size.width, h = size.height
        let t = AffineTransform(a: m[0], b: m[3] * h / w, c: m[1] * w / h, d: m[4], tx: m[2] * w, ty: m[5] * h)
        return t.inverted == nil ? nil : t
    }

    /// Least squares in coordinates centred on the taps and scaled to about 1, so the normal
    /// equations stay well conditioned at any screen size.
    private static func leastSquares(_ samples: [Sample]) throws -> AffineTransform {
        guard samples.count >= 3 else { throw Failure.tooFew(samples.count) }
        let n = Double(samples.count)
        let cx = samples.map(\.touched.x).reduce(0, +) / n, cy = samples.map(\.touched.y).reduce(0, +) / n
        let spread = (samples.map { ($0.touched.x - cx) * ($0.touched.x - cx) + ($0.touched.y - cy) * ($0.touched.y - cy) }.reduce(0, +) / n).squareRoot()
        guard spread > 0 else { throw Failure.onALine }
        // Rows (u, v, 1) of the centred, scaled touches; the normal matrix and right-hand sides.
        var m = [[Double]](repeating: [0, 0, 0], count: 3)
        var rx = [0.0, 0, 0], ry = [0.0, 0, 0]
        for s in samples {
            let row = [(s.touched.x - cx) / spread, (s.touched.y - cy) / spread, 1]
            for i in 0..<3 {
                for j in 0..<3 { m[i][j] += row[i] * row[j] }
                rx[i] += row[i] * s.target.x
                ry[i] += row[i] * s.target.y
            }
        }
        guard let px = solve(m, rx), let py = solve(m, ry) else { throw Failure.onALine }
        // target = p·(u, v, 1) with u = (x − cx)/spread: back to touched coordinates.
        let a = px[0] / spread, c = px[1] / spread, b = py[0] / spread, d = py[1] / spread
        return AffineTransform(a: a, b: b, c: c, d: d, tx: px[2] - a * cx - c * cy, ty: py[2] - b * cx - d * cy)
    }

    /// `m` x = `r` for a 3×3 `m` by Cramer's rule; nil when `m` is (nearly) singular.
    private static func solve(_ m: [[Double]], _ r: [Double]) -> [Double]? {
        func det(_ k: [[Double]]) -> Double {
            k[0][0] * (k[1][1] * k[2][2] - k[1][2] * k[2][1])
                - k[0][1] * (k[1][0] * k[2][2] - k[1][2] * k[2][0])
                + k[0][2] * (k[1][0] * k[2][1] - k[1][1] * k[2][0])
        }
        let d = det(m)
        // Centred taps of unit spread: the determinant is n·(Σu²Σv² − (Σuv)²), at most n³/4 (taps
        // all round), zero for taps on a line.
        let n = m[2][2]
        guard abs(d) > 1e-6 * n * n * n else { return nil }
        return (0..<3).map { col in
            var k = m
            for row in 0..<3 { k[row][col] = r[row] }
            return det(k) / d
        }
    }
}
