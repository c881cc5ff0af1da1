#if canImport(Glibc)
import Glibc
#endif
import CSensors
import KioskCore

/// The panel's accelerometer, as iio-sensor-proxy reports it on the system bus: claimed when the
/// proxy has one (also when the proxy starts after the kiosk), each report handed to `report` on
/// the event loop. The connection's descriptor is watched by the loop; nothing blocks it.
final class Accelerometer {
    private var sensors: OpaquePointer?
    private var fd: Int32 = -1
    private let report: (SensorReport) -> Void
    private let unregister: (Int32) -> Void
    private let scheduler: Scheduler
    /// When an awaited answer is overdue: sd-bus answers it with an error then (a bus that
    /// drops a reply would otherwise leave the kiosk waiting, and silent).
    private var overdue: ScheduledTimer?

    /// `register` and `unregister` put the connection's descriptor on the event loop and take it off.
    init(scheduler: Scheduler, register: (Int32, @escaping () -> Void) -> Void, unregister: @escaping (Int32) -> Void,
         report: @escaping (SensorReport) -> Void) {
        self.scheduler = scheduler
        self.report = report
        self.unregister = unregister
        var error = [CChar](repeating: 0, count: 256)
        let me = Unmanaged.passUnretained(self).toOpaque()
        sensors = kiosk_sensors_open({ context, what, text in
            let me = Unmanaged<Accelerometer>.fromOpaque(context!).takeUnretainedValue()
            me.heard(what, text.map { String(cString: $0) } ?? "")
        }, me, &error, error.count)
        guard let sensors else {
            report(.noBus(String(cString: error)))
            return
        }
        fd = kiosk_sensors_fd(sensors)
        register(fd) { [weak self] in self?.process() }
        watchForOverdue()
    }

    deinit { close() }

    private func process() {
        guard let sensors else { return }
        let r = kiosk_sensors_process(sensors)
        if r < 0 {
            close()
            report(.closed(String(cString: strerror(-r))))
        } else {
            watchForOverdue()
        }
    }

    private func watchForOverdue() {
        overdue?.cancel()
        guard let sensors, case let left = kiosk_sensors_timeout(sensors), left >= 0 else { overdue = nil; return }
        overdue = scheduler.schedule(after: left + 0.01) { [weak self] in self?.process() }
    }

    private func close() {
        guard let s = sensors else { return }
        unregister(fd)
        overdue?.cancel()
        sensors = nil
        kiosk_sensors_close(s)
    }

    private func heard(_ what: Int32, _ text: String) {
        switch UInt32(what) {
        case KIOSK_SENSOR_NO_PROXY.rawValue: report(.noProxy(text))
        case KIOSK_SENSOR_PROXY.rawValue: report(.proxyCame)
        case KIOSK_SENSOR_ACCELEROMETER.rawValue: report(.hasAccelerometer(text == "true"))
        case KIOSK_SENSOR_ORIENTATION.rawValue: report(.orientation(SensorOrientation(rawValue: text)))
        default: report(.refused(text)) // KIOSK_SENSOR_ERROR; the connection's end comes from `process`
        }
    }
}
