import Testing
@testable import Kiosk

@Suite struct CompositorChoiceTests {
    let gpu = DisplayCard(name: "card0", driver: "virtio_gpu", primeImport: true)
    let plain = DisplayCard(name: "card0", driver: "bochs-drm", primeImport: false)
    let both: Set<Compositor> = [.cage, .weston]

    @Test func aDisplayThatImportsPrimeGetsCage() {
        let c = try? CompositorChoice.choose(requested: nil, cards: [gpu], installed: both).get()
        #expect(c?.compositor == .cage && c?.warning == nil)
        #expect(c?.reason == "card0 (virtio_gpu) imports PRIME buffers, as cage 0.1.4 needs")
    }

    @Test func cageOnWlroots018DrivesPlainFramebuffersToo() {
        let v = CageVersion(versionLine: "Cage version 0.2.0")
        #expect(v == CageVersion([0, 2, 0]) && v?.description == "0.2.0")
        #expect(CageVersion(versionLine: "Cage version 0.1.4")?.drivesPlainFramebuffers == false)
        #expect(CageVersion(versionLine: "cage: invalid option -- 'v'") == nil)
        let c = try? CompositorChoice.choose(requested: nil, cards: [plain], installed: both, cageVersion: v).get()
        #expect(c?.compositor == .cage && c?.reason == "cage 0.2.0 drives card0 (bochs-drm)")
        let old = try? CompositorChoice.choose(requested: nil, cards: [plain], installed: both, cageVersion: CageVersion([0, 1, 4])).get()
        #expect(old?.compositor == .weston)
    }

    @Test func aPlainFramebufferGetsWestonAndSaysWhy() {
        let c = try? CompositorChoice.choose(requested: nil, cards: [plain], installed: both).get()
        #expect(c?.compositor == .weston)
        #expect(c?.reason.contains("card0 (bochs-drm) cannot import PRIME buffers, which cage 0.1.4 needs") == true)
        // One card of several that can import is enough for cage (it uses that one).
        let second = DisplayCard(name: "card1", driver: "i915", primeImport: true)
        #expect((try? CompositorChoice.choose(requested: nil, cards: [plain, second], installed: both).get())?.compositor == .cage)
    }

    /// A Raspberry Pi's v3d (or vgem) only renders and may be card0; the display is vc4's.
    @Test func aRenderOnlyDeviceIsNeverTheDisplay() {
        let renderOnly = DisplayCard(name: "card0", driver: "vgem", primeImport: true, hasDisplay: false)
        let display = DisplayCard(name: "card1", driver: "virtio_gpu", primeImport: true)
        let c = try? CompositorChoice.choose(requested: nil, cards: [renderOnly, display], installed: both, cageVersion: CageVersion([0, 2, 0])).get()
        #expect(c?.reason == "cage 0.2.0 drives card1 (virtio_gpu); card0 (vgem) has no display" && c?.devices == ["card1"])
        // Debian 12: the render-only device's PRIME import does not make the display cage's.
        let simple = DisplayCard(name: "card1", driver: "simpledrm", primeImport: false)
        let old = try? CompositorChoice.choose(requested: nil, cards: [renderOnly, simple], installed: both).get()
        #expect(old?.compositor == .weston && old?.devices == ["card1"])
        let asked = try? CompositorChoice.choose(requested: .weston, cards: [renderOnly, display], installed: both).get()
        #expect(asked?.devices == ["card1"] && asked?.reason == "as asked (--compositor weston); card0 (vgem) has no display")
        #expect((try? CompositorChoice.choose(requested: nil, cards: [display], installed: both).get())?.devices == [])
        #expect(CompositorChoice.choose(requested: nil, cards: [renderOnly], installed: both) == .failure(.renderOnly("card0 (vgem)")))
        #expect(SessionError.renderOnly("card0 (v3d)").description.hasPrefix("card0 (v3d): render-only, no display device yet"))
    }

    @Test func theCompositorIsGivenTheDisplayDevice() {
        let cage = CompositorLaunch.make(.cage, kiosk: "/usr/bin/kiosk", extra: [], runtimeDirectory: "/run/kiosk", devices: ["card1"])
        #expect(cage.defaults["WLR_DRM_DEVICES"] == "/dev/dri/card1")
        let weston = CompositorLaunch.make(.weston, kiosk: "/usr/bin/kiosk", extra: [], runtimeDirectory: "/run/kiosk", devices: ["card1"])
        #expect(weston.arguments.last == "--drm-device=card1")
        #expect(CompositorLaunch.make(.cage, kiosk: "/usr/bin/kiosk", extra: [], runtimeDirectory: "/run/kiosk").defaults["WLR_DRM_DEVICES"] == nil)
    }

    @Test func withoutWestonCageIsTriedWithAWarning() {
        let c = try? CompositorChoice.choose(requested: nil, cards: [plain], installed: [.cage]).get()
        #expect(c?.compositor == .cage)
        #expect(c?.warning?.contains("install weston") == true)
    }

    @Test func whatCannotRunIsSaidInOneLine() {
        #expect(CompositorChoice.choose(requested: nil, cards: [], installed: both) == .failure(.noDisplay))
        #expect(CompositorChoice.choose(requested: nil, cards: [gpu], installed: []) == .failure(.noCompositor))
        #expect(CompositorChoice.choose(requested: .weston, cards: [gpu], installed: [.cage]) == .failure(.notInstalled(.weston)))
        #expect(SessionError.notInstalled(.weston).description == "weston is not installed (/usr/bin/weston): apt install weston")
    }

    @Test func theOperatorsChoiceWins() {
        let c = try? CompositorChoice.choose(requested: .weston, cards: [gpu], installed: both).get()
        #expect(c?.compositor == .weston && c?.reason == "as asked (--compositor weston)")
    }

    @Test func cageRunsKioskThroughSeatdWithTheOperatorsOptions() {
        let l = CompositorLaunch.make(.cage, kiosk: "/usr/bin/kiosk", extra: ["-r"], runtimeDirectory: "/run/kiosk")
        #expect(l.path == "/usr/bin/cage")
        #expect(l.arguments == ["-d", "-r", "--", "/usr/bin/kiosk"])
        #expect(l.defaults["LIBSEAT_BACKEND"] == "seatd" && l.defaults["WLR_RENDERER"] == "pixman")
        #expect(l.defaults["WLR_LIBINPUT_NO_DEVICES"] == nil && l.defaults["XCURSOR_PATH"] == "/usr/share/kiosk/cursor-theme")
        #expect(l.pamService == nil)
    }

    @Test func westonGetsALogindSessionAndLogsToAFile() {
        let l = CompositorLaunch.make(.weston, kiosk: "/usr/bin/kiosk", extra: [], runtimeDirectory: "/run/kiosk")
        #expect(l.arguments == ["--config=/etc/kiosk/weston.ini", "--use-pixman", "--log=/run/kiosk/weston.log"])
        #expect(l.pamService == "kiosk")
    }
}
