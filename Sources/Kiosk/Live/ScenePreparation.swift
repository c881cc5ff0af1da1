#if canImport(Glibc)
import Glibc
#endif
import KioskCore
import KioskRender
import KioskVoice

/// Builds and lays out the first scene on a helper thread while the main thread sets up the
/// window and pre-faults its first buffer.
///
/// Both jobs are slow and independent: opening fonts, shaping the scene's text and laying it out
/// take ~5 ms (after fontconfig's own ~5 ms, begun on a thread of its own at the top of `main`:
/// `FontCache.initializeInBackground`), touching a fresh 1920×1080 shm buffer 6–8 ms. On a
/// kiosk's two or more cores they overlap. The threads exit as soon as they are done: an idle
/// kiosk still runs one thread.
///
/// `@unchecked Sendable`: the scene and font cache are created on the helper thread and touched
/// by the main thread only after `join()`, which orders every write before every read.
final class ScenePreparation: @unchecked Sendable {
    private let makeShell: (FontCache) -> Shell
    /// The display to lay the scene out for, once it is made (it may ask for the large mode).
    private let info: (Shell) -> DisplayInfo?
    private var laidOutFor: DisplayInfo?
    private let log: Logger
    private var thread = pthread_t()
    private var started = false
    private var result: (Shell, FontCache)?

    /// `makeShell` runs on the helper thread; what it captures (scheduler, store) is only stored
    /// by the scene there and first used on the main thread after `join()`.
    init(info: @escaping (Shell) -> DisplayInfo?, log: Logger, makeShell: @escaping (FontCache) -> Shell) {
        self.makeShell = makeShell
        self.info = info
        self.log = log
    }

    /// The display the scene was laid out for, if it was (known after `join()`).
    var preparedInfo: DisplayInfo? { laidOutFor }

    func start() {
        let arg = Unmanaged.passRetained(self).toOpaque()
        started = pthread_create(&thread, nil, { arg in
            let prep = Unmanaged<ScenePreparation>.fromOpaque(arg!).takeRetainedValue()
            prep.run()
            return nil
        }, arg) == 0
        if !started {
            Unmanaged<ScenePreparation>.fromOpaque(arg).release()
            log.debug("startup: no helper thread; preparing the scene inline")
        }
    }

    private func run() {
        let log = self.log
        let fonts = FontCache(report: { log.warning("\($0)") })
        let shell = makeShell(fonts)
        laidOutFor = info(shell)
        if let laidOutFor {
            shell.layout(laidOutFor)
            shell.prepareContent()
        }
        result = (shell, fonts)
    }

    /// Waits for the helper (or does the work now if it never started) and hands over its result.
    func join() -> (shell: Shell, fonts: FontCache) {
        if started {
            pthread_join(thread, nil)
            started = false
        }
        if result == nil { run() }
        return result!
    }
}

extension ScenePreparation {
    /// The shell made on a helper thread while the window is set up, laid out as the stage will
    /// show it (rotated, large if the shell asks for it), the settings applied before its first
    /// layout: the bar decides where the scene's content goes.
    static func liveShell(settings: SettingsController, store: StateStore, scheduler: Scheduler, helper: Helper, voice: Voice,
                          expected: DisplayInfo?, startInScreensaver: Bool, log: Logger) -> ScenePreparation {
        let current = settings.current, overrides = settings.overrides, rotation = current.rotate
        let name = LiveScenes.start(current, overrides: overrides, store: store, log: log)
        let names = current.scenes.contains(name) ? current.scenes : current.scenes + [name]
        let prep = ScenePreparation(info: { scene in expected.map { Stage.sceneInfo($0, rotation: rotation, large: scene.prefersLargeDisplay) } },
                                    log: log) { fonts in
            Shell.make(LiveScenes.making(settings: current, fonts: fonts, scheduler: scheduler, helper: helper, store: store, log: log),
                       names: names, start: name, home: LiveScenes.home(current, overrides), catalog: LiveScenes.catalog,
                       startInScreensaver: startInScreensaver) { shell in
                // Spoken, and listed in the debug log (what was said, for an operator and the tests).
                shell.window.screenReader.speak = { [log] u in
                    log.debug("speech (\(u.language)): \(u.text)")
                    voice.say(u.text, language: u.language)
                }
                shell.window.screenReader.silence = { voice.stop() }
            }
        }
        prep.start()
        return prep
    }
}

/// The live kiosk's scenes: the catalog, how they are made from the settings, and which one
/// shows first and after a fresh start.
enum LiveScenes {
    /// The scenes this kiosk has.
    static let catalog = SceneCatalog.standard

    /// Makes scenes by name with `settings` (theme folder: the setting, else `$KIOSK_THEME_DIR`).
    static func making(settings: Settings, fonts: FontCache, scheduler: Scheduler, helper: Helper, store: StateStore, log: Logger) -> SceneMaking {
        let theme = settings.theme ?? getenv("KIOSK_THEME_DIR").map { String(cString: $0) }
        return SceneMaking(fonts: fonts, scheduler: scheduler, store: store, themeDirectory: theme,
                           settings: settings, report: { log.warning("\($0)") }, helper: helper)
    }

    /// The scene a fresh start shows: one asked for on the command line is this run's start.
    static func home(_ s: Settings, _ overrides: Overrides) -> String {
        overrides.scene.flatMap(catalog.canonicalName) ?? s.start
    }

    /// The scene shown first: the one asked for on the command line, else where the kiosk was
    /// at its last shutdown, else `[shell] start`.
    static func start(_ current: Settings, overrides: Overrides, store: StateStore, log: Logger) -> String {
        if let requested = overrides.scene {
            if let n = catalog.canonicalName(requested) { return n }
            log.warning("unknown scene '\(requested)' (known: \(catalog.names.joined(separator: ", "))): showing '\(current.start)'")
            return current.start
        }
        if let saved = store.load(ShellSaved.self, name: "shell"), let n = catalog.canonicalName(saved.scene) { return n }
        return current.start
    }

    /// A reload's settings on the shell: its own, and the scenes made from what changed made
    /// again (a scene asked for on the command line stays, as at start).
    /// The scenes made from the setting `key` made again from what it names (their content changed).
    static func remake(madeFrom key: String, in shell: Shell, settings: Settings, fonts: FontCache, scheduler: Scheduler,
                       helper: Helper, store: StateStore, log: Logger) {
        let making = making(settings: settings, fonts: fonts, scheduler: scheduler, helper: helper, store: store, log: log)
        shell.reconfigure(names: shell.names, rebuild: catalog.scenes(madeFrom: key), make: { catalog.make($0, making)! })
    }

    static func apply(_ new: Settings, over old: Settings, to shell: Shell, overrides: Overrides, fonts: FontCache,
                      scheduler: Scheduler, helper: Helper, store: StateStore, log: Logger) {
        shell.apply(new, home: home(new, overrides))
        shell.reconfigure(for: new, over: old, asked: overrides.scene.flatMap(catalog.canonicalName),
                          making: making(settings: new, fonts: fonts, scheduler: scheduler, helper: helper, store: store, log: log))
    }
}
