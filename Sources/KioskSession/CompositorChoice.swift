/// Which compositor `kiosk session` runs on this panel, and how it starts it. Pure decisions
/// from facts gathered elsewhere (`DisplayCards`), so they are tested without a panel.
enum Compositor: String, CaseIterable, Sendable {
    case cage, weston

    var path: String { "/usr/bin/\(rawValue)" }
}

/// A display device (`/dev/dri/cardN`) and what cage needs to know of it.
struct DisplayCard: Equatable, Sendable {
    var name: String
    var driver: String
    /// DRM_CAP_PRIME's import bit: wlroots 0.15 (cage 0.1.4, Debian 12) refuses a device without
    /// it (backend/drm/drm.c, `check_drm_features`: "PRIME import not supported"), which simple
    /// framebuffers such as bochs (qemu's standard VGA) and simpledrm lack. wlroots 0.18 (cage
    /// 0.2.0, Debian 13) drives them (seen on bochs in `make vm`).
    var primeImport: Bool
    /// Whether it drives a display (mode setting, connectors): not a render-only device such as
    /// a Raspberry Pi's v3d (its display is vc4's) or vgem, which may well be card0.
    var hasDisplay = true

    var described: String { "\(name) (\(driver))" }
}

struct CompositorChoice: Equatable, Sendable {
    var compositor: Compositor
    /// Why, in an operator's words, for the journal.
    var reason: String
    /// Said at warning level when the choice is a last resort.
    var warning: String?
    /// The display devices the compositor is told to use ("card1"): only where a render-only
    /// device is present too, which it might otherwise take; empty leaves it its own choice.
    var devices: [String] = []

    /// Decides from the display devices present, the compositors installed and cage's version
    /// (`cage -v`); `requested` (the `--compositor` option) wins when it is installed. Nil with
    /// a reason when no compositor can run yet (systemd starts the unit again).
    static func choose(requested: Compositor?, cards: [DisplayCard], installed: Set<Compositor>,
                       cageVersion: CageVersion? = nil) -> Result<CompositorChoice, SessionError> {
        let displays = cards.filter(\.hasDisplay)
        let renderOnly = cards.filter { !$0.hasDisplay }
        if !cards.isEmpty, displays.isEmpty { return .failure(.renderOnly(describe(renderOnly))) }
        return compositor(requested: requested, displays: displays, installed: installed, cageVersion: cageVersion).map { choice in
            guard !renderOnly.isEmpty else { return choice }
            var pinned = choice
            pinned.devices = displays.map(\.name)
            pinned.reason += "; \(describe(renderOnly)) \(renderOnly.count == 1 ? "has" : "have") no display"
            return pinned
        }
    }

    private static func compositor(requested: Compositor?, displays: [DisplayCard], installed: Set<Compositor>,
                                   cageVersion: CageVersion?) -> Result<CompositorChoice, SessionError> {
        if let requested {
            guard installed.contains(requested) else { return .failure(.notInstalled(requested)) }
            return .success(CompositorChoice(compositor: requested, reason: "as asked (--compositor \(requested.rawValue))"))
        }
        guard !displays.isEmpty else { return .failure(.noDisplay) }
        let list = describe(displays)
        if installed.contains(.cage), let v = cageVersion, v.drivesPlainFramebuffers {
            return .success(CompositorChoice(compositor: .cage, reason: "cage \(v) drives \(list)"))
        }
        if let card = displays.first(where: \.primeImport), installed.contains(.cage) {
            return .success(CompositorChoice(compositor: .cage, reason: "\(card.described) imports PRIME buffers, as cage 0.1.4 needs"))
        }
        let why = displays.contains(where: \.primeImport) ? "cage is not installed" : "\(list) cannot import PRIME buffers, which cage 0.1.4 needs"
        if installed.contains(.weston) {
            return .success(CompositorChoice(compositor: .weston, reason: "\(why): weston drives it with its pixman renderer"))
        }
        if installed.contains(.cage) {
            return .success(CompositorChoice(compositor: .cage, reason: "weston is not installed",
                                             warning: "\(why): cage will most likely fail to start; install weston (apt install weston) to drive this display"))
        }
        return .failure(.noCompositor)
    }

    private static func describe(_ cards: [DisplayCard]) -> String { cards.map(\.described).joined(separator: ", ") }
}

/// cage's version as `cage -v` prints it ("Cage version 0.2.0").
struct CageVersion: Equatable, Comparable, Sendable, CustomStringConvertible {
    var parts: [Int]

    init(_ parts: [Int]) { self.parts = parts }

    init?(versionLine: String) {
        guard let word = versionLine.split(whereSeparator: \.isWhitespace).last else { return nil }
        let parts = word.split(separator: ".").map { Int($0) }
        guard parts.count >= 2, !parts.contains(nil) else { return nil }
        self.parts = parts.compactMap { $0 }
    }

