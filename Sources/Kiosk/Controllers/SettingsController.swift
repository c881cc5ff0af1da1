import KioskCore
import KioskRender

/// The settings in force: at start the file's (each problem reported once), then what the
/// setup screen chose where the file is silent, then what was changed on the admin panel, then the command line on top; again on SIGHUP or when the file
/// changes (`reload`), handed to `apply` with the settings they replace so the kiosk changes
/// live. A file refused as a whole (unreadable, not TOML) gives the defaults at start, and is
/// not applied on a reload: the kiosk keeps what it has.
final class SettingsController {
    /// What the panel runs: `derive()` of the layers below, never written around them.
    private(set) var current: Settings
    let configPath: String?
    let overrides: Overrides
    private let store: StateStore
    private let log: Logger
    private var watcher: FileWatcher?
    /// The file's settings (the defaults without one), as last read.
    private var fromFile: Settings
    /// The setup's choices while it is open: shown live (a turn, a calibration) through the same
    /// layers as the saved ones; dropped when the setup is left without finishing.
    private(set) var setupPreview: SetupChoices?
    /// Applies `new` over `old` (set by the application once the kiosk is up).
    var apply: ((_ new: Settings, _ old: Settings) -> Void)?
    /// Told of every reload: applied (true) or refused as a whole (false).
    var onReload: ((Bool) -> Void)?
    /// The kiosk's languages, read again with the file (`LanguageCatalogs.load`).
    private let languages: () -> (languages: [Language], problems: [String])

    init(configPath: String?, overrides: Overrides, store: StateStore, log: Logger,
         languages: @escaping () -> (languages: [Language], problems: [String]) = { LanguageCatalogs.load() }) {
        self.configPath = configPath
        self.overrides = overrides
        self.store = store
        self.log = log
        self.languages = languages
        fromFile = Self.readFile(configPath: configPath, languages: languages(), log: log)!
        current = fromFile
        current = derive(saying: true)
    }

    /// The settings file's settings, each problem reported; nil on a reload when the file is
    /// refused as a whole (the kiosk keeps what it has).
    static func readFile(configPath: String?, languages found: (languages: [Language], problems: [String]), log: Logger,
                         reloading: Bool = false) -> Settings? {
        // The catalogs, then the locale once (two small files at most), for the file and for no
        // file alike.
        let languages = found.languages
        for p in found.problems { log.warning("\(p)") }
        let locale = Settings.localeLanguage(in: languages)
        var s = Settings()
        s.language = locale
        s.knownLanguages = languages
        if let path = configPath ?? Settings.defaultPath() {
            let (loaded, problems) = Settings.read(path: path, locale: locale, languages: languages)
            for p in problems { log.warning("\(p)") }
            if let loaded { s = loaded } else if reloading {
                log.warning("\(path) not applied: the kiosk keeps the settings it has")
                return nil
            }
        }
        return s
    }

    /// The file's settings, then what the setup chose where the file is silent, then the admin
    /// panel's changes, then the open setup's (the newest), then the command line.
    private func derive(saying: Bool = false) -> Settings {
        var s = fromFile, problems: [String] = []
        if let setup = savedSetup, setup != SetupChoices() {
            problems += setup.apply(to: &s, from: store.path(SetupChoices.storeName))
            if saying { log.info("settings chosen on the setup screen (\(store.path(SetupChoices.storeName))) apply where the file is silent") }
        }
        if let panel = store.load(PanelSettings.self, name: "admin"), !panel.isEmpty {
            problems += panel.apply(to: &s, from: store.path("admin"))
            if saying { log.info("settings changed on the admin panel (\(store.path("admin"))) win over the file") }
        }
        setupPreview?.apply(to: &s)
        overrides.apply(to: &s)
        if saying { for p in problems { log.warning("\(p)") } }
        return s
    }

    /// `current` derived again and applied.
    private func rederive(saying: Bool = false) {
        let old = current
        current = derive(saying: saying)
        if current != old { apply?(current, old) }
    }

    /// The open setup's choices so far, shown at once.
    func previewSetup(_ choices: SetupChoices) {
        setupPreview = choices
        rederive()
    }

