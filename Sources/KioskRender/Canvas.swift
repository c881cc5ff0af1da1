import CPixman
#if canImport(Glibc)
import Glibc
#endif
import KioskCore

/// Drawing into a pixman image in logical points. Every operation converts to device pixels with
/// `scale` and honours the clip, so a renderer can clip to the frame's damage and then simply
/// draw everything: pixman discards what falls outside.
///
/// A canvas may be turned (`turned(by:size:)`): its points then map through quarter turns onto
/// the target, so a scene laid out upright draws straight into a buffer in the panel's own
/// orientation (a rotated output) with no upright copy and no turned copy of it. Shapes are
/// rasterized in the target's orientation, text masks are kept turned (`TextMask`), and only
/// images (layers) are copied turned, unfiltered: a quarter turn maps pixel centres onto pixel
/// centres.
public final class Canvas {
    let target: OpaquePointer
    public let scale: Int
    /// The target's size in pixels (turned, when the canvas is).
    public let pixelSize: PixelSize
    private var clipBounds: PixelRect?
    /// Rasterized shapes to reuse; without one every shape is rasterized on each draw.
    public var cache: RenderCache?

    /// A canvas over `image` (not retained beyond the canvas' own lifetime).
    public convenience init(image: Image) {
        self.init(target: image.raw, scale: image.scale)
        _keepAlive = image
    }
    private var _keepAlive: AnyObject?

    /// The target is a buffer another process reads next (the compositor): large writes may
    /// bypass this CPU's cache (`CoverageShader`).
    let targetIsShared: Bool

    /// Points → target pixels when the canvas is turned; nil when it is upright (points are
    /// then only scaled).
    private let turn: AffineTransform?
    /// The same turn from points to target points (before the scale).
    private let turnInPoints: AffineTransform?
    /// The turn from the canvas' points to its target.
    let rotation: Rotation
    /// Whether the canvas leaves the target's clip as it is when it goes (a turned canvas
    /// borrows the clip of the canvas it was made from).
    private let borrowsClip: Bool

    /// Draws every colour as the large high-contrast mode shows it (`Color.inHighContrast`).
    public var highContrast = false
    @inline(__always)
    private func shown(_ c: Color) -> Color { highContrast ? c.inHighContrast : c }

    /// A canvas over a raw pixman image, e.g. one wrapping a wl_shm buffer (`shared`).
    package init(target: OpaquePointer, scale: Int, shared: Bool = false) {
        self.target = target
        targetIsShared = shared
        self.scale = max(1, scale)
        pixelSize = PixelSize(width: pixman_image_get_width(target), height: pixman_image_get_height(target))
        size = Size(width: Double(pixelSize.width) / Double(self.scale), height: Double(pixelSize.height) / Double(self.scale))
        turn = nil
        turnInPoints = nil
        rotation = .upright
        borrowsClip = false
    }

    /// A canvas borrowing `base`'s target and clip: turned by `t` (points to target points;
    /// nil: upright), at `zoom` times its scale, `size` points large.
    private init(borrowing base: Canvas, turn t: AffineTransform?, rotation: Rotation, zoom: Int, size: Size) {
        target = base.target
        targetIsShared = base.targetIsShared
        scale = base.scale * zoom
        pixelSize = base.pixelSize
        self.size = size
        turn = t?.concatenating(AffineTransform(scaleX: Double(base.scale), y: Double(base.scale)))
        turnInPoints = t
        self.rotation = rotation
        borrowsClip = true
        clip = base.clip
        clipBounds = base.clipBounds
        cache = base.cache
        highContrast = base.highContrast
        _keepAlive = base
    }

    /// This canvas' target with `zoom` times as many pixels per point (the large mode's stage);
    /// nil when this canvas is turned (zoom first, then turn the zoomed canvas). It borrows the
    /// clip as a turned canvas does.
    public func zoomed(by zoom: Int) -> Canvas? {
        guard turn == nil, zoom >= 1 else { return nil }
        let s = Double(scale * zoom)
        return Canvas(borrowing: self, turn: nil, rotation: .upright, zoom: zoom,
                      size: Size(width: Double(pixelSize.width) / s, height: Double(pixelSize.height) / s))
    }

