import CWayland

/// Bridges C listener callbacks to Swift objects without ever touching freed memory.
///
/// A proxy's user data is a retained `ListenerToken` (not the Swift owner itself). The token holds
/// its owner weakly, so an event that arrives after the owner is gone finds nil and is dropped
/// instead of dereferencing a dangling pointer. The token is released when the proxy is destroyed.
final class ListenerToken {
    weak var owner: AnyObject?
    init(_ owner: AnyObject) { self.owner = owner }

    /// Retained user data for a proxy owned by `owner`; pair with `release(_:)`.
    static func userData(for owner: AnyObject) -> UnsafeMutableRawPointer {
        Unmanaged.passRetained(ListenerToken(owner)).toOpaque()
    }
    static func release(_ data: UnsafeMutableRawPointer?) {
        guard let data else { return }
        Unmanaged<ListenerToken>.fromOpaque(data).release()
    }
    /// The live owner behind `data`, if it is still there and of type `T`.
    static func owner<T: AnyObject>(_ data: UnsafeMutableRawPointer?, as _: T.Type = T.self) -> T? {
        guard let data else { return nil }
        return Unmanaged<ListenerToken>.fromOpaque(data).takeUnretainedValue().owner as? T
    }
}

/// Listener tables live for the whole process: libwayland keeps a pointer to them for as long
/// as the proxy exists, and one immutable table per interface is all we ever need.
func makeListener<T>(_ value: T) -> UnsafeMutablePointer<T> {
    let p = UnsafeMutablePointer<T>.allocate(capacity: 1)
    p.initialize(to: value)
    return p
}

/// Errors that end the kiosk with one clear line.
public enum PlatformError: Error, CustomStringConvertible {
    case noDisplayConfigured
    case cannotConnect(String)
    case missingGlobal(String)
    case connectionLost(Int32)
    case protocolError(String)
    case system(String)

    public var description: String {
        switch self {
        case .noDisplayConfigured:
            return "no Wayland display: WAYLAND_DISPLAY is not set. Run Kiosk inside a Wayland compositor, e.g. `cage -- kiosk`, or use `make run`, which starts a headless weston."
        case .cannotConnect(let name):
            return "cannot connect to the Wayland display '\(name)' (is the compositor running? check WAYLAND_DISPLAY and XDG_RUNTIME_DIR)"
        case .missingGlobal(let g):
            return "the compositor does not offer \(g), which Kiosk needs"
        case .connectionLost(let errno):
            return "lost the connection to the compositor (\(String(cString: strerror(errno))))"
        case .protocolError(let s):
            return "Wayland protocol error: \(s)"
        case .system(let s):
            return s
        }
    }
}

#if canImport(Glibc)
import Glibc
#endif