    /// The setup left without finishing (the screensaver, closing time): the panel as it was.
    func abandonSetup() {
        guard setupPreview != nil else { return }
        setupPreview = nil
        log.notice("setup: left without finishing; its choices are dropped")
        rederive()
    }

    /// Reloads whenever the settings file (or, with none given, any of the places one may
    /// appear) changes, as SIGHUP does.
    func watch(scheduler: Scheduler, register: @escaping (Int32, @escaping () -> Void) -> Void) {
        watcher = FileWatcher(paths: configPath.map { [$0] } ?? Settings.candidatePaths(), scheduler: scheduler,
                              report: { [log] in log.debug("\($0)") }, register: register) { [weak self] in
            self?.log.info("settings file changed")
            self?.reload()
        }
    }

    /// A line for each changed setting a running kiosk does not take (`SettingDeclaration.live`).
    static func waitingForNextStart(old: Settings, new: Settings, declarations: [SettingDeclaration] = Settings.declarations) -> [String] {
        declarations.compactMap { d in
            guard !d.live, let value = d.value, value(old) != value(new) else { return nil }
            return "[\(d.section)] \(d.name) is now \(value(new)): the kiosk takes it at its next start (it keeps \(value(old)))"
        }
    }

    /// Re-reads the settings and applies them.
    func reload() {
        guard let file = Self.readFile(configPath: configPath, languages: languages(), log: log, reloading: true) else {
            onReload?(false)
            return
        }
        onReload?(true)
        log.notice("settings reloaded")
        fromFile = file
        let old = current
        current = derive(saying: true)
        for line in Self.waitingForNextStart(old: old, new: current) { log.notice("\(line)") }
        apply?(current, old)
        reportUncoveredTexts()
    }

    /// The admin panel's outcome: its changes kept (over earlier ones) or dropped, then reloaded.
    func panelClosed(_ outcome: AdminPanel.Outcome) {
        switch outcome {
        case .cancel:
            log.notice("admin panel closed")
        case .save(let changes):
            let kept = (store.load(PanelSettings.self, name: "admin") ?? PanelSettings()).merged(with: changes)
            store.save(kept, name: "admin")
            log.notice("admin panel: settings saved to \(store.path("admin"))")
            reload()
        case .useFile:
            store.save(PanelSettings(), name: "admin")
            store.save(savedSetup?.keepingThePIN ?? SetupChoices(), name: SetupChoices.storeName)
            log.notice("admin panel: back to the settings file (the PIN chosen in setup stays)")
            reload()
        case .setup:
            break // the application opens the setup screen; its choices come back through `setupFinished`
        }
    }

    /// The setup screen is showing for the first time: recorded, so that a restart before its
    /// end shows it again; or this kiosk ran before setups existed: recorded as set up.
    func recordSetup(done: Bool) {
        store.save(SetupChoices(done: done), name: SetupChoices.storeName)
    }

    /// Configured text the installed fonts cannot draw, one warning each (it is shown anyway,
    /// with what the fonts have): after the first frame and after each reload, off the start's
    /// path (reading every font's coverage takes milliseconds).
    func reportUncoveredTexts() {
        guard let path = configPath ?? Settings.defaultPath() else { return }
        for p in current.uncoveredTexts(file: path, coverage: FontCoverage.installed) { log.warning("\(p)") }
    }

    /// What the setup screen chose before, if anything.
    var savedSetup: SetupChoices? { store.load(SetupChoices.self, name: SetupChoices.storeName) }

    /// The setup screen's "Start the kiosk": its choices kept (over earlier ones), then reloaded.
    func setupFinished(_ choices: SetupChoices) {
        setupPreview = nil
        store.save(choices, name: SetupChoices.storeName)
        // The newest choice wins: a turn made on the admin panel before gives way to the setup's.
        let rotate = SetupChoices.keys.rotate
        if choices.rotate != nil, var panel = store.load(PanelSettings.self, name: "admin"), panel.values[rotate] != nil {
            panel.values[rotate] = nil
            store.save(panel, name: "admin")
        }
        log.notice("setup: choices saved to \(store.path(SetupChoices.storeName))")
        reload()
    }
}