    /// This canvas' target seen through `transform` (points of a `size` space → this canvas'
    /// points): a quarter turn and a translation (rounded to whole pixels), such as a rotated
    /// output's. Nil for any other transform, or when this canvas is turned already. The
    /// turned canvas starts with this one's clip; clip changes made through it apply to the
    /// target (restore them before drawing here again).
    public func turned(by transform: AffineTransform, size: Size) -> Canvas? {
        guard turn == nil, let r = Canvas.rotation(of: transform) else { return nil }
        let s = Double(scale)
        var t = transform
        t.tx = (t.tx * s).rounded() / s
        t.ty = (t.ty * s).rounded() / s
        return Canvas(borrowing: self, turn: t, rotation: r, zoom: 1, size: size)
    }

    /// The quarter turn `t`'s linear part is, or nil when it is not one exactly.
    static func rotation(of t: AffineTransform) -> Rotation? {
        switch (t.a, t.b, t.c, t.d) {
        case (1, 0, 0, 1): return .upright
        case (0, 1, -1, 0): return Rotation(quarterTurns: 1)
        case (-1, 0, 0, -1): return Rotation(quarterTurns: 2)
        case (0, -1, 1, 0): return Rotation(quarterTurns: 3)
        default: return nil
        }
    }

    deinit { if !borrowsClip { pixman_image_set_clip_region32(target, nil) } }

    /// Logical size of the canvas (upright, when the canvas is turned).
    public let size: Size

    /// `rect` (points) in target pixels: the pixels it touches.
    public func pixelBounds(of rect: Rect) -> PixelRect {
        guard let turn else { return rect.pixelBounds(scale: scale) }
        return turn.apply(rect).pixelBounds(scale: 1)
    }

    /// `p` (points) in target pixels.
    @inline(__always)
    private func device(_ p: Point) -> (x: Double, y: Double) {
        guard let turn else { return (p.x * Double(scale), p.y * Double(scale)) }
        let q = turn.apply(p)
        return (q.x, q.y)
    }

    /// A rectangle of pixels in the canvas' upright pixel space (points × scale) as target
    /// pixels (in whole numbers: through points, a third of a pixel at scale 3 could round a
    /// mask one pixel off).
    private func devicePixels(_ r: PixelRect) -> PixelRect {
        guard let turnInPoints else { return r }
        // `turned(by:size:)` takes only quarter turns by whole pixels.
        return r.quarterTurned(by: turnInPoints, scale: scale)!
    }

    /// The current clip region (target pixels), if any.
    public private(set) var clip: Region?

    /// Restricts drawing to `region` (pixels), or lifts the restriction with nil.
    public func setClip(_ region: Region?) {
        clip = region
        if let region, region.rectCount == 1, region.extents == PixelRect(x: 0, y: 0, width: pixelSize.width, height: pixelSize.height) {
            // Clipping to the whole canvas is no clipping, and pixman is measurably faster
            // without a clip region (it intersects it on every composite call).
            pixman_image_set_clip_region32(target, nil)
            clipBounds = nil
        } else if let region {
            pixman_image_set_clip_region32(target, region.raw)
            clipBounds = region.extents
        } else {
            pixman_image_set_clip_region32(target, nil)
            clipBounds = nil
        }
    }

    /// False when `rect` (logical) cannot touch the clip: callers skip expensive work with it.
    public func isVisible(_ rect: Rect) -> Bool {
        let p = pixelBounds(of: rect)
        guard let c = clipBounds else { return !p.isEmpty }
        return p.x < c.x + c.width && c.x < p.x + p.width && p.y < c.y + c.height && c.y < p.y + p.height
    }

    // MARK: Fills

    /// Fills `rect` with `color` (replacing when opaque, blending when translucent).
    public func fill(_ rect: Rect, color: Color) {
        guard color.alpha > 0 else { return } // blending nothing changes nothing
        fill(pixelBounds(of: rect), color: color, op: color.alpha >= 1 ? PIXMAN_OP_SRC : PIXMAN_OP_OVER)
    }

    /// Replaces every pixel of the canvas (within the clip) with `color`, a transparent one too:
    /// a layer redrawn starts from nothing, not from what it showed before.
    public func clear(_ color: Color) {
        fill(pixelBounds(of: Rect(origin: .zero, size: size)), color: color, op: PIXMAN_OP_SRC)
    }

