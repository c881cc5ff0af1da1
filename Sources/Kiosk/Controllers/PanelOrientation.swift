import KioskCore

/// Which way a picture stands on the panel, as a site allows it (`[shell] orientations`, UIKit's
/// supported interface orientations): its shape, and each shape's upside-down half.
enum Orientation: String, CaseIterable, Sendable {
    case landscape, portrait
    case landscapeUpsideDown = "landscape-upside-down"
    case portraitUpsideDown = "portrait-upside-down"

    /// The picture turned `r` clockwise on a panel whose own picture is landscape (or portrait):
    /// a quarter turn clockwise (the panel's right edge up) is the other shape, half a turn
    /// the same shape upside down.
    init(turned r: Rotation, onLandscapePanel landscape: Bool) {
        let order: [Orientation] = landscape ? [.landscape, .portrait, .landscapeUpsideDown, .portraitUpsideDown]
                                             : [.portrait, .landscape, .portraitUpsideDown, .landscapeUpsideDown]
        self = order[r.quarterTurns]
    }

    static let all = Set(allCases)
}

/// What iio-sensor-proxy says of the panel (`AccelerometerOrientation`): which of its edges is up.
enum SensorOrientation: String, Sendable {
    case normal, leftUp = "left-up", rightUp = "right-up", bottomUp = "bottom-up"

    /// The clockwise turn that stands the picture upright again: a panel turned with its right
    /// edge up has turned its picture a quarter counter-clockwise.
    var rotation: Rotation {
        switch self {
        case .normal: .upright
        case .rightUp: Rotation(quarterTurns: 1)
        case .bottomUp: Rotation(quarterTurns: 2)
        case .leftUp: Rotation(quarterTurns: 3)
        }
    }
}

/// What the panel's accelerometer service said, as `Accelerometer` hands it on.
enum SensorReport: Equatable, Sendable {
    /// No system bus to ask (why).
    case noBus(String)
    /// No iio-sensor-proxy on the bus (the bus's words).
    case noProxy(String)
    case proxyCame
    case hasAccelerometer(Bool)
    /// The panel's orientation; nil: undefined (lying flat, or not yet read).
    case orientation(SensorOrientation?)
    /// A call refused (the D-Bus error).
    case refused(String)
    case closed(String)
}

/// The picture's turn, kept here and nowhere else: `[shell] rotate` where a site fixed one (the
/// file, the setup, the admin panel, `--rotate`); else the accelerometer's reading once it has
/// held `settle` seconds, among the orientations the site allows. Each change is handed to
/// `onTurn`; the journal says once where the turn comes from.
final class PanelOrientation {
    /// How long a new reading must hold before the picture turns: a panel carried past an angle
    /// does not flap (docs/measurements.md).
    static let settle = 0.6

    private(set) var rotation = Rotation.upright
    var onTurn: ((Rotation) -> Void)?
    private let scheduler: Scheduler
    private let say: (String) -> Void
    private var settings = Settings()
    /// Whether the panel's own picture (the window, unturned) is wider than tall.
    private var landscapePanel = true
    /// The last reading the picture followed (allowed when it was read).
    private var followed: Rotation?
    private var pending: (reading: SensorOrientation, timer: ScheduledTimer)?
    /// The last reading, settled or not (nil: undefined, or none yet).
    private(set) var reading: SensorOrientation?
    private var hasSensor = false
    private var lastSaid = ""

    init(scheduler: Scheduler, say: @escaping (String) -> Void) {
        self.scheduler = scheduler
        self.say = say
    }

    /// The settings in force (at start and on each reload).
    func apply(_ s: Settings) {
        settings = s
        if hasSensor { sayOnce(sensorLine) }
        decide()
    }

    /// The window's unturned shape.
    func panel(landscape: Bool) {
        landscapePanel = landscape
        decide()
    }

