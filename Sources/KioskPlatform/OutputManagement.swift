import CWayland
import KioskCore

/// The outputs switched off and on through wlr-output-management (Debian 13's cage offers it,
/// and no output power management): at closing every head is disabled, as `wlr-randr --off`
/// does, and at opening the heads that were on are enabled again in the mode they had.
/// A compositor that disables an output removes its wl_output; the window stays, and gets it
/// back when the head is enabled.
final class OutputManagement {
    private let manager: OpaquePointer
    private let log: KioskLog

    private final class Head {
        let proxy: OpaquePointer
        var name = ""
        var enabled = false
        /// The mode the head last showed (nil for a custom mode, as headless outputs have).
        var currentMode: OpaquePointer?
        init(proxy: OpaquePointer) { self.proxy = proxy }
    }
    private var heads: [Head] = []
    /// The compositor's configuration serial, from its last `done`.
    private var serial: UInt32?
    /// What was asked last, to ask again when the compositor cancels it (its state moved on).
    private var wanted: Bool?
    /// The heads that were on when they were switched off, and their modes: what `on` restores.
    private var switchedOff: [(name: String, mode: OpaquePointer?)] = []
    private var modes: Set<OpaquePointer> = []

    init(manager: OpaquePointer, log: KioskLog) {
        self.manager = manager
        self.log = log
        zwlr_output_manager_v1_add_listener(manager, OutputManagement.managerListener, ListenerToken.userData(for: self))
    }

    deinit {
        for m in modes {
            let token = zwlr_output_mode_v1_get_user_data(m)
            zwlr_output_mode_v1_destroy(m)
            ListenerToken.release(token)
        }
        for h in heads {
            let token = zwlr_output_head_v1_get_user_data(h.proxy)
            zwlr_output_head_v1_destroy(h.proxy)
            ListenerToken.release(token)
        }
        let data = zwlr_output_manager_v1_get_user_data(manager)
        zwlr_output_manager_v1_destroy(manager)
        ListenerToken.release(data)
    }

    /// Whether the compositor has described its heads (a configuration can be made).
    var isReady: Bool { serial != nil }

    /// Asks for every head off, or the heads switched off on again.
    func set(on: Bool) {
        wanted = on
        guard let serial else { return } // asked again at the first `done`
        if on && switchedOff.isEmpty { return }
        // Off twice keeps what the first found on.
        if !on && switchedOff.isEmpty { switchedOff = heads.filter(\.enabled).map { ($0.name, $0.currentMode) } }
        let config = zwlr_output_manager_v1_create_configuration(manager, serial)!
        zwlr_output_configuration_v1_add_listener(config, OutputManagement.configurationListener, ListenerToken.userData(for: self))
        for h in heads {
            if on, let was = switchedOff.first(where: { $0.name == h.name }) {
                let configured = zwlr_output_configuration_v1_enable_head(config, h.proxy)!
                if let mode = was.mode, modes.contains(mode) { zwlr_output_configuration_head_v1_set_mode(configured, mode) }
                zwlr_output_configuration_head_v1_destroy(configured)
            } else {
                zwlr_output_configuration_v1_disable_head(config, h.proxy)
            }
        }
        zwlr_output_configuration_v1_apply(config)
    }

    private func finished(_ config: OpaquePointer?, _ outcome: String) {
        guard let config else { return }
        let data = zwlr_output_configuration_v1_get_user_data(config)
        zwlr_output_configuration_v1_destroy(config)
        ListenerToken.release(data)
        let what = wanted == false ? "off" : "on"
        switch outcome {
        case "succeeded":
            log.info("output management: the outputs are \(what)")
            if wanted == true { switchedOff = [] }
        case "cancelled": log.info("output management: the compositor's outputs changed meanwhile; asking again")
        default: log.warning("output management: the compositor refused to switch the outputs \(what); they stay as they are")
        }
    }

    nonisolated(unsafe) private static let managerListener = makeListener(zwlr_output_manager_v1_listener(
        head: { data, _, head in
            guard let m = ListenerToken.owner(data, as: OutputManagement.self), let head else { return }
            m.heads.append(Head(proxy: head))
            zwlr_output_head_v1_add_listener(head, OutputManagement.headListener, ListenerToken.userData(for: m))
        },
        done: { data, _, serial in
            guard let m = ListenerToken.owner(data, as: OutputManagement.self) else { return }
            let first = m.serial == nil
            m.serial = serial
            if first, let w = m.wanted { m.set(on: w) }
        },
        finished: { _, _ in }
    ))

    private func head(_ proxy: OpaquePointer?) -> Head? { heads.first { $0.proxy == proxy } }

    nonisolated(unsafe) private static let headListener = makeListener(zwlr_output_head_v1_listener(
        name: { data, h, name in
            guard let m = ListenerToken.owner(data, as: OutputManagement.self), let name else { return }
            m.head(h)?.name = String(cString: name)
        },
        description: { _, _, _ in },
        physical_size: { _, _, _, _ in },
        mode: { data, _, mode in
            guard let m = ListenerToken.owner(data, as: OutputManagement.self), let mode else { return }
            m.modes.insert(mode)
            zwlr_output_mode_v1_add_listener(mode, OutputManagement.modeListener, ListenerToken.userData(for: m))
        },
        enabled: { data, h, enabled in ListenerToken.owner(data, as: OutputManagement.self)?.head(h)?.enabled = enabled != 0 },
        current_mode: { data, h, mode in ListenerToken.owner(data, as: OutputManagement.self)?.head(h)?.currentMode = mode },
        position: { _, _, _, _ in },
        transform: { _, _, _ in },
        scale: { _, _, _ in },
        finished: { data, h in
            guard let m = ListenerToken.owner(data, as: OutputManagement.self), let h else { return }
            m.heads.removeAll { $0.proxy == h }
            let token = zwlr_output_head_v1_get_user_data(h)
            zwlr_output_head_v1_destroy(h)
            ListenerToken.release(token)
        },
        make: { _, _, _ in },
        model: { _, _, _ in },
        serial_number: { _, _, _ in }
    ))

    nonisolated(unsafe) private static let modeListener = makeListener(zwlr_output_mode_v1_listener(
        size: { _, _, _, _ in },
        refresh: { _, _, _ in },
        preferred: { _, _ in },
        finished: { data, mode in
            guard let mode else { return }
            if let m = ListenerToken.owner(data, as: OutputManagement.self) {
                m.modes.remove(mode)
                for h in m.heads where h.currentMode == mode { h.currentMode = nil }
            }
            let token = zwlr_output_mode_v1_get_user_data(mode)
            zwlr_output_mode_v1_destroy(mode)
            ListenerToken.release(token)
        }
    ))

    nonisolated(unsafe) private static let configurationListener = makeListener(zwlr_output_configuration_v1_listener(
        succeeded: { data, c in ListenerToken.owner(data, as: OutputManagement.self)?.finished(c, "succeeded") },
        failed: { data, c in ListenerToken.owner(data, as: OutputManagement.self)?.finished(c, "failed") },
        cancelled: { data, c in
            guard let m = ListenerToken.owner(data, as: OutputManagement.self) else { return }
            m.finished(c, "cancelled")
            if let w = m.wanted { m.set(on: w) }
        }
    ))
}
