import CWayland
import KioskCore

/// One output's power (wlr-output-power-management, which sway offers): outside the opening
/// hours the panel is turned off rather than left glowing black all night, and on again at
/// opening or when someone touches it. Where the compositor lacks the protocol (cage, weston)
/// the black screen and the released idle inhibitor are all there is.
final class OutputPower {
    private let proxy: OpaquePointer
    private let log: KioskLog
    private let outputName: String
    /// What the compositor last said the output's mode is.
    private(set) var isOn: Bool?

    init(manager: OpaquePointer, output: Output, log: KioskLog) {
        self.log = log
        outputName = output.name.isEmpty ? "the output" : output.name
        proxy = zwlr_output_power_manager_v1_get_output_power(manager, output.proxy)
        zwlr_output_power_v1_add_listener(proxy, OutputPower.listener, ListenerToken.userData(for: self))
    }

    deinit {
        let data = zwlr_output_power_v1_get_user_data(proxy)
        zwlr_output_power_v1_destroy(proxy)
        ListenerToken.release(data)
    }

    func set(on: Bool) {
        zwlr_output_power_v1_set_mode(proxy, on ? ZWLR_OUTPUT_POWER_V1_MODE_ON.rawValue : ZWLR_OUTPUT_POWER_V1_MODE_OFF.rawValue)
    }

    nonisolated(unsafe) private static let listener = makeListener(zwlr_output_power_v1_listener(
        mode: { data, _, mode in
            guard let p = ListenerToken.owner(data, as: OutputPower.self) else { return }
            p.isOn = mode == ZWLR_OUTPUT_POWER_V1_MODE_ON.rawValue
            p.log.info("output power: \(p.outputName) is \(p.isOn! ? "on" : "off")")
        },
        failed: { data, _ in
            guard let p = ListenerToken.owner(data, as: OutputPower.self) else { return }
            p.log.warning("output power: the compositor cannot switch \(p.outputName) (it may be gone); it stays as it is")
        }
    ))
}
