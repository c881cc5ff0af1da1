import CPixman
#if canImport(Glibc)
import Glibc
#endif
import KioskCore

/// A pixman image that this process owns: an offscreen layer, a decoded PNG, a snapshot.
/// Pixels are premultiplied ARGB32 (`hasAlpha`) or XRGB32 (opaque).
public final class Image {
    /// The pixman_image_t. pixman keeps the pixel storage alive for as long as the image.
    let raw: OpaquePointer
    public let pixelSize: PixelSize
    /// Pixels per logical point; an image made at scale 2 draws at half its pixel size.
    public let scale: Int

    /// A transparent (or black, for opaque images) image of `size` pixels.
    /// Returns nil when pixman cannot allocate it (absurd sizes are refused before that).
    public init?(pixelSize size: PixelSize, hasAlpha: Bool = true, scale: Int = 1) {
        guard size.width > 0, size.height > 0, size.width <= DisplayInfo.maxPixelSide, size.height <= DisplayInfo.maxPixelSide,
              let img = Image.createBits(hasAlpha ? PIXMAN_a8r8g8b8 : PIXMAN_x8r8g8b8, size, bytesPerPixel: 4)
        else { return nil }
        raw = img
        pixelSize = size
        self.scale = max(1, scale)
    }

    /// Pixel storage for a new image. Large ones (a screen-sized snapshot is 8 MiB) are mapped
    /// straight from the kernel and unmapped when the image goes: through malloc, glibc raises
    /// its mmap threshold after the first such free and then keeps every later one in the heap
    /// for good, so a cross-fade's snapshot stayed resident after the fade (RSS 45 → 53 MiB).
    static func createBits(_ format: pixman_format_code_t, _ size: PixelSize, bytesPerPixel: Int) -> OpaquePointer? {
        let stride = (Int(size.width) * bytesPerPixel + 3) & ~3
        let bytes = stride * Int(size.height)
        guard bytes >= Image.mapThreshold else { return pixman_image_create_bits(format, size.width, size.height, nil, 0) }
        guard let mem = mmap(nil, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0), mem != MAP_FAILED,
              let img = pixman_image_create_bits(format, size.width, size.height, mem.assumingMemoryBound(to: UInt32.self), Int32(stride))
        else { return nil }
        // Unmapped when pixman finalizes the image (its size is still readable then).
        pixman_image_set_destroy_function(img, { image, data in
            guard let image, let data else { return }
            munmap(data, Int(pixman_image_get_stride(image)) * Int(pixman_image_get_height(image)))
        }, mem)
        return img
    }
    static let mapThreshold = 1 << 20

    /// Takes over one reference to `raw` (released in deinit).
    init(adopting raw: OpaquePointer, scale: Int = 1) {
        self.raw = raw
        pixelSize = PixelSize(width: pixman_image_get_width(raw), height: pixman_image_get_height(raw))
        self.scale = max(1, scale)
    }

    deinit { pixman_image_unref(raw) }

    /// The size in logical points.
    public var size: Size {
        Size(width: Double(pixelSize.width) / Double(scale), height: Double(pixelSize.height) / Double(scale))
    }
    public var hasAlpha: Bool { pixman_image_get_format(raw) != PIXMAN_x8r8g8b8 }
    var stride: Int { Int(pixman_image_get_stride(raw)) }

    /// The premultiplied pixel at (x, y) as 0xAARRGGBB (alpha forced to 0xff for opaque images).
    public func pixel(x: Int, y: Int) -> UInt32 {
        precondition(x >= 0 && y >= 0 && x < Int(pixelSize.width) && y < Int(pixelSize.height))
        let row = UnsafeMutableRawPointer(pixman_image_get_data(raw)!).advanced(by: y * stride)
        let v = row.assumingMemoryBound(to: UInt32.self)[x]
        return hasAlpha ? v : (v | 0xff00_0000)
    }

    /// A copy of the 32-bit pixman image `source` (another layer's: a window's buffer), turned
    /// `r` clockwise; nil for another pixel format or when memory is refused. Negative strides
    /// (a buffer stored bottom row first) are read as pixman reads them.
    public static func copy(of source: OpaquePointer, turnedBy r: Rotation) -> Image? {
        let format = pixman_image_get_format(source)
        guard format == PIXMAN_x8r8g8b8 || format == PIXMAN_a8r8g8b8, let data = pixman_image_get_data(source) else { return nil }
        let w = Int(pixman_image_get_width(source)), h = Int(pixman_image_get_height(source))
        let stride = Int(pixman_image_get_stride(source))
        let turned = r.swapsSides ? PixelSize(width: Int32(h), height: Int32(w)) : PixelSize(width: Int32(w), height: Int32(h))
        guard let out = Image(pixelSize: turned, hasAlpha: format == PIXMAN_a8r8g8b8) else { return nil }
        let to = pixman_image_get_data(out.raw)!, toStride = out.stride / 4
        let from = UnsafeRawPointer(data)
        for y in 0..<h {
            let row = from.advanced(by: y * stride).assumingMemoryBound(to: UInt32.self)
            if r == .upright {
                (to + y * toStride).update(from: row, count: w)
                continue
            }
            for x in 0..<w {
                let (tx, ty) = r.turn(x, y, width: w, height: h)
                to[ty * toStride + tx] = row[x]
            }
        }
        return out
    }

    /// Calls `body` with each row of pixels (premultiplied ARGB32 words).
    public func withRows(_ body: (Int, UnsafeMutableBufferPointer<UInt32>) throws -> Void) rethrows {
        let base = UnsafeMutableRawPointer(pixman_image_get_data(raw)!)
        for y in 0..<Int(pixelSize.height) {
            let row = base.advanced(by: y * stride).assumingMemoryBound(to: UInt32.self)
            try body(y, UnsafeMutableBufferPointer(start: row, count: Int(pixelSize.width)))
        }
    }
}
