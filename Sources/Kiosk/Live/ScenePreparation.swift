#if canImport(Glibc)
import Glibc
#endif
import KioskCore
import KioskRender

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

