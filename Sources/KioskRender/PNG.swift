import CPNG
import KioskCore

/// Reading and writing PNG files through libpng's simplified API.
public enum PNG {
    public struct Failure: Error, CustomStringConvertible {
        public let path: String
        public let reason: String
        public var description: String { "\(path): \(reason)" }
    }

    // PNG_FORMAT_BGRA: colour | alpha | BGR byte order, which on a little-endian machine is
    // exactly the byte layout of pixman's a8r8g8b8 (but straight, not premultiplied, alpha).
    private static let formatBGRA: UInt32 = 0x01 | 0x02 | 0x10

    /// How much a PNG may ask for, checked before anything is decoded: the file's size, then
    /// the size its header declares (a 1 MB file can declare 16384×16384 pixels, 1 GiB).
    public struct Limits: Sendable {
        public var maxFileBytes: Int
        public var maxSide: UInt32
        public var maxPixels: UInt64
        /// Theme images are sprites and tiles: 2048 pixels a side, 4 Mpx (16 MiB decoded), 4 MiB files.
        public static let theme = Limits(maxFileBytes: 4 << 20, maxSide: 2048, maxPixels: 4 << 20)
        /// Screenshots and golden images.
        public static let general = Limits(maxFileBytes: 64 << 20, maxSide: UInt32(DisplayInfo.maxPixelSide), maxPixels: 64 << 20)
    }

    /// Decodes the PNG at `path` into a premultiplied ARGB image at `scale`. The file is read
    /// like every file Kiosk reads (a regular file only, never a blocking open) and decoded from
    /// memory only if it stays within `limits`.
    public static func read(path: String, scale: Int = 1, limits: Limits = .general) throws -> Image {
        switch readRegularFile(path, limit: limits.maxFileBytes) {
        case .success(let bytes): return try decode(bytes, path: path, scale: scale, limits: limits)
        case .failure(let why): throw Failure(path: path, reason: why.description)
        }
    }

    /// Decodes PNG bytes (named `path` in errors); never traps, whatever the bytes.
    static func decode(_ bytes: [UInt8], path: String, scale: Int = 1, limits: Limits) throws -> Image {
        // libpng reads from this memory until the read is finished or freed.
        let memory = UnsafeMutableRawBufferPointer.allocate(byteCount: max(1, bytes.count), alignment: 16)
        defer { memory.deallocate() }
        memory.copyBytes(from: bytes)
        var png = png_image()
        png.version = UInt32(PNG_IMAGE_VERSION)
        guard png_image_begin_read_from_memory(&png, memory.baseAddress, bytes.count) != 0 else {
            throw Failure(path: path, reason: message(&png, fallback: "not a PNG"))
        }
        png.format = formatBGRA
        guard png.width > 0, png.height > 0, png.width <= limits.maxSide, png.height <= limits.maxSide,
              UInt64(png.width) * UInt64(png.height) <= limits.maxPixels,
              let image = Image(pixelSize: PixelSize(width: Int32(png.width), height: Int32(png.height)),
                                hasAlpha: true, scale: scale) else {
            png_image_free(&png)
            throw Failure(path: path, reason: "\(png.width)×\(png.height) pixels is larger than \(limits.maxSide) a side or \(limits.maxPixels >> 20) Mpx")
        }
        let data = UnsafeMutableRawPointer(pixman_data(image))
        guard png_image_finish_read(&png, nil, data, Int32(image.stride), nil) != 0 else {
            throw Failure(path: path, reason: message(&png, fallback: "corrupt image data"))
        }
        image.withRows { _, row in
            for i in 0..<row.count {
                let v = row[i], a = v >> 24
                if a == 255 { continue }
                if a == 0 { row[i] = 0; continue }
                func pm(_ c: UInt32) -> UInt32 { (c * a + 127) / 255 }
                row[i] = (a << 24) | (pm((v >> 16) & 0xff) << 16) | (pm((v >> 8) & 0xff) << 8) | pm(v & 0xff)
            }
        }
        return image
    }

    /// Encodes `image` as an 8-bit RGBA PNG at `path`.
    public static func write(_ image: Image, path: String) throws {
        var png = header(image)
        let ok = straightPixels(image).withUnsafeBytes { buf in
            png_image_write_to_file(&png, path, 0, buf.baseAddress, Int32(png.width * 4), nil)
        }
        guard ok != 0 else { throw Failure(path: path, reason: message(&png, fallback: "cannot write")) }
    }

    /// `image` as the bytes of an 8-bit RGBA PNG file (`name` in errors): for a file written
    /// atomically, or sent to whoever asked.
    public static func encode(_ image: Image, name: String) throws -> [UInt8] {
        var png = header(image)
        let pixels = straightPixels(image)
        var size = 0
        // The first call measures, the second writes (libpng's two-pass memory API).
        let measured = pixels.withUnsafeBytes { png_image_write_to_memory(&png, nil, &size, 0, $0.baseAddress, Int32(png.width * 4), nil) }
        guard measured != 0, size > 0 else { throw Failure(path: name, reason: message(&png, fallback: "cannot encode")) }
        var bytes = [UInt8](repeating: 0, count: size)
        let ok = bytes.withUnsafeMutableBytes { out in
            pixels.withUnsafeBytes { png_image_write_to_memory(&png, out.baseAddress, &size, 0, $0.baseAddress, Int32(png.width * 4), nil) }
        }
        guard ok != 0 else { throw Failure(path: name, reason: message(&png, fallback: "cannot encode")) }
        return Array(bytes.prefix(size))
    }

    private static func header(_ image: Image) -> png_image {
        var png = png_image()
        png.version = UInt32(PNG_IMAGE_VERSION)
        png.width = UInt32(image.pixelSize.width)
        png.height = UInt32(image.pixelSize.height)
        png.format = formatBGRA
        return png
    }

    /// The pixels with straight (not premultiplied) alpha, rows packed, as PNG stores them.
    private static func straightPixels(_ image: Image) -> [UInt32] {
        let w = Int(image.pixelSize.width), h = Int(image.pixelSize.height)
        var pixels = [UInt32](repeating: 0, count: w * h)
        image.withRows { y, row in
            for x in 0..<w {
                let v = row[x]
                let a = image.hasAlpha ? v >> 24 : 255
                if a == 255 || a == 0 { pixels[y * w + x] = image.hasAlpha ? v : v | 0xff00_0000; continue }
                func um(_ c: UInt32) -> UInt32 { min(255, (c * 255 + a / 2) / a) }
                pixels[y * w + x] = (a << 24) | (um((v >> 16) & 0xff) << 16) | (um((v >> 8) & 0xff) << 8) | um(v & 0xff)
            }
        }
        return pixels
    }

    private static func message(_ png: inout png_image, fallback: String) -> String {
        let msg = withUnsafeBytes(of: &png.message) { buf in
            String(decoding: buf.prefix { $0 != 0 }, as: UTF8.self)
        }
        png_image_free(&png)
        return msg.isEmpty ? fallback : msg
    }
}

import CPixman
private func pixman_data(_ image: Image) -> UnsafeMutablePointer<UInt32> {
    pixman_image_get_data(image.raw)
}