    /// cage 0.2 is built on wlroots 0.18, which no longer needs PRIME import (DisplayCard).
    var drivesPlainFramebuffers: Bool { self >= CageVersion([0, 2]) }

    var description: String { parts.map(String.init).joined(separator: ".") }

    static func < (a: CageVersion, b: CageVersion) -> Bool { a.parts.lexicographicallyPrecedes(b.parts) }
}

/// How a compositor is started: its command line, what it adds to the environment (only where
/// the unit did not set the variable already: an operator's `Environment=` wins) and whether
/// it needs a logind session.
struct CompositorLaunch: Equatable, Sendable {
    var path: String
    var arguments: [String]
    var defaults: [String: String]
    /// The PAM service to open a session with: Debian 12's weston reaches the seat only
    /// through logind (no libseat in its launcher), and logind grants devices to sessions.
    var pamService: String?

    /// `kiosk`: the Kiosk executable cage runs; `extra`: the operator's own compositor options;
    /// `runtimeDirectory`: where weston writes its log; `devices`: the display devices it must
    /// use (CompositorChoice.devices).
    static func make(_ c: Compositor, kiosk: String, extra: [String], runtimeDirectory: String,
                     devices: [String] = []) -> CompositorLaunch {
        var launch = plain(c, kiosk: kiosk, extra: extra, runtimeDirectory: runtimeDirectory)
        guard !devices.isEmpty else { return launch }
        switch c {
        case .cage: launch.defaults["WLR_DRM_DEVICES"] = devices.map { "/dev/dri/\($0)" }.joined(separator: ":")
        case .weston: launch.arguments.append("--drm-device=\(devices[0])") // weston drives one device
        }
        return launch
    }

    private static func plain(_ c: Compositor, kiosk: String, extra: [String], runtimeDirectory: String) -> CompositorLaunch {
        switch c {
        case .cage:
            return CompositorLaunch(
                path: c.path, arguments: ["-d"] + extra + ["--", kiosk],
                defaults: [
                    // seatd gives the seat to members of its group (Debian's unit: `seatd -g
                    // video`) without a logind session, so cage and Kiosk stay in the kiosk's
                    // unit: systemd then takes their READY=1, watchdog pings and journal lines.
                    "LIBSEAT_BACKEND": "seatd",
                    // wlroots' GL renderer gains a fullscreen shm client nothing and crashed in
                    // llvmpipe on a GPU without 3D acceleration; pixman copies the damage.
                    "WLR_RENDERER": "pixman",
                    // No WLR_LIBINPUT_NO_DEVICES=1: with it, wlroots 0.15 leaves the devices
                    // libinput found at start unannounced until the first input event, so the
                    // first touch reaches no one. Without it cage exits while no input device
                    // exists, and systemd starts it again 2 s later.
                    // cage shows an arrow whenever a pointer device appears (many touch
                    // controllers register one) and Kiosk cannot hide it before the pointer
                    // enters. The only theme cage finds has no `left_ptr`, so cage sets no
                    // cursor at all: no arrow, and no software cursor (which would also stop
                    // the output's direct scan-out and log an error every frame).
                    "XCURSOR_PATH": "/usr/share/kiosk/cursor-theme",
                ],
                pamService: nil)
        case .weston:
            return CompositorLaunch(
                path: c.path,
                arguments: ["--config=/etc/kiosk/weston.ini", "--use-pixman", "--log=\(runtimeDirectory)/weston.log"] + extra,
                defaults: [:], pamService: "kiosk")
        }
    }
}

enum SessionError: Error, Equatable, CustomStringConvertible {
    case notInstalled(Compositor)
    case noDisplay
    case renderOnly(String)
    case noCompositor
    case system(String)
    case usage(String)

    /// A display device that is not there yet may be while its driver loads.
    var displayMayComeYet: Bool {
        switch self {
        case .noDisplay, .renderOnly: return true
        default: return false
        }
    }

    var description: String {
        switch self {
        case .notInstalled(let c): return "\(c.rawValue) is not installed (\(c.path)): apt install \(c.rawValue)"
        case .noDisplay: return "no display device yet (/dev/dri/card*): is the panel's GPU driver loaded?"
        case .renderOnly(let cards):
            return "\(cards): render-only, no display device yet: is the display's driver loaded (on a Raspberry Pi, dtoverlay=vc4-kms-v3d in config.txt)?"
        case .noCompositor: return "neither cage nor weston is installed: apt install cage"
        case .system(let s): return s
        case .usage(let s): return "\(s) (kiosk-session --help)"
        }
    }
}