    private func fill(_ p: PixelRect, color: Color, op: pixman_op_t) {
        // pixman fills boxes unclipped where the image has no clip region (a whole frame): a
        // box past the edge writes into the next row, past the last one out of the buffer.
        var box = pixman_box32_t(x1: max(0, p.x), y1: max(0, p.y), x2: min(pixelSize.width, p.x + p.width),
                                 y2: min(pixelSize.height, p.y + p.height))
        guard box.x1 < box.x2, box.y1 < box.y2 else { return }
        var c = shown(color).pixman
        pixman_image_fill_boxes(op, target, &c, 1, &box)
    }

    // MARK: Anti-aliased shapes (exact pixel coverage: PolygonCoverage)

    /// Fills a simple polygon (convex or not; its last point joins its first).
    public func fillPolygon(_ points: [Point], color: Color) {
        guard points.count >= 3, color.alpha > 0 else { return }
        fill(contours: [points], color: color)
    }

    /// A filled disc. With a cache, the centre snaps to a whole device pixel and the disc is
    /// blitted from a cached coverage mask.
    public func fillCircle(center: Point, radius: Double, color: Color) {
        guard radius > 0, color.alpha > 0 else { return }
        if let cache, let mask = cache.disc(radiusPixels: radius * Double(scale)) {
            // The disc is the same turned: only its centre is mapped.
            let half = mask.pixelSize.width / 2, centre = device(center)
            let x = Int32(centre.x.rounded()) - half
            let y = Int32(centre.y.rounded()) - half
            var c = shown(color).pixman
            guard let src = pixman_image_create_solid_fill(&c) else { return }
            defer { pixman_image_unref(src) }
            pixman_image_composite32(PIXMAN_OP_OVER, src, mask.raw, target, 0, 0, 0, 0, x, y,
                                     mask.pixelSize.width, mask.pixelSize.height)
            return
        }
        fillPolygon(circlePoints(center: center, radius: radius), color: color)
    }

    /// A ring of `width` centred on the circle of `radius`.
    public func strokeCircle(center: Point, radius: Double, width: Double, color: Color) {
        guard radius > 0, width > 0, color.alpha > 0 else { return }
        let outer = circlePoints(center: center, radius: radius + width / 2)
        let inner = circlePoints(center: center, radius: max(0, radius - width / 2), count: outer.count)
        fill(contours: [outer, inner.reversed()], color: color)
    }

    /// A straight segment of `width` with square ends.
    public func strokeLine(from a: Point, to b: Point, width: Double, color: Color) {
        let len = a.distance(to: b)
        guard len > 0, width > 0, color.alpha > 0 else { return }
        let nx = -(b.y - a.y) / len * width / 2, ny = (b.x - a.x) / len * width / 2
        let p = [Point(x: a.x + nx, y: a.y + ny), Point(x: b.x + nx, y: b.y + ny),
                 Point(x: b.x - nx, y: b.y - ny), Point(x: a.x - nx, y: a.y - ny)]
        fillPolygon(p, color: color)
    }

    /// A rectangle with rounded corners (a plain fill when `radius` is 0).
    public func fillRoundedRect(_ rect: Rect, radius: Double, color: Color) {
        let r = min(radius, rect.width / 2, rect.height / 2)
        guard r > 0 else { return fill(rect, color: color) }
        fillPolygon(roundedRectPoints(rect, radius: r), color: color)
    }

    /// The outline of a rounded rectangle, drawn inside it.
    public func strokeRoundedRect(_ rect: Rect, radius: Double, width: Double, color: Color) {
        let r = min(radius, rect.width / 2, rect.height / 2)
        guard r > 0 else { return strokeRect(rect, width: width, color: color) }
        guard color.alpha > 0 else { return }
        let outer = roundedRectPoints(rect, radius: r)
        let inner = roundedRectPoints(rect.insetBy(dx: width, dy: width), radius: max(0, r - width), count: outer.count)
        fill(contours: [outer, inner.reversed()], color: color)
    }

    private func roundedRectPoints(_ rect: Rect, radius r: Double, count: Int? = nil) -> [Point] {
        let perCorner = count.map { $0 / 4 } ?? max(4, min(64, Int((r * Double(scale)).squareRoot() * 3)))
        var pts: [Point] = []
        let corners = [(rect.maxX - r, rect.minY + r, -Double.pi / 2), (rect.maxX - r, rect.maxY - r, 0.0),
                       (rect.minX + r, rect.maxY - r, Double.pi / 2), (rect.minX + r, rect.minY + r, Double.pi)]
        for (cx, cy, start) in corners {
            for i in 0..<perCorner {
                let a = start + Double(i) / Double(perCorner - 1) * Double.pi / 2
                pts.append(Point(x: cx + r * cos(a), y: cy + r * sin(a)))
            }
        }
        return pts
    }

