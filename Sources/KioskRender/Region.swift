import CPixman
import KioskCore

/// A set of pixel rectangles (a pixman_region32): the damage of a frame, a clip.
/// A reference type because pixman owns its rectangle storage; use `copy()` to fork one.
public final class Region: CustomStringConvertible {
    /// Heap storage with a stable address: pixman functions take it by pointer, often as both
    /// source and destination, which Swift's `&property` could not express safely.
    let raw = UnsafeMutablePointer<pixman_region32_t>.allocate(capacity: 1)

    public init() { pixman_region32_init(raw) }
    public init(_ r: PixelRect) {
        if r.isEmpty { pixman_region32_init(raw) } else {
            pixman_region32_init_rect(raw, r.x, r.y, UInt32(r.width), UInt32(r.height))
        }
    }
    /// A region of many rectangles at once (pixman sorts and merges them in one pass, where
    /// adding them one by one would cost quadratic time).
    public init(rects: [PixelRect]) {
        let boxes = rects.filter { !$0.isEmpty }.map { pixman_box32_t(x1: $0.x, y1: $0.y, x2: $0.x + $0.width, y2: $0.y + $0.height) }
        _ = boxes.withUnsafeBufferPointer { pixman_region32_init_rects(raw, $0.baseAddress, Int32($0.count)) }
    }

    deinit {
        pixman_region32_fini(raw)
        raw.deallocate()
    }

    public func copy() -> Region {
        let r = Region()
        pixman_region32_copy(r.raw, raw)
        return r
    }
    public var isEmpty: Bool { pixman_region32_not_empty(raw) == 0 }
    public func clear() { pixman_region32_clear(raw) }

    public func add(_ r: PixelRect) {
        guard !r.isEmpty else { return }
        pixman_region32_union_rect(raw, raw, r.x, r.y, UInt32(r.width), UInt32(r.height))
    }
    public func add(_ other: Region) { pixman_region32_union(raw, raw, other.raw) }
    public func intersect(_ r: PixelRect) {
        if r.isEmpty { clear(); return }
        pixman_region32_intersect_rect(raw, raw, r.x, r.y, UInt32(r.width), UInt32(r.height))
    }
    public func intersect(_ other: Region) { pixman_region32_intersect(raw, raw, other.raw) }
    public func subtract(_ other: Region) { pixman_region32_subtract(raw, raw, other.raw) }
    public func translate(dx: Int32, dy: Int32) { pixman_region32_translate(raw, dx, dy) }

    public func contains(x: Int32, y: Int32) -> Bool {
        pixman_region32_contains_point(raw, x, y, nil) != 0
    }
    /// True when some part of `r` is inside the region.
    public func intersects(_ r: PixelRect) -> Bool {
        guard !r.isEmpty else { return false }
        var box = pixman_box32_t(x1: r.x, y1: r.y, x2: r.x + r.width, y2: r.y + r.height)
        return pixman_region32_contains_rectangle(raw, &box) != PIXMAN_REGION_OUT
    }

    public var extents: PixelRect {
        guard !isEmpty else { return PixelRect(x: 0, y: 0, width: 0, height: 0) }
        let b = pixman_region32_extents(raw)!.pointee
        return PixelRect(x: b.x1, y: b.y1, width: b.x2 - b.x1, height: b.y2 - b.y1)
    }
    public var rects: [PixelRect] {
        var n: Int32 = 0
        guard let boxes = pixman_region32_rectangles(raw, &n), n > 0 else { return [] }
        return (0..<Int(n)).map { i in
            let b = boxes[i]
            return PixelRect(x: b.x1, y: b.y1, width: b.x2 - b.x1, height: b.y2 - b.y1)
        }
    }
    public var rectCount: Int { Int(pixman_region32_n_rects(raw)) }

    /// At most `maxRects` rectangles covering the region: itself when it has few enough, else
    /// its rectangles grown to the finest grid (16, 32, 64 or 128 pixels) whose cells merge into
    /// few enough, else its bounding box. For telling a compositor what changed: every pixel it
    /// is told of it copies (twice, weston 10), while each rectangle costs it little.
    public func coarsened(maxRects: Int) -> Region {
        guard rectCount > maxRects else { return self }
        let boxes = rects, bounds = extents
        for tile: Int32 in [16, 32, 64, 128] {
            let grid = Region(rects: boxes.map { r in
                // Floor division: damage may start left of or above the origin.
                func down(_ v: Int32) -> Int32 { v >= 0 ? v / tile * tile : -((-v + tile - 1) / tile * tile) }
                let x1 = down(r.x), y1 = down(r.y)
                let x2 = down(r.x + r.width + tile - 1), y2 = down(r.y + r.height + tile - 1)
                return PixelRect(x: x1, y: y1, width: x2 - x1, height: y2 - y1)
            })
            grid.intersect(bounds)
            if grid.rectCount <= maxRects { return grid }
        }
        return Region(bounds)
    }

    /// Every row the region touches, whole: a band from x = 0, `width` pixels wide, for each
    /// run of touched rows.
    public func wholeRows(width: Int32) -> Region {
        var bands: [PixelRect] = []
        // pixman keeps rectangles in bands of rows, top to bottom.
        for r in rects {
            if let last = bands.last, r.y <= last.y + last.height {
                bands[bands.count - 1].height = max(last.height, r.y + r.height - last.y)
            } else {
                bands.append(PixelRect(x: 0, y: r.y, width: width, height: r.height))
            }
        }
        return Region(rects: bands)
    }

    /// Pixels covered (rectangles in a pixman region never overlap).
    public var area: Int { rects.reduce(0) { $0 + $1.area } }
    public var description: String { isEmpty ? "∅" : rects.map(\.description).joined(separator: " + ") }
}
