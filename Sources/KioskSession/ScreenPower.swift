import CSession
#if canImport(Glibc)
import Glibc
#endif

/// The screen's power where the compositor offers the kiosk no way to turn its outputs off
/// (Debian 12's cage, weston): the backlight, a monitor's DDC/CI, a TV's HDMI-CEC, through the
/// kernel's devices. Run as root by `kiosk-session --screen off|on` (kiosk-screen@.service,
/// which may write /sys and open the I²C and CEC devices; kiosk.service may not). Every means
/// the panel has is used: a TV may answer both DDC/CI and CEC.
struct ScreenPower {
    var sys = "/sys"
    var dev = "/dev"
    /// I²C and CEC devices named by the operator, instead of those found.
    var ddcDevices: [String]?
    var cecDevices: [String]?

    /// What was done, each line naming the means and the device, and why each means not used
    /// was not.
    struct Outcome: Equatable {
        var done: [String] = []
        var notUsed: [String] = []
    }

    /// MCCS's VCP D6 (power mode): 1 on, 4 off (the display's own "DPM off").
    static let powerModeFeature: UInt8 = 0xD6
    static func powerMode(on: Bool) -> UInt16 { on ? 1 : 4 }
    /// The backlight class's bl_power: FB_BLANK_UNBLANK, FB_BLANK_POWERDOWN.
    static func blPower(on: Bool) -> String { on ? "0" : "4" }

    func set(on: Bool) -> Outcome {
        var outcome = Outcome()
        setBacklights(on: on, &outcome)
        setMonitors(on: on, &outcome)
        setTVs(on: on, &outcome)
        return outcome
    }

    // MARK: The backlight

    func backlights() -> [String] { entries(of: "\(sys)/class/backlight") }

    private func setBacklights(on: Bool, _ outcome: inout Outcome) {
        let names = backlights()
        guard !names.isEmpty else { return outcome.notUsed.append("no backlight (\(sys)/class/backlight is empty)") }
        for name in names {
            let path = "\(sys)/class/backlight/\(name)/bl_power"
            if let error = writeText(Self.blPower(on: on), to: path) {
                outcome.notUsed.append("backlight \(name): cannot write \(path): \(error)")
            } else {
                outcome.done.append("backlight \(name) (bl_power \(Self.blPower(on: on)))")
            }
        }
    }

    // MARK: DDC/CI

    /// The I²C devices of the connected displays' DDC buses, by connector; the reason when none.
    func monitors() -> (found: [(connector: String, device: String)], reason: String?) {
        if let ddcDevices { return (ddcDevices.map { ("named", $0) }, nil) }
        let drm = "\(sys)/class/drm"
        var found: [(String, String)] = [], missing: [String] = []
        for connector in entries(of: drm) where Self.isConnector(connector) {
            guard readText("\(drm)/\(connector)/status") == "connected",
                  let bus = linkTarget("\(drm)/\(connector)/ddc")?.split(separator: "/").last else { continue }
            let device = "\(dev)/\(bus)"
            if access(device, F_OK) == 0 { found.append((connector, device)) } else { missing.append("\(connector)'s \(device)") }
        }
        if found.isEmpty, !missing.isEmpty {
            return ([], "no DDC/CI: \(missing.joined(separator: ", ")) is missing (the i2c-dev module is not loaded)")
        }
        return (found, found.isEmpty ? "no DDC/CI (no connected display has a DDC bus: virtual and built-in panels have none)" : nil)
    }

    private func setMonitors(on: Bool, _ outcome: inout Outcome) {
        let (found, reason) = monitors()
        if let reason { outcome.notUsed.append(reason) }
        for (connector, device) in found {
            let r = kiosk_ddc_set_vcp(device, Self.powerModeFeature, Self.powerMode(on: on))
            let whose = connector == "named" ? device : "\(connector) (\(device))"
            if r == 0 {
                outcome.done.append("DDC/CI monitor on \(whose) (power mode \(Self.powerMode(on: on)))")
            } else {
                outcome.notUsed.append("DDC/CI on \(whose): \(r == -ENXIO || r == -EREMOTEIO ? "no monitor answered" : describe(r))")
            }
        }
    }

    // MARK: HDMI-CEC

    func cecAdapters() -> [String] {
        cecDevices ?? entries(of: dev).filter { $0.hasPrefix("cec") && Int($0.dropFirst(3)) != nil }.map { "\(dev)/\($0)" }
    }

    private func setTVs(on: Bool, _ outcome: inout Outcome) {
        let adapters = cecAdapters()
        guard !adapters.isEmpty else { return outcome.notUsed.append("no HDMI-CEC (no \(dev)/cec* adapter)") }
        for device in adapters {
            var address: UInt16 = 0xffff
            let r = kiosk_cec_set_tv_power(device, on ? 1 : 0, &address)
            let what = on ? "Image View On and Active Source" : "Standby"
            switch -r {
            case 0: outcome.done.append("HDMI-CEC \(what) to the TV by \(device) (physical address \(Self.physicalAddress(address)))")
            case ENOTCONN: outcome.notUsed.append("HDMI-CEC \(device): no display on its connector")
            case EHOSTUNREACH: outcome.notUsed.append("HDMI-CEC \(device): no TV acknowledged \(what)")
            default: outcome.notUsed.append("HDMI-CEC \(device): \(describe(r))")
            }
        }
    }

    /// "1.0.0.0", as CEC writes them.
    static func physicalAddress(_ a: UInt16) -> String {
        [12, 8, 4, 0].map { String((a >> UInt16($0)) & 0xf, radix: 16) }.joined(separator: ".")
    }

    /// A DRM connector's name: "card0-HDMI-A-1" (not "card0", "renderD128" or "version").
    static func isConnector(_ name: String) -> Bool {
        guard name.hasPrefix("card"), let dash = name.firstIndex(of: "-") else { return false }
        return Int(name[name.index(name.startIndex, offsetBy: 4)..<dash]) != nil
    }

    // MARK: Files

    private func entries(of directory: String) -> [String] { directoryEntries(directory) }

    private func readText(_ path: String) -> String? {
        readKernelFile(path)?.split(whereSeparator: \.isWhitespace).joined(separator: " ")
    }

    private func linkTarget(_ path: String) -> String? {
        var buf = [CChar](repeating: 0, count: 4096)
        let n = readlink(path, &buf, buf.count - 1)
        guard n > 0 else { return nil }
        return String(decoding: buf.prefix(n).map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// Nil when written; the reason otherwise. sysfs takes a value in one write.
    private func writeText(_ text: String, to path: String) -> String? {
        let fd = open(path, O_WRONLY | O_CLOEXEC)
        guard fd >= 0 else { return String(cString: strerror(errno)) }
        defer { close(fd) }
        let bytes = Array((text + "\n").utf8)
        return write(fd, bytes, bytes.count) == bytes.count ? nil : String(cString: strerror(errno))
    }

    private func describe(_ negativeErrno: Int32) -> String { String(cString: strerror(-negativeErrno)) }
}
