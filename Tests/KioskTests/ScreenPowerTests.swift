import CSession
import Foundation
import Testing
@testable import KioskSession

/// kiosk-session --screen against a sysfs and /dev laid out as the kernel lays them out (the
/// real devices, which the virtual machines have no backlight for, are in Tests/VM).
@Suite struct ScreenPowerTests {
    /// A /sys and /dev: a backlight, an HDMI monitor with its DDC bus, an unplugged DP
    /// connector with one, a virtual connector without, two CEC adapters.
    final class Tree {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("screen-\(UUID().uuidString)").path
        var sys: String { "\(root)/sys" }
        var dev: String { "\(root)/dev" }
        init(backlights: [String] = ["intel_backlight"], i2cDevices: [String] = ["i2c-5"]) throws {
            let fm = FileManager.default
            for name in backlights {
                // The class folder holds links to the device, as sysfs's does.
                let device = "\(sys)/devices/pci0000:00/0000:00:02.0/drm/card0/card0-eDP-1/\(name)"
                try fm.createDirectory(atPath: device, withIntermediateDirectories: true)
                try "0\n".write(toFile: "\(device)/bl_power", atomically: false, encoding: .utf8)
                try fm.createDirectory(atPath: "\(sys)/class/backlight", withIntermediateDirectories: true)
                try fm.createSymbolicLink(atPath: "\(sys)/class/backlight/\(name)", withDestinationPath: device)
            }
            let drm = "\(sys)/class/drm"
            for (connector, status, bus) in [("card0-HDMI-A-1", "connected", "i2c-5"), ("card0-DP-1", "disconnected", "i2c-6"),
                                             ("card1-Virtual-1", "connected", nil)] as [(String, String, String?)] {
                try fm.createDirectory(atPath: "\(drm)/\(connector)", withIntermediateDirectories: true)
                try "\(status)\n".write(toFile: "\(drm)/\(connector)/status", atomically: false, encoding: .utf8)
                if let bus { try fm.createSymbolicLink(atPath: "\(drm)/\(connector)/ddc", withDestinationPath: "../../../i2c/\(bus)") }
            }
            try fm.createDirectory(atPath: "\(drm)/card0", withIntermediateDirectories: true)
            try fm.createDirectory(atPath: dev, withIntermediateDirectories: true)
            for name in i2cDevices + ["cec0", "cec1", "cec-notes", "tty1"] {
                _ = fm.createFile(atPath: "\(dev)/\(name)", contents: nil)
            }
        }
        deinit { try? FileManager.default.removeItem(atPath: root) }
        func blPower(_ name: String = "intel_backlight") -> String? { try? String(contentsOfFile: "\(sys)/class/backlight/\(name)/bl_power", encoding: .utf8) }
    }

    @Test func theBacklightGoesOffAndOnThroughBlPower() throws {
        let tree = try Tree()
        let power = ScreenPower(sys: tree.sys, dev: tree.dev, ddcDevices: [], cecDevices: [])
        #expect(power.set(on: false).done == ["backlight intel_backlight (bl_power 4)"])
        #expect(tree.blPower() == "4\n")
        #expect(power.set(on: true).done == ["backlight intel_backlight (bl_power 0)"])
        #expect(tree.blPower() == "0\n")
    }

    @Test func theConnectedDisplaysDDCBusesAreFoundAndOnlyThose() throws {
        let tree = try Tree()
        let found = ScreenPower(sys: tree.sys, dev: tree.dev).monitors()
        #expect(found.found.map(\.connector) == ["card0-HDMI-A-1"] && found.found.map(\.device) == ["\(tree.dev)/i2c-5"])
        #expect(found.reason == nil)
        #expect(ScreenPower.isConnector("card0-HDMI-A-1") && !ScreenPower.isConnector("card0") && !ScreenPower.isConnector("renderD128"))
    }

    @Test func withoutI2cDevTheMonitorIsNamedWithWhatIsMissing() throws {
        let tree = try Tree(i2cDevices: [])
        let found = ScreenPower(sys: tree.sys, dev: tree.dev).monitors()
        #expect(found.found.isEmpty)
        #expect(found.reason == "no DDC/CI: card0-HDMI-A-1's \(tree.dev)/i2c-5 is missing (the i2c-dev module is not loaded)")
    }

