// Plain input and display events that Platform hands upward. Nothing here knows Wayland:
// layers above Platform (App, UI, Scenes) and the tests build and consume these directly.

/// Phases of one touch point, as in UIKit (`stationary` points are simply absent from a batch).
public enum TouchPhase: String, Sendable {
    case began, moved, ended, cancelled
}

/// One touch point's change within a batch. `location` is in logical surface points.
public struct TouchPoint: Equatable, Sendable {
    public var id: Int32
    public var phase: TouchPhase
    public var location: Point
    public init(id: Int32, phase: TouchPhase, location: Point) {
        self.id = id; self.phase = phase; self.location = location
    }
    /// The id of the mouse's left button acting as a finger (touch ids are never negative).
    public static let pointerID: Int32 = -1
    public var isPointer: Bool { id == TouchPoint.pointerID }
}

/// The changes of one `wl_touch.frame` (or one pointer event), applied together.
/// `time` is when the newest of them happened, in seconds on the kiosk's monotonic clock (the
/// compositor's timestamp, mapped by Platform), as `UITouch.timestamp`: recognizers, tap
/// counting and trails go by it, never by when a frame was drawn.
public struct TouchBatch: Equatable, Sendable {
    public var time: Double
    public var points: [TouchPoint]
    public init(time: Double, points: [TouchPoint]) { self.time = time; self.points = points }
}

public struct Modifiers: OptionSet, Sendable {
    public let rawValue: UInt8
    public init(rawValue: UInt8) { self.rawValue = rawValue }
    public static let shift = Modifiers(rawValue: 1)
    public static let control = Modifiers(rawValue: 2)
    public static let alt = Modifiers(rawValue: 4)
    public static let logo = Modifiers(rawValue: 8)
}

/// A key press or release after xkbcommon translation.
public struct KeyEvent: Equatable, Sendable {
    public var keysym: UInt32
    /// The text the key produces (may be empty, e.g. for arrows).
    public var text: String
    public var pressed: Bool
    public var isRepeat: Bool
    public var modifiers: Modifiers
    /// When it happened, on the monotonic clock (as `TouchBatch.time`).
    public var time: Double
    public init(keysym: UInt32, text: String, pressed: Bool, isRepeat: Bool = false,
                modifiers: Modifiers = [], time: Double = 0) {
        self.keysym = keysym; self.text = text; self.pressed = pressed
        self.isRepeat = isRepeat; self.modifiers = modifiers; self.time = time
    }
}

/// What layout needs to know about the screen the kiosk is on.
public struct DisplayInfo: Equatable, Sendable {
    /// The largest image side Kiosk makes, in pixels (pixman's and most compositors' limit).
    public static let maxPixelSide: Int32 = 16384

    /// Logical size of the window, in points.
    public var size: Size
    /// Device pixels per point (integer HiDPI).
    public var scale: Int
    /// The panel's physical size in millimetres, when the output reports one.
    public var physicalSize: Size?
    /// How the panel is turned (its output's transform, flips left out).
    public var rotation: Rotation
    /// The part of each edge that the shell's own controls (the scene bar) cover, as UIKit's
    /// safe area: a scene draws its background everywhere but keeps what people read or touch
    /// inside `safeArea`. Zero from the platform; the shell sets it for the scenes it hosts.
    public var safeAreaInsets: EdgeInsets = .zero
    /// The large high-contrast mode for visitors with low vision: the stage gives the scene half
    /// the points at twice the scale, and draws every colour in high contrast (`Color.inHighContrast`).
    public var isLarge = false
    public init(size: Size, scale: Int = 1, physicalSize: Size? = nil, rotation: Rotation = .upright) {
        self.size = size; self.scale = scale; self.physicalSize = physicalSize; self.rotation = rotation
    }
    /// The size in device pixels (points × scale, rounded), turned by `turn` (a buffer for a
    /// rotated output has width and height swapped on a quarter turn).
    public func pixelSize(turned turn: Rotation = .upright) -> PixelSize {
        let s = Double(scale)
        let w = Int32((size.width * s).rounded()), h = Int32((size.height * s).rounded())
        return turn.swapsSides ? PixelSize(width: h, height: w) : PixelSize(width: w, height: h)
    }
    /// The window's bounds less `safeAreaInsets`.
    public var safeArea: Rect { Rect(origin: .zero, size: size).inset(by: safeAreaInsets) }
    public var isPortrait: Bool { size.height > size.width }
    /// Points per millimetre on the real panel; 96 dpi when the panel's size is unknown.
    public var pointsPerMillimetre: Double {
        if let p = physicalSize, p.width > 0, p.height > 0, size.width > 0 {
            // Physical size is reported in the output's native orientation.
            let longMM = max(p.width, p.height), longPt = max(size.width, size.height)
            return longPt / longMM
        }
        return DisplayInfo.fallbackPointsPerMillimetre
    }
    /// 96 dpi: what layout assumes when the panel's size is unknown (or unbelievable).
    public static let fallbackPointsPerMillimetre = 96.0 / 25.4
}