    /// The outline of `rect`, drawn inside it.
    public func strokeRect(_ rect: Rect, width: Double, color: Color) {
        fill(Rect(x: rect.minX, y: rect.minY, width: rect.width, height: width), color: color)
        fill(Rect(x: rect.minX, y: rect.maxY - width, width: rect.width, height: width), color: color)
        fill(Rect(x: rect.minX, y: rect.minY + width, width: width, height: rect.height - 2 * width), color: color)
        fill(Rect(x: rect.maxX - width, y: rect.minY + width, width: width, height: rect.height - 2 * width), color: color)
    }

    private func circlePoints(center: Point, radius: Double, count: Int? = nil) -> [Point] {
        // Enough segments that the chord error stays under a quarter pixel.
        let rpx = radius * Double(scale)
        let n = count ?? max(12, min(256, Int((Double.pi / acos(max(-1, 1 - 0.25 / max(rpx, 0.25)))).rounded(.up))))
        return (0..<n).map { i in
            let t = Double(i) / Double(n) * 2 * .pi
            return Point(x: center.x + radius * cos(t), y: center.y + radius * sin(t))
        }
    }

    /// Fills what the closed `contours` (logical points) cover, a contour wound the other way
    /// cutting a hole, through one coverage mask no larger than their bounds on the canvas.
    private func fill(contours: [[Point]], color: Color) {
        // Coordinates are kept within a million pixels of the canvas: far enough that nothing
        // visible changes, near enough that every conversion to a pixel index is exact. A shape
        // with a point that is not a number draws nothing.
        let limit = 1e6
        var finite = true
        let device = contours.map { $0.map { p -> (x: Double, y: Double) in
            finite = finite && p.x.isFinite && p.y.isFinite
            let d = self.device(p)
            return (x: min(limit, max(-limit, d.x)), y: min(limit, max(-limit, d.y)))
        } }
        guard finite else { return }
        var x0 = limit, y0 = limit, x1 = -limit, y1 = -limit
        for c in device {
            for p in c { x0 = min(x0, p.x); y0 = min(y0, p.y); x1 = max(x1, p.x); y1 = max(y1, p.y) }
        }
        var lo = (x: max(0, Int32(x0.rounded(.down))), y: max(0, Int32(y0.rounded(.down))))
        var hi = (x: min(pixelSize.width, Int32(x1.rounded(.up))), y: min(pixelSize.height, Int32(y1.rounded(.up))))
        if let c = clipBounds {
            lo = (max(lo.x, c.x), max(lo.y, c.y))
            hi = (min(hi.x, c.x + c.width), min(hi.y, c.y + c.height))
        }
        guard lo.x < hi.x, lo.y < hi.y else { return }
        var c = shown(color).pixman
        guard let src = pixman_image_create_solid_fill(&c) else { return }
        defer { pixman_image_unref(src) }
        // In bands of rows, so that a screen-sized shape needs ~1 MB of coverage cells, not 8.
        var top = lo.y
        while top < hi.y {
            let rows = min(Canvas.shapeBandRows, hi.y - top)
            var coverage = PolygonCoverage(window: PixelRect(x: lo.x, y: top, width: hi.x - lo.x, height: rows))
            for c in device { coverage.add(contour: c) }
            if let mask = coverage.mask() {
                pixman_image_composite32(PIXMAN_OP_OVER, src, mask, target, 0, 0, 0, 0, lo.x, top, hi.x - lo.x, rows)
                pixman_image_unref(mask)
            }
            top += rows
        }
    }
    static let shapeBandRows: Int32 = 128

    // MARK: Images

