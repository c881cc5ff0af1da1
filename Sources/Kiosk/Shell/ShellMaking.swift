import KioskCore
import KioskUI

extension Shell {
    /// The one way a shell is made — the live kiosk, `kiosk snapshot`, the soak and the tests:
    /// its scenes made through `catalog` from `making`'s settings, and those settings applied
    /// before its first layout, so a shell in a test is the shell a visitor meets. `home` is
    /// the scene a fresh start shows (default: `[shell] start`); `wire` connects the shell
    /// before the settings apply (the voice: `[access] speech` says "Speech on").
    static func make(_ making: SceneMaking, names: [String]? = nil, start: String? = nil, home: String? = nil,
                     catalog: SceneCatalog = .standard, startInScreensaver: Bool = false,
                     wire: (Shell) -> Void = { _ in }) -> Shell {
        let settings = making.settings
        let shell = Shell(names: names ?? settings.scenes, start: start ?? settings.start, fonts: making.fonts,
                          scheduler: making.scheduler, catalog: catalog, screensaver: catalog.screensaverName(settings.sections),
                          startInScreensaver: startInScreensaver,
                          store: making.store) { catalog.make($0, making)! }
        wire(shell)
        shell.apply(settings, home: home ?? settings.start)
        return shell
    }

    /// What the settings say of the shell itself: at its making, and live on every reload.
    func apply(_ s: Settings, home: String) {
        showsSceneBar = s.sceneBar
        adminCorner = s.adminGesture
        resetsOnWake = s.idleReset
        setLanguages(s.visitorTexts)
        // A changed site default is the visitor's now too; an unchanged one leaves their choice.
        if siteMode.speaks != s.speech { siteMode.speaks = s.speech; setSpeech(s.speech) }
        if siteMode.isLarge != s.large { siteMode.isLarge = s.large; isLarge = s.large }
        mountingHeight = s.reachHeight
        homeScene = catalog.canonicalName(home) ?? s.start
    }
}

extension Shell {
    /// A reload's scenes: those whose settings changed are saved and made anew from `making`
    /// (they keep their state), and the bar lists the new scenes. A scene asked for on the
    /// command line (`asked`) stays reachable, as at start.
    func reconfigure(for new: Settings, over old: Settings, asked: String?, making: SceneMaking) {
        let rebuild = catalog.changed(from: old, to: new), saver = catalog.screensaverName(new.sections)
        guard new.scenes != old.scenes || !rebuild.isEmpty || saver != screensaverName else { return }
        let names = asked.map { new.scenes.contains($0) ? new.scenes : new.scenes + [$0] } ?? new.scenes
        reconfigure(names: names, rebuild: rebuild, screensaver: saver, make: { [catalog] in catalog.make($0, making)! })
    }
}