    /// What the accelerometer service said.
    func sensor(_ report: SensorReport) {
        switch report {
        case .noBus(let why):
            sayOnce("rotation: no system bus (\(why)): the picture turns only by [shell] rotate, the setup or the admin panel")
        case .noProxy(let why):
            hasSensor = false
            sayOnce("rotation: no iio-sensor-proxy on the system bus (\(why)): the picture does not follow the panel's turns")
        case .proxyCame:
            say("rotation: iio-sensor-proxy is on the system bus: asking it for the accelerometer")
        case .hasAccelerometer(let has):
            hasSensor = has
            sayOnce(has ? sensorLine : "rotation: iio-sensor-proxy has no accelerometer on this panel: the picture does not follow the panel's turns")
        case .orientation(let o):
            read(o)
        case .refused(let why):
            sayOnce("rotation: iio-sensor-proxy refused the kiosk (\(why)): the picture does not follow the panel's turns")
        case .closed(let why):
            hasSensor = false
            sayOnce("rotation: the system bus closed (\(why)): the picture stays as it is")
        }
    }

    /// With a sensor: whether it is followed (among which orientations), or a fixed turn wins.
    private var sensorLine: String {
        settings.rotateFixed
            ? "rotation: [shell] rotate = \(settings.rotate.degrees) fixes the picture (kiosk.toml, the setup or the admin panel): the accelerometer is not followed"
            : "rotation: following the panel's accelerometer (iio-sensor-proxy) among \(allowedText)"
    }
    private var allowedText: String { Orientation.allCases.filter(settings.orientations.contains).map(\.rawValue).joined(separator: ", ") }

    /// A reading: the first is followed at once (the panel stands as it stands); a change, once
    /// it has held; undefined (lying flat) keeps the picture as it is.
    private func read(_ o: SensorOrientation?) {
        let first = reading == nil && followed == nil && pending == nil
        reading = o
        guard let o else { pending?.timer.cancel(); pending = nil; return }
        if first { follow(o); return }
        if pending?.reading == o { return }
        pending?.timer.cancel()
        pending = nil
        if o.rotation == followed { return }
        pending = (o, scheduler.schedule(after: Self.settle) { [weak self] in
            self?.pending = nil
            self?.follow(o)
        })
    }

    private func follow(_ o: SensorOrientation) {
        let shape = Orientation(turned: o.rotation, onLandscapePanel: landscapePanel)
        guard settings.orientations.contains(shape) else {
            if !settings.rotateFixed {
                say("rotation: the panel is \(o.rawValue): \(shape.rawValue) is not among [shell] orientations (\(allowedText)); the picture stays \(rotation.degrees)°")
            }
            return
        }
        followed = o.rotation
        let before = rotation
        decide()
        if !settings.rotateFixed && rotation != before {
            say("rotation: the panel is \(o.rawValue): the picture turned \(rotation.degrees)° (\(shape.rawValue))")
        }
    }

    /// The turn in force, from the settings and the reading followed; handed on when it changed.
    private func decide() {
        let turn = Self.rotation(settings: settings, followed: followed, landscapePanel: landscapePanel)
        guard turn != rotation else { return }
        rotation = turn
        onTurn?(turn)
    }

    /// A fixed `rotate` wins; then the reading followed, if the site allows its orientation;
    /// else the panel's own way up, or the first orientation allowed.
    static func rotation(settings s: Settings, followed: Rotation?, landscapePanel: Bool) -> Rotation {
        if s.rotateFixed { return s.rotate }
        func allowed(_ r: Rotation) -> Bool { s.orientations.contains(Orientation(turned: r, onLandscapePanel: landscapePanel)) }
        if let followed, allowed(followed) { return followed }
        return (0..<4).map { Rotation(quarterTurns: $0) }.first(where: allowed) ?? .upright
    }

    private func sayOnce(_ line: String) {
        guard line != lastSaid else { return }
        lastSaid = line
        say(line)
    }
}