    /// Draws `image` so that its logical rectangle maps through `transform` (from image points
    /// to canvas points), with bilinear filtering and `alpha` as an extra opacity.
    /// `exact`: sample without filtering (for quarter-turn rotations, which map pixel centres
    /// onto pixel centres).
    /// `within` (canvas points), when given, bounds what the draw may touch: a stretched image
    /// spreads its last pixel row and the filter's half pixel past where its content ends.
    public func draw(_ image: Image, transform: AffineTransform = .identity, alpha: Double = 1, exact: Bool = false, within: Rect? = nil) {
        guard alpha > 0 else { return }
        let imgRect = Rect(origin: .zero, size: image.size)
        var destBounds = pixelBounds(of: transform.apply(imgRect))
        if let within { destBounds = destBounds.intersection(pixelBounds(of: within)) }
        guard !destBounds.isEmpty else { return }
        // pixman maps destination pixels back to source pixels: invert (image px → canvas px).
        let s = Double(scale), si = Double(image.scale)
        let toCanvasPx = AffineTransform(scaleX: 1 / si, y: 1 / si)
            .concatenating(transform).concatenating(turn ?? AffineTransform(scaleX: s, y: s))
        guard let inv = toCanvasPx.inverted else { return }
        // A quarter turn by whole pixels (an upright layer on a turned canvas) maps pixel
        // centres onto pixel centres: sampled unfiltered, it is exact and takes pixman's
        // rotation fast paths.
        let exact = exact || (Canvas.rotation(of: toCanvasPx) != nil
            && toCanvasPx.tx == toCanvasPx.tx.rounded() && toCanvasPx.ty == toCanvasPx.ty.rounded())
        let isTranslation = toCanvasPx.a == 1 && toCanvasPx.b == 0 && toCanvasPx.c == 0 && toCanvasPx.d == 1
            && toCanvasPx.tx == toCanvasPx.tx.rounded() && toCanvasPx.ty == toCanvasPx.ty.rounded()
        var mask: OpaquePointer?
        if alpha < 1 {
            var mc = Color(red: 0, green: 0, blue: 0, alpha: alpha).pixman
            mask = pixman_image_create_solid_fill(&mc)
        }
        defer { if let mask { pixman_image_unref(mask) } }
        let op = (!image.hasAlpha && alpha >= 1) ? PIXMAN_OP_SRC : PIXMAN_OP_OVER
        if isTranslation {
            // The common case (an unscaled layer at whole pixels): a plain blit, no filter.
            let dx = Int32(toCanvasPx.tx), dy = Int32(toCanvasPx.ty)
            pixman_image_composite32(op, image.raw, mask, target, 0, 0, 0, 0, dx, dy,
                                     image.pixelSize.width, image.pixelSize.height)
            return
        }
        // Sample at pixel centres: dest (x+0.5) maps to source position; pixman applies the
        // transform to the destination pixel centre itself.
        func fx(_ v: Double) -> pixman_fixed_t { pixman_fixed_t(clamping: Int64((v * 65536).rounded())) }
        var m = pixman_transform()
        m.matrix.0 = (fx(inv.a), fx(inv.c), fx(inv.tx))
        m.matrix.1 = (fx(inv.b), fx(inv.d), fx(inv.ty))
        m.matrix.2 = (0, 0, pixman_fixed_t(65536))
        pixman_image_set_transform(image.raw, &m)
        pixman_image_set_filter(image.raw, exact ? PIXMAN_FILTER_NEAREST : PIXMAN_FILTER_BILINEAR, nil, 0)
        pixman_image_set_repeat(image.raw, PIXMAN_REPEAT_NONE)
        pixman_image_composite32(op, image.raw, mask, target,
                                 destBounds.x, destBounds.y, 0, 0, destBounds.x, destBounds.y,
                                 destBounds.width, destBounds.height)
        pixman_image_set_transform(image.raw, nil)
        pixman_image_set_filter(image.raw, PIXMAN_FILTER_NEAREST, nil, 0)
    }

    // MARK: Text

