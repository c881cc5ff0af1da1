import CWayland
#if canImport(Glibc)
import Glibc
#endif
import KioskCore

/// The connection to the compositor and the globals Kiosk binds from its registry.
package final class Display {
    let raw: OpaquePointer
    private(set) var registry: OpaquePointer!
    private(set) var compositor: OpaquePointer?
    private(set) var shm: OpaquePointer?
    private(set) var wmBase: OpaquePointer?
    private(set) var presentation: OpaquePointer?
    private(set) var idleInhibitManager: OpaquePointer?
    private(set) var decorationManager: OpaquePointer?
    private var outputPowerManager: OpaquePointer?
    /// wlr-output-management: the means used where output power management is missing.
    private var outputManagement: OutputManagement?
    /// Power control of each output, by the output's global name, made on first use.
    private var outputPower: [UInt32: OutputPower] = [:]
    private(set) var compositorVersion: UInt32 = 0
    /// Every global interface the compositor announced, bound or not (a compositor's
    /// fingerprint for `Quirks`).
    private(set) var announced: Set<String> = []
    private(set) package var seat: Seat? { didSet { seat?.touchTransform = touchTransform } }
    /// Applied to every touch point, by this seat and any that replaces it.
    var touchTransform = AffineTransform.identity { didSet { seat?.touchTransform = touchTransform } }
    private(set) var outputs: [UInt32: Output] = [:]
    /// Set when an output appears, changes or goes away.
    package var onOutputsChanged: (() -> Void)?
    private let log: KioskLog
    private(set) weak var loop: EventLoop?

    /// Connects to `$WAYLAND_DISPLAY` and binds every global; throws naming what is missing.
    package init(log: KioskLog, loop: EventLoop) throws {
        self.log = log
        self.loop = loop
        guard let name = getenv("WAYLAND_DISPLAY").map({ String(cString: $0) }), !name.isEmpty else {
            throw PlatformError.noDisplayConfigured
        }
        guard let d = wl_display_connect(nil) else { throw PlatformError.cannotConnect(name) }
        raw = d
        registry = wl_display_get_registry(d)
        wl_registry_add_listener(registry, Display.registryListener, ListenerToken.userData(for: self))
        // First roundtrip: the globals. Second: the events bound objects send at once
        // (output modes, seat capabilities, shm formats).
        guard wl_display_roundtrip(d) >= 0, wl_display_roundtrip(d) >= 0 else {
            throw PlatformError.connectionLost(wl_display_get_error(d))
        }
        if compositor == nil { throw PlatformError.missingGlobal("wl_compositor (version 4 or newer)") }
        if shm == nil { throw PlatformError.missingGlobal("wl_shm") }
        if wmBase == nil { throw PlatformError.missingGlobal("xdg_wm_base") }
        if seat == nil { log.warning("the compositor offers no wl_seat: running without touch, pointer or keyboard input") }
        if idleInhibitManager == nil { log.info("no zwp_idle_inhibit_manager_v1: the compositor may blank the screen while Kiosk shows something") }
    }

    deinit {
        seat = nil
        outputPower.removeAll()
        outputManagement = nil
        outputs.removeAll()
        if let m = outputPowerManager { zwlr_output_power_manager_v1_destroy(m) }
        for p in [presentation, idleInhibitManager, decorationManager, shm] {
            if let p { wl_proxy_destroy(p) }
        }
        if let wmBase { xdg_wm_base_destroy(wmBase) }
        if let compositor { wl_compositor_destroy(compositor) }
        let data = wl_registry_get_user_data(registry)
        wl_registry_destroy(registry)
        ListenerToken.release(data)
        wl_display_disconnect(raw)
    }

    var fd: Int32 { wl_display_get_fd(raw) }

    /// How this compositor lets the kiosk switch its panel off, the best it offers first.
    package enum PanelPowerMeans: String {
        case outputPower = "wlr-output-power-management"
        case outputManagement = "wlr-output-management"
    }
    package var panelPowerMeans: PanelPowerMeans? {
        outputPowerManager != nil ? .outputPower : outputManagement != nil ? .outputManagement : nil
    }

    /// Turns every output off or on by the best means the compositor offers; nil where it
    /// offers none (the screen then stays black, lit).
    @discardableResult
    package func setOutputsPowered(_ on: Bool) -> PanelPowerMeans? {
        if let manager = outputPowerManager {
            for (name, output) in outputs {
                let power = outputPower[name] ?? OutputPower(manager: manager, output: output, log: log)
                outputPower[name] = power
                power.set(on: on)
            }
            return .outputPower
        }
        outputManagement?.set(on: on)
        return outputManagement != nil ? .outputManagement : nil
    }

    /// The output to size a 0×0 configure from: the only one, or the first with a mode.
    var primaryOutput: Output? {
        outputs.values.sorted { $0.globalName < $1.globalName }.first { $0.modeSize.width > 0 }
    }

    /// What a fullscreen window on the primary output will most likely be configured to.
    package var expectedDisplayInfo: DisplayInfo? {
        guard let o = primaryOutput, !o.logicalSize.isEmpty else { return nil }
        return DisplayInfo(size: o.logicalSize, scale: Int(o.scale), physicalSize: o.plausiblePhysicalSize,
                           rotation: Window.bufferRotation(outputTransform: o.transform))
    }

    /// The transform of the output the window will most likely open on (wl_output values).
    var expectedOutputTransform: Int32 { primaryOutput?.transform ?? 0 }

    private func bind(_ name: UInt32, _ iface: UnsafePointer<wl_interface>, _ version: UInt32) -> OpaquePointer? {
        wl_registry_bind(registry, name, iface, version).map(OpaquePointer.init)
    }

    private func global(name: UInt32, interface: String, version: UInt32) {
        announced.insert(interface)
        switch interface {
        case "wl_compositor" where version >= 4:
            compositorVersion = min(version, 5)
            compositor = bind(name, kiosk_wl_compositor_interface(), compositorVersion)
        case "wl_shm":
            shm = bind(name, kiosk_wl_shm_interface(), 1)
        case "xdg_wm_base":
            wmBase = bind(name, kiosk_xdg_wm_base_interface(), min(version, 5))
            xdg_wm_base_add_listener(wmBase, Display.wmBaseListener, nil)
        case "wl_seat" where seat == nil:
            // The first seat is the kiosk's; a second one would be a second set of hands on a
            // kiosk, which no kiosk compositor sets up.
            if let loop { seat = Seat(registry: registry, name: name, version: version, log: log, loop: loop) }
        case "wl_output":
            let o = Output(registry: registry, name: name, version: version)
            o.onChange = { [weak self] in self?.onOutputsChanged?() }
            outputs[name] = o
        case "wp_presentation":
            presentation = bind(name, kiosk_wp_presentation_interface(), 1)
        case "zwp_idle_inhibit_manager_v1":
            idleInhibitManager = bind(name, kiosk_zwp_idle_inhibit_manager_v1_interface(), 1)
        case "zwlr_output_power_manager_v1":
            outputPowerManager = bind(name, kiosk_zwlr_output_power_manager_v1_interface(), 1)
        case "zwlr_output_manager_v1" where outputManagement == nil:
            if let m = bind(name, kiosk_zwlr_output_manager_v1_interface(), 1) { outputManagement = OutputManagement(manager: m, log: log) }
        case "zxdg_decoration_manager_v1":
            decorationManager = bind(name, kiosk_zxdg_decoration_manager_v1_interface(), 1)
        default:
            break
        }
    }

    private func globalRemove(name: UInt32) {
        outputPower[name] = nil
        if outputs.removeValue(forKey: name) != nil {
            onOutputsChanged?()
        } else if seat?.globalName == name {
            log.warning("the seat went away: input stops until the compositor offers one again")
            seat = nil
        }
    }

    nonisolated(unsafe) private static let registryListener = makeListener(wl_registry_listener(
        global: { data, _, name, iface, version in
            guard let d = ListenerToken.owner(data, as: Display.self), let iface else { return }
            d.global(name: name, interface: String(cString: iface), version: version)
        },
        global_remove: { data, _, name in ListenerToken.owner(data, as: Display.self)?.globalRemove(name: name) }
    ))

    // Answering ping is what keeps the compositor from declaring the kiosk unresponsive.
    nonisolated(unsafe) private static let wmBaseListener = makeListener(xdg_wm_base_listener(
        ping: { _, base, serial in xdg_wm_base_pong(base, serial) }
    ))
}