    @Test func onlyTheCECAdaptersAreTaken() throws {
        let tree = try Tree()
        #expect(ScreenPower(sys: tree.sys, dev: tree.dev).cecAdapters() == ["\(tree.dev)/cec0", "\(tree.dev)/cec1"])
        #expect(ScreenPower(sys: tree.sys, dev: tree.dev, cecDevices: ["/dev/cec3"]).cecAdapters() == ["/dev/cec3"])
    }

    /// A panel with nothing to turn (the virtual machines' virtio-gpu): every means says why.
    @Test func withNothingToTurnEachMeansSaysWhy() throws {
        let tree = try Tree(backlights: [])
        try FileManager.default.removeItem(atPath: "\(tree.sys)/class/drm/card0-HDMI-A-1")
        for name in ["cec0", "cec1"] { try FileManager.default.removeItem(atPath: "\(tree.dev)/\(name)") }
        let outcome = ScreenPower(sys: tree.sys, dev: tree.dev).set(on: false)
        #expect(outcome.done.isEmpty)
        #expect(outcome.notUsed == ["no backlight (\(tree.sys)/class/backlight is empty)",
                                    "no DDC/CI (no connected display has a DDC bus: virtual and built-in panels have none)",
                                    "no HDMI-CEC (no \(tree.dev)/cec* adapter)"])
    }

    /// A device that is not an I²C or CEC adapter is named with the kernel's reason.
    @Test func aDeviceThatIsNotAnAdapterIsNamedWithItsReason() throws {
        let tree = try Tree(backlights: [])
        let outcome = ScreenPower(sys: tree.sys, dev: tree.dev, ddcDevices: ["\(tree.dev)/tty1"], cecDevices: ["\(tree.dev)/cec0"]).set(on: false)
        #expect(outcome.done.isEmpty)
        #expect(outcome.notUsed.contains("DDC/CI on \(tree.dev)/tty1: Inappropriate ioctl for device"))
        #expect(outcome.notUsed.contains("HDMI-CEC \(tree.dev)/cec0: Inappropriate ioctl for device"))
    }

    /// MCCS's Set VCP Feature as a monitor reads it (VESA DDC/CI 1.1): the checksum is the XOR
    /// of the display's address 0x6E, the host's 0x51 and the message.
    @Test func theDDCMessageIsSetVCPWithItsChecksum() {
        var bytes = [UInt8](repeating: 0, count: 6)
        _ = kiosk_ddc_set_vcp_message(0x10, 50, &bytes)
        #expect(bytes == [0x84, 0x03, 0x10, 0x00, 0x32, 0x9A]) // brightness 50, as ddcutil sends it
        _ = kiosk_ddc_set_vcp_message(ScreenPower.powerModeFeature, ScreenPower.powerMode(on: false), &bytes)
        #expect(bytes == [0x84, 0x03, 0xD6, 0x00, 0x04, 0x6A])
        #expect(ScreenPower.physicalAddress(0x1000) == "1.0.0.0" && ScreenPower.physicalAddress(0x2130) == "2.1.3.0")
    }

    @Test func theKiosksScreenRequestIsTakenOutOfItsNotification() {
        let r = SessionSupervisor.screenRequest(in: "STATUS=closed\nKIOSK_SCREEN=off")
        #expect(r?.on == false && r?.rest == "STATUS=closed")
        #expect(SessionSupervisor.screenRequest(in: "KIOSK_SCREEN=off\nKIOSK_SCREEN=on")?.on == true)
        #expect(SessionSupervisor.screenRequest(in: "KIOSK_SCREEN=dim\nSTATUS=x") == nil)
    }

    @Test func theScreenOptionsAreRead() throws {
        let o = try SessionOptions.parse(["--screen", "off", "--ddc", "/dev/i2c-3", "--cec=/dev/cec0", "--screen-helper", "/bin/true"]).get()
        #expect(o.screen == false && o.ddcDevices == ["/dev/i2c-3"] && o.cecDevices == ["/dev/cec0"] && o.screenHelper == "/bin/true")
        #expect(throws: SessionError.self) { try SessionOptions.parse(["--screen", "dim"]).get() }
    }
}