    /// Draws `run` with its baseline starting at `origin` (logical points); `colorGlyphsOnly`
    /// skips the monochrome glyphs (drawn from a `TextMask` instead).
    public func draw(_ run: TextRun, at origin: Point, color: Color, colorGlyphsOnly: Bool = false) {
        guard color.alpha > 0, !run.glyphs.isEmpty else { return }
        let bx = Int32((origin.x * Double(scale)).rounded()), by = Int32((origin.y * Double(scale)).rounded())
        func outsideClip(_ r: PixelRect) -> Bool {
            guard let c = clipBounds else { return false }
            return r.x > c.x + c.width || r.x + r.width < c.x || r.y > c.y + c.height || r.y + r.height < c.y
        }
        // Whole-run reject: most text is outside a small damage rectangle.
        if outsideClip(devicePixels(PixelRect(x: bx, y: by - run.ascent, width: run.pixelWidth, height: run.ascent + run.descent))) { return }
        var pc = shown(color).pixman
        guard let src = pixman_image_create_solid_fill(&pc) else { return }
        defer { pixman_image_unref(src) }
        var alphaMask: OpaquePointer?
        defer { if let alphaMask { pixman_image_unref(alphaMask) } }
        for g in run.glyphs where g.isColor || !colorGlyphsOnly {
            let upright = PixelRect(x: bx + g.x, y: by - g.y, width: g.width, height: g.height)
            let d = devicePixels(upright)
            if outsideClip(d) { continue }
            // Upright, fcft's glyph image itself; turned, a view of its pixels sampled turned
            // at target coordinates.
            var image = g.image, at = (x: Int32(0), y: Int32(0))
            var view: OpaquePointer?
            if turn != nil {
                guard let v = turnedView(of: g.image, at: upright) else { continue }
                view = v; image = v; at = (d.x, d.y)
            }
            defer { if let view { pixman_image_unref(view) } }
            if g.isColor {
                // Colour glyphs (emoji) carry their own colours; only the alpha applies.
                if color.alpha < 1, alphaMask == nil {
                    var mc = Color(red: 0, green: 0, blue: 0, alpha: color.alpha).pixman
                    alphaMask = pixman_image_create_solid_fill(&mc)
                }
                pixman_image_composite32(PIXMAN_OP_OVER, image, alphaMask, target, at.x, at.y, 0, 0, d.x, d.y, d.width, d.height)
            } else {
                pixman_image_composite32(PIXMAN_OP_OVER, src, image, target, 0, 0, at.x, at.y, d.x, d.y, d.width, d.height)
            }
        }
    }

    /// A pixman image over `image`'s pixels (not a copy) that, sampled at target pixel
    /// coordinates, gives `image` placed at upright pixel rect `r` and turned as this canvas
    /// turns. The caller unrefs it.
    private func turnedView(of image: OpaquePointer, at r: PixelRect) -> OpaquePointer? {
        guard let turn, let data = pixman_image_get_data(image) else { return nil }
        let s = Double(scale)
        // Target pixels → the image's own: undo the turn, then the placement.
        guard let back = AffineTransform(scaleX: 1 / s, y: 1 / s).concatenating(turn).inverted else { return nil }
        let m = back.concatenating(AffineTransform(translationX: -Double(r.x), y: -Double(r.y)))
        guard let view = pixman_image_create_bits(pixman_image_get_format(image), pixman_image_get_width(image),
                                                  pixman_image_get_height(image), data, pixman_image_get_stride(image))
        else { return nil }
        func fx(_ v: Double) -> pixman_fixed_t { pixman_fixed_t(clamping: Int64((v * 65536).rounded())) }
        var t = pixman_transform()
        t.matrix.0 = (fx(m.a), fx(m.c), fx(m.tx))
        t.matrix.1 = (fx(m.b), fx(m.d), fx(m.ty))
        t.matrix.2 = (0, 0, pixman_fixed_t(65536))
        pixman_image_set_transform(view, &t)
        pixman_image_set_filter(view, PIXMAN_FILTER_NEAREST, nil, 0)
        pixman_image_set_repeat(view, PIXMAN_REPEAT_NONE)
        return view
    }
}

extension Canvas {
    /// One text mask to composite, with the run's pen origin at pixel (x, y) of the canvas'
    /// points × scale (before the turn of a turned canvas).
    public struct MaskPlacement {
        public let mask: TextMask
        public let x: Int32, y: Int32
        public init(mask: TextMask, x: Int32, y: Int32) { self.mask = mask; self.x = x; self.y = y }
    }

