import CWayland
import KioskCore

/// One `wl_output`: its current mode, integer scale, transform and physical size.
/// Values are staged while events arrive and become current on `done` (v2+).
final class Output {
    let proxy: OpaquePointer
    let globalName: UInt32
    private(set) var name = ""
    private(set) var modeSize = PixelSize(width: 0, height: 0)
    private(set) var scale: Int32 = 1
    private(set) var transform: Int32 = 0
    private(set) var physicalMM = Size.zero
    /// The manufacturer and model the compositor reports (wlroots's headless backend: both
    /// "headless"); see `Quirks`.
    private(set) var make = ""
    private(set) var model = ""
    var onChange: (() -> Void)?

    private var pendingMode: PixelSize?
    private var pendingScale: Int32?
    private var pendingTransform: Int32?
    private var pendingPhysical: Size?
    private let version: UInt32

    init(registry: OpaquePointer, name: UInt32, version: UInt32) {
        globalName = name
        self.version = min(version, 4)
        proxy = OpaquePointer(wl_registry_bind(registry, name, kiosk_wl_output_interface(), self.version))!
        wl_output_add_listener(proxy, Output.listener, ListenerToken.userData(for: self))
    }

    deinit {
        let data = wl_output_get_user_data(proxy)
        if version >= 3 { wl_output_release(proxy) } else { wl_output_destroy(proxy) }
        ListenerToken.release(data)
    }

    /// The logical size the output shows: its mode rotated by the transform, divided by scale.
    var logicalSize: Size {
        var w = Double(modeSize.width), h = Double(modeSize.height)
        if transform % 2 == 1 { swap(&w, &h) }
        let s = Double(max(1, scale))
        return Size(width: w / s, height: h / s)
    }

    /// The physical size when believable (see `plausiblePhysicalSize`).
    var plausiblePhysicalSize: Size? { Quirks.plausiblePhysicalSize(mm: physicalMM, mode: modeSize) }

    private func commit() {
        var changed = false
        if let m = pendingMode, m != modeSize { modeSize = m; changed = true }
        if let s = pendingScale, s != scale { scale = max(1, s); changed = true }
        if let t = pendingTransform, t != transform { transform = t; changed = true }
        if let p = pendingPhysical, p != physicalMM { physicalMM = p; changed = true }
        pendingMode = nil; pendingScale = nil; pendingTransform = nil; pendingPhysical = nil
        if changed { onChange?() }
    }

    nonisolated(unsafe) private static let listener = makeListener(wl_output_listener(
        geometry: { data, _, _, _, mmW, mmH, _, make, model, transform in
            guard let o = ListenerToken.owner(data, as: Output.self) else { return }
            o.make = make.map { String(cString: $0) } ?? ""
            o.model = model.map { String(cString: $0) } ?? ""
            o.pendingPhysical = Size(width: Double(max(0, mmW)), height: Double(max(0, mmH)))
            o.pendingTransform = transform
            if o.version < 2 { o.commit() }
        },
        mode: { data, _, flags, w, h, _ in
            guard let o = ListenerToken.owner(data, as: Output.self),
                  flags & WL_OUTPUT_MODE_CURRENT.rawValue != 0 else { return }
            o.pendingMode = PixelSize(width: w, height: h)
            if o.version < 2 { o.commit() }
        },
        done: { data, _ in ListenerToken.owner(data, as: Output.self)?.commit() },
        scale: { data, _, factor in ListenerToken.owner(data, as: Output.self)?.pendingScale = factor },
        name: { data, _, name in
            guard let o = ListenerToken.owner(data, as: Output.self), let name else { return }
            o.name = String(cString: name)
        },
        description: { _, _, _ in }
    ))
}
