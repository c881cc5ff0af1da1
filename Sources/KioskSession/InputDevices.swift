/// The input devices libinput will take: those udev has finished with (its database has the
/// device, `ID_INPUT=1`). cage and weston start only with one; a touchscreen udev is still busy
/// with at boot is not one yet (libinput skips it, and cage exits "no input devices").
enum InputDevices {
    struct Paths {
        var classes = "/sys/class/input"
        var udevData = "/run/udev/data"
    }

    /// The `eventN` names of the initialised input devices, in name order.
    static func initialised(_ paths: Paths = Paths()) -> [String] {
        directoryEntries(paths.classes).filter { $0.hasPrefix("event") }.filter { name in
            guard let number = readKernelFile("\(paths.classes)/\(name)/dev").map(trimmed), number.contains(":"),
                  let record = readKernelFile("\(paths.udevData)/c\(number)") else { return false }
            return record.split(separator: "\n").contains("E:ID_INPUT=1")
        }
    }
}
