import KioskCore
import KioskScenes

/// An operator's content on disk (the exhibits' folder): watched while the settings name it, and
/// the scenes made from it made again when it changes, as a change to the settings file makes
/// again the scenes it concerns. A folder that comes later is watched from when it comes.
final class ContentWatcher {
    private let scheduler: Scheduler
    private let register: (Int32, @escaping () -> Void) -> Void
    private let log: Logger
    private var watcher: FileWatcher?
    private var folder: String?
    /// The folder changed: the scenes made from `setting` are to be made again.
    var onChange: ((_ setting: String) -> Void)?
    static let setting = "exhibits.folder"

    init(scheduler: Scheduler, log: Logger, register: @escaping (Int32, @escaping () -> Void) -> Void) {
        self.scheduler = scheduler
        self.log = log
        self.register = register
    }

    /// Watches the folder `settings` name (again only when that changed).
    func follow(_ settings: Settings) {
        let path = settings.sections[ExhibitsSettings.self].folder
        guard path != folder else { return }
        folder = path
        watcher = FileWatcher(paths: [], folders: [path], scheduler: scheduler, settle: 0.5,
                              report: { [log] in log.debug("exhibits: \($0)") }, register: register) { [weak self] in
            self?.log.notice("exhibits: \(path) changed: shown again")
            self?.onChange?(Self.setting)
        }
    }
}
