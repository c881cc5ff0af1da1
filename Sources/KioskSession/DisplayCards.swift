import CSession
#if canImport(Glibc)
import Glibc
#endif

/// The display devices of this machine, as the kernel describes them.
enum DisplayCards {
    /// Every `/dev/dri/cardN`, in name order; a device that does not open (no permission)
    /// counts as one that cannot import, and as a display (it may be one). A node whose driver
    /// is not there yet (ENODEV, ENXIO: udev made it while the driver still binds, seen booted
    /// on an emulated Pi) is not counted: the start waits for it as for a missing one.
    static func present(devices: String = "/dev/dri") -> [DisplayCard] {
        cardNames(in: devices).compactMap { name in
            let fd = open("\(devices)/\(name)", O_RDWR | O_CLOEXEC | O_NOCTTY)
            if fd < 0 && [ENODEV, ENXIO, ENOENT].contains(errno) { return nil }
            defer { if fd >= 0 { close(fd) } }
            var caps: UInt64 = 0
            return DisplayCard(name: name, driver: fd >= 0 ? driver(fd) : "cannot open: \(String(cString: strerror(errno)))",
                               primeImport: fd >= 0 && kiosk_drm_prime_caps(fd, &caps) == 0 && caps & 1 != 0,
                               hasDisplay: fd < 0 || kiosk_drm_connector_count(fd) > 0)
        }
    }

    static func cardNames(in dir: String) -> [String] {
        directoryEntries(dir).filter { $0.hasPrefix("card") && $0.count > 4 && $0.dropFirst(4).allSatisfy(\.isNumber) }
            .sorted { Int($0.dropFirst(4))! < Int($1.dropFirst(4))! }
    }

    /// The DRM driver's name (`virtio_gpu`, `bochs-drm`, `i915`…).
    static func driver(_ fd: Int32) -> String {
        var buf = [CChar](repeating: 0, count: 64)
        guard kiosk_drm_driver_name(fd, &buf, buf.count) == 0 else { return "unknown driver" }
        return String(decoding: buf.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