    /// Paints the clipped area with `background`, then many translucent masks of one `color`
    /// as if each were composited over the ones before (each mask's alpha is baked in).
    ///
    /// With hundreds of overlapping labels every pixel is covered many times over; blending each
    /// into the 32-bit buffer would move four bytes per covered pixel per label. Instead the
    /// masks are summed into an 8-bit coverage buffer (a saturating add, 16 pixels at a time:
    /// `CoverageBand`) and the colour goes through it once. The sum saturates where labels
    /// overlap: two at 0.75 make 1.0 where blending would make 0.94, a difference no one sees.
    /// The coverage buffer is one band of rows reused down the screen: small enough to stay in
    /// the CPU's cache (and ~2 MB less memory at 1080p than a full-screen one). On black, one
    /// pass writes colour × coverage (`CoverageShader`; into the compositor's buffer with
    /// stores that bypass the cache); it leaves the
    /// coverage in the unused byte of an XRGB pixel, which displays ignore (and which weston's
    /// screenshots show as alpha).
    public func drawCoverage(_ items: [MaskPlacement], color: Color, background: Color, alpha: Double = 1) {
        let band = Canvas.coverageBandRows
        guard let acc = cache?.coverage(width: pixelSize.width, rows: band) ?? Image(alphaMaskOf: PixelSize(width: pixelSize.width, height: band)),
              var sums = CoverageBand(acc)
        else { return }
        let whole = PixelRect(x: 0, y: 0, width: pixelSize.width, height: pixelSize.height)
        // Within the canvas: the band is only as wide as the canvas, and a fill of the band is
        // not clipped by pixman.
        let ext = (clip?.extents ?? whole).intersection(whole)
        guard !ext.isEmpty else { return }
        let a = max(0, min(1, alpha))
        let color = shown(color), background = shown(background)
        var fg = color.withAlpha(color.alpha * a).pixman
        let onBlack = a >= 1 && color.alpha >= 1 && background == Color(rgb: 0)
        let shader = onBlack ? CoverageShader(color: fg, target: target, streams: targetIsShared) : nil
        // Otherwise the background is painted first and pixman blends the colour over it.
        let src = shader == nil ? pixman_image_create_solid_fill(&fg) : nil
        defer { if let src { pixman_image_unref(src) } }
        guard shader != nil || src != nil else { return }
        if !onBlack { fill(Rect(origin: .zero, size: size), color: background.withAlpha(background.alpha * a)) }
        // Each mask in the target's orientation (turned once and kept so: `TextMask.layout`).
        let layouts = items.map { $0.mask.layout(turned: rotation) }
        let rects = items.map { devicePixels($0.mask.rect(originX: $0.x, y: $0.y)) }
        // The clip's rectangles (the frame's damage): only they are shaded.
        let clipRects = shader == nil ? [] : (clip?.rects ?? [ext]).map { $0.intersection(whole) }.filter { !$0.isEmpty }
        var zero = pixman_color_t(red: 0, green: 0, blue: 0, alpha: 0)
        var clears: [pixman_box32_t] = []
        clears.reserveCapacity(clipRects.count)
        var top = ext.y
        while top < ext.y + ext.height {
            let rows = min(band, ext.y + ext.height - top)
            // Only what is read of this band is cleared: the buffer is scratch. The shader reads the
            // clip's rectangles, pixman the extents' columns; when they cover half the extents or
            // more, one fill is cheaper than their many (docs/measurements.md).
            clears.removeAll(keepingCapacity: true)
            var cleared = 0
            for r in clipRects where r.y < top + rows && r.y + r.height > top {  // none without a shader
                let box = pixman_box32_t(x1: r.x, y1: max(r.y, top) - top, x2: r.x + r.width, y2: min(r.y + r.height, top + rows) - top)
                clears.append(box)
                cleared += Int(box.x2 - box.x1) * Int(box.y2 - box.y1)
            }
            if shader != nil && cleared * 2 < Int(ext.width) * Int(rows) {
                _ = pixman_image_fill_boxes(PIXMAN_OP_SRC, acc.raw, &zero, Int32(clears.count), clears)
            } else {
                var box = pixman_box32_t(x1: ext.x, y1: 0, x2: ext.x + ext.width, y2: rows)
                _ = pixman_image_fill_boxes(PIXMAN_OP_SRC, acc.raw, &zero, 1, &box)
            }
            sums.top = top; sums.rows = rows
            for (i, r) in rects.enumerated() {
                if r.y >= top + rows || r.y + r.height <= top || r.x >= ext.x + ext.width || r.x + r.width <= ext.x { continue }
                sums.add(layouts[i], x: r.x, y: r.y)
            }
            if let shader {
                // On black, colour × coverage is the whole result: one pass writes every pixel.
                shader.shade(sums, clipRects: clipRects)
            } else {
                pixman_image_composite32(PIXMAN_OP_OVER, src, acc.raw, target, 0, 0, ext.x, 0, ext.x, top, ext.width, rows)
            }
            top += rows
        }
    }

    /// Rows of the coverage band: 128 × 1920 bytes fit in a core's L2 cache.
    static let coverageBandRows: Int32 = 128
}
