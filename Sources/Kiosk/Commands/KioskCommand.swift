import ArgumentParser
#if canImport(Glibc)
import Glibc
#endif
import KioskCore
import KioskRender
import KioskUI
import KioskScenes
import KioskPlatform


@main
struct KioskCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "kiosk",
        abstract: "A fullscreen touchscreen kiosk for Wayland.",
        version: kioskVersion,
        subcommands: [Run.self, Snapshot.self, Screenshot.self, Bench.self, CheckConfig.self, Texts.self, Icon.self, Session.self, Audit.self],
        defaultSubcommand: Run.self
    )

    /// Before the command line is even parsed, fontconfig starts loading on a helper thread
    /// when the command will draw text (the kiosk itself, snapshots, benchmarks): its ~5 ms are
    /// the longest wait before the first frame (`Tests/E2E/tools/first_frame.py`).
    static func main() {
        let words = Array(CommandLine.arguments.dropFirst())
        let drawsNothing = ["check-config", "session", "screenshot", "help", "--help", "-h", "--version"]
        if words.first == "session" {
            do { try Session.runSession(Array(words.dropFirst())) } catch { exit(withError: error) }
        }
        if !words.contains(where: drawsNothing.contains) { FontCache.initializeInBackground() }
        // The kiosk as a panel starts it: straight to work (see `RunArguments`).
        if let plain = RunArguments(words) {
            do { try Run.launch(plain) } catch { exit(withError: error) }
            return
        }
        main(nil)
    }
}

/// Exit with one clear line: the kiosk's contract for fatal errors.
func fail(_ log: Logger, _ message: String) -> ExitCode {
    log.error("\(message)")
    return ExitCode(1)
}

extension KioskCommand {
    // Every subcommand names itself: without `commandName`, ArgumentParser derives each name
    // with `String(describing:)` on the type at every start, whose dynamic casts scan all of the
    // binary's ~3,800 protocol conformances (a tenth of `kiosk --version`'s CPU time).
    struct Run: ParsableCommand {
        static let configuration = CommandConfiguration(commandName: "run", abstract: "Run the kiosk in the current Wayland session (the default).")

        @Option(help: "The scene to start with (\(SceneCatalog.standard.names.joined(separator: ", "))); default: the one shown at the last shutdown, else [shell] start.")
        var scene: String?

        @Option(help: "Seconds without input before the screensaver starts; 0 never (default: settings, else 120).")
        var idleTimeout: Double?

        @Option(help: "Settings file (default: /etc/kiosk/kiosk.toml, else $XDG_CONFIG_HOME/kiosk/kiosk.toml).")
        var config: String?

        @Flag(help: "Start in screensaver mode.")
        var screensaver = false

        @Option(help: "Rotate the UI clockwise by 0, 90, 180 or 270 degrees (for compositors that cannot rotate the output).")
        var rotate: Int?

        @Flag(name: .shortAndLong, help: "Log input, configures and frame timing (KIOSK_VERBOSE=1 in the environment too).")
        var verbose = false

        var arguments: RunArguments {
            RunArguments(scene: scene, idleTimeout: idleTimeout, config: config, screensaver: screensaver, rotate: rotate, verbose: verbose)
        }

        func run() throws { try Run.launch(arguments) }

        static func launch(_ a: RunArguments) throws {
            let start = MonotonicClock.nanoseconds()
            // KIOSK_VERBOSE=1 in a unit's environment does what --verbose does where the compositor
            // starts Kiosk without options (`systemctl edit kiosk`, for a panel being diagnosed).
            let log = makeLogger(verbose: a.verbose || getenv("KIOSK_VERBOSE").map { String(cString: $0) == "1" } == true)
            do {
                let overrides = Overrides(scene: a.scene, idleTimeout: a.idleTimeout, rotate: a.rotate)
                if let problem = overrides.problems.first { throw fail(log, problem) }
                let app = try Application(configPath: a.config, overrides: overrides, startInScreensaver: a.screensaver, log: log, startNS: start)
                let code = try app.run()
                if code != 0 { throw ExitCode(code) }
            } catch let e as PlatformError {
                throw fail(log, e.description)
            }
        }
    }

    /// What every headless command needs: a scene at a size and scale.
    struct HeadlessOptions: ParsableArguments {
        @Option(help: "The scene (\(SceneCatalog.standard.names.joined(separator: ", ")), or setup: the first start's setup screen).")
        var scene: String = SceneCatalog.standard.defaultName
        @Option(help: "Logical size, e.g. 1920x1080 or 1080x1920.")
        var size: String = "1920x1080"
        @Option(help: "Integer device scale (HiDPI), 1 to 4.")
        var scale: Int = 1
        @Option(help: "Buffer turned 0, 90, 180 or 270 degrees, as on a rotated output (the scene keeps --size).")
        var bufferRotate: Int = 0
        @Option(help: "The panel's physical size in millimetres as its output reports it, e.g. 320x200 (default: unknown, 96 dpi).")
        var panelMm: String?
        @Option(help: "The language the kiosk writes in: en, or one with a catalog (kiosk texts --list names them).")
        var language: String = "en"
        @Flag(help: "The visitors' large high-contrast mode ([access] large).")
        var large = false
        @Option(help: "Settings read from this file, as the kiosk reads its own (the exhibits' folder, the words' phrases).")
        var config: String?
        @Option(help: "exhibits: with this exhibit's page open (1: the first).")
        var exhibit: Int?

        /// A renderer for the scene (or for `workload`, a bench-only scene built with the
        /// fonts given), or an exit with one clear line naming the bad option.
        func makeRenderer(log: Logger, workload: ((FontCache) -> Scene?)? = nil, sceneBar: Bool = false) throws -> HeadlessRenderer {
            guard let sz = parseSize(size) else { throw fail(log, "--size '\(size)': expected WIDTHxHEIGHT, e.g. 1080x1920") }
            guard (1...4).contains(scale) else { throw fail(log, "--scale \(scale): expected 1 to 4") }
            guard let bufferRotation = Rotation(degrees: bufferRotate) else { throw fail(log, "--buffer-rotate \(bufferRotate): expected 0, 90, 180 or 270") }
            var mm: Size?
            if let panelMm {
                guard let m = parseSize(panelMm) else { throw fail(log, "--panel-mm '\(panelMm)': expected WIDTHxHEIGHT in millimetres, e.g. 320x200") }
                mm = m
            }
            let languages = LanguageCatalogs.load().languages
            guard let lang = Language.named(language, in: languages) else {
                throw fail(log, "--language '\(language)': expected one of \(languages.map(\.code).joined(separator: ", "))")
            }
            var settings = Settings()
            if let config {
                let (read, problems) = Settings.read(path: config, languages: languages)
                guard let read else { throw fail(log, "--config \(problems.first.map(String.init(describing:)) ?? config)") }
                for p in problems { log.warning("\(p)") }
                settings = read
            }
            settings.language = lang
            settings.knownLanguages = languages
            let fonts = FontCache(report: { log.warning("\($0)") })
            let setup = scene == "setup" ? SetupScene(fonts: fonts, scheduler: ManualScheduler(), settings: settings, saved: nil,
                                                      filePath: nil, stage: nil, onFinish: { _ in }) : nil
            guard var s = workload?(fonts) ?? setup ?? SceneCatalog.make(scene, fonts: fonts, settings: settings) else {
                throw fail(log, "unknown scene '\(scene)' (known: \((SceneCatalog.standard.names + (workload == nil ? [] : BenchWorkloads.names)).joined(separator: ", ")))")
            }
            if sceneBar {
                // The kiosk as a visitor sees it with the default settings: the scene in the shell,
                // under the scene bar.
                // A scene asked for on the command line joins the visitors' in the bar, as in the kiosk.
                guard SceneCatalog.standard.barScenes.contains(scene) else {
                    throw fail(log, "--scene-bar: '\(scene)' is not a scene the bar shows (\(SceneCatalog.standard.barScenes.joined(separator: ", ")))")
                }
                let listed = config == nil ? SceneCatalog.standard.defaultScenes : settings.scenes
                let names = listed.contains(scene) ? listed : listed + [scene]
                let shell = Shell.make(SceneMaking(fonts: fonts, settings: settings), names: names, start: scene)
                shell.setLanguages([settings.kioskTexts])
                shell.isLarge = large
                s = shell
            } else if let v = s as? ViewScene {
                if !(v is SetupScene) { v.texts = settings.kioskTexts }
                v.prefersLargeDisplay = large
            }
            if let exhibit {
                guard let e = ((s as? Shell)?.current ?? s) as? ExhibitsScene, e.folder.exhibits.indices.contains(exhibit - 1) else {
                    throw fail(log, "--exhibit \(exhibit): expected the exhibits scene and 1 to its number of exhibits")
                }
                e.open(exhibit - 1)
            }
            do {
                return try HeadlessRenderer(scene: s, info: DisplayInfo(size: sz, scale: scale, physicalSize: mm), bufferRotation: bufferRotation)
            } catch {
                throw fail(log, "\(error)")
            }
        }
    }

    struct Snapshot: ParsableCommand {
        static let configuration = CommandConfiguration(commandName: "snapshot", abstract: "Render a scene to a PNG file without a compositor.")

        @OptionGroup var options: HeadlessOptions
        @Option(help: "Seconds of simulated time to run before the snapshot.") var at: Double = 0
        @Option(help: "Where to write the PNG.") var out: String
        @Flag(help: "Show the scene in the shell, under the scene bar, as the kiosk shows it by default.") var sceneBar = false
        @Flag(help: "Print where each labelled control is drawn (label, x, y, width, height in points), as the live kiosk's debug log does.")
        var views = false

        func run() throws {
            let log = makeLogger(verbose: false)
            guard at >= 0, at <= 3600 else { throw fail(log, "--at \(at): expected 0 to 3600 seconds") }
            let r = try options.makeRenderer(log: log, sceneBar: sceneBar)
            r.run(until: at)
            do { try PNG.write(r.image, path: out) } catch { throw fail(log, "\(error)") }
            if views, let root = (r.stage.scene as? Shell)?.window ?? (r.stage.scene as? ViewScene)?.host {
                for line in Diagnostics.labelledViews(under: root) { print(line) }
            }
        }
    }

    struct Bench: ParsableCommand {
        static let configuration = CommandConfiguration(commandName: "bench", abstract: "Measure headless frame times for a scene.")

        @OptionGroup var options: HeadlessOptions
        @Option(help: "Frames to measure.") var frames: Int = 600
        @Option(help: "Touch scene: fingers moving at once (0: idle). labels: how many labels.") var items: Int = 1
        @Option(help: "How labels draw text: glyphs (from fcft's cache) or layer (cached images).") var text: String = "glyphs"
        @Option(help: "words: the smallest label's width in points ([words] size).") var labelSize: Double = 200
        @Option(help: "words: how many phrases (1: the default phrase; 16: the peers' set).") var phrases: Int = 1
        @Option(help: "words: the phrases' script: latin, cjk (Chinese, Japanese, Korean) or emoji.") var script: String = "latin"
        @Option(help: "soak: simulated seconds of visitors and idle screensaver (RSS and open files at the end).") var seconds: Double = 600
        @Flag(help: "lander: the engine held through the measured frames (the flame drawn, the ship climbing).") var engine = false

        func run() throws {
            let log = makeLogger(verbose: false)
            guard frames > 0, frames <= 1_000_000, items >= 0, items <= 100_000 else { throw fail(log, "--frames must be 1…1000000 and --items 0…100000") }
            guard (50...1000).contains(labelSize), (1...BenchWorkloads.sixteenPhrases.count).contains(phrases) else {
                throw fail(log, "--label-size must be 50…1000 points and --phrases 1…\(BenchWorkloads.sixteenPhrases.count)")
            }
            guard let phraseSet = BenchWorkloads.phraseSet(script) else { throw fail(log, "--script '\(script)': expected latin, cjk or emoji") }
            if options.scene == "soak" {
                guard seconds > 0, seconds <= 7 * 86_400, let size = parseSize(options.size) else { throw fail(log, "--seconds must be 1…604800 and --size WxH") }
                let report = try runSoak(seconds: seconds, size: size, warmup: min(1800, seconds / 2))
                print("soak at \(options.size): the shell with every scene, visitors and idle screensaver")
                print(report.text)
                // Unattended for months: memory that keeps growing or files left open is a leak.
                if report.growthKiB >= 1024 || report.fdsAtEnd != report.fdsAtStart {
                    throw fail(log, "soak: resident memory grew \(report.growthKiB) KiB after the warm-up (limit 1023) or open files went \(report.fdsAtStart) → \(report.fdsAtEnd)")
                }
                return
            }
            if options.scene == "exhibits" {
                print(try ExhibitsBench.run(options: options, count: items == 1 ? 50 : items, frames: frames, log: log))
                print("peak RSS:      \(peakRSSKiB() / 1024) MiB")
                return
            }
            switch text {
            case "glyphs": Label.rendering = .glyphs
            case "layer": Label.rendering = .layer
            default: throw fail(log, "--text '\(text)': expected glyphs or layer")
            }
            let items = self.items
            let r = try options.makeRenderer(log: log, workload: { fonts in
                switch options.scene {
                case "labels": return BenchWorkloads.FallingLabels(count: items, fonts: fonts)
                case "drag": return BenchWorkloads.Drag(fonts: fonts)
                case "words" where items > 0:
                    // Spawn often enough that about `items` labels are falling at any time.
                    var c = FallingWordsConfig()
                    c.labelWidth = labelSize
                    if phrases > 1 || script != "latin" { c.phrases = Array(phraseSet.prefix(max(phrases, script == "latin" ? 1 : 16))) }
                    let fall = (Double(parseSize(options.size)?.height ?? 1080) + 1.5 * c.baseSize.height) / c.speed
                    c.interval = fall / Double(items)
                    return FallingWordsScene(fonts: fonts, config: c)
                default: return nil
                }
            })
            let result: BenchResult
            switch options.scene {
            case "labels":
                result = runIdleBench(renderer: r, frames: frames)
                print("workload labels at \(options.size) scale \(options.scale), \(items) labels, text as \(text)")
            case "words" where items > 0:
                r.run(until: 20) // fill the screen first
                result = runIdleBench(renderer: r, frames: frames)
                let words = r.stage.scene as? FallingWordsScene
                print("scene words at \(options.size) scale \(options.scale), \(words?.labelCount ?? 0) labels falling, label size \(format(labelSize)), \(script == "latin" ? phrases : 16) \(script) phrase\(phrases == 1 && script == "latin" ? "" : "s"), mean label ink \(Int(words?.meanLabelInkPixels ?? 0)) px")
                if let m = words?.textMemory {
                    print("text memory:   \(m.fonts) fonts loaded, \(m.masks) label masks (\(m.maskBytes / 1024) KiB), RSS \(currentRSSKiB() / 1024) MiB")
                }
            case "drag":
                result = runTouchBench(renderer: r, frames: frames, fingers: 1, path: .dragFromCentre)
                print("workload drag at \(options.size) scale \(options.scale), one finger dragging a 50×50 view")
            default:
                // The screensaver as configured by default, once its screen has filled.
                if options.scene == "words" { r.run(until: 20) }
                if engine { r.stage.scene.handle(KeyEvent(keysym: Key.space, text: " ", pressed: true, time: r.clock.now)) }
                result = items == 0 ? runIdleBench(renderer: r, frames: frames) : runTouchBench(renderer: r, frames: frames, fingers: min(items, 10))
                print("scene \(r.stage.scene.name) at \(options.size) scale \(options.scale), \(items) moving finger\(items == 1 ? "" : "s")\(engine ? ", engine held" : "")")
            }
            print(result.report)
            print("peak RSS:      \(peakRSSKiB() / 1024) MiB")
        }
    }
}

extension KioskCommand {
    struct CheckConfig: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "check-config",
            abstract: "Check a settings file: print every problem as file:line:col: message, exit 1 if any.")

        @Argument(help: "The file (default: the one Kiosk would read).")
        var file: String?

        func run() throws {
            guard let path = file ?? Settings.defaultPath() else {
                print("no settings file (looked for /etc/kiosk/kiosk.toml and $XDG_CONFIG_HOME/kiosk/kiosk.toml): defaults apply")
                return
            }
            let problems = Self.problems(in: path)
            for p in problems { print(p) }
            if !problems.isEmpty { throw ExitCode(1) }
            print("\(path): ok")
        }

        /// Every problem of the settings file at `path` for a kiosk with `catalog`'s scenes, and of
        /// the operator's language catalogs (`LanguageCatalogs`) first.
        static func problems(in path: String, catalog: SceneCatalog = .standard,
                             languages found: (languages: [Language], problems: [String]) = LanguageCatalogs.load()) -> [CustomStringConvertible] {
            let (languages, catalogProblems) = found
            let (settings, fileProblems) = Settings.load(path: path, catalog: catalog, languages: languages)
            return catalogProblems + fileProblems + settings.uncoveredTexts(file: path, coverage: FontCoverage.installed)
                + exhibitsProblems(settings)
        }

        /// The exhibits' folder, where the settings use it (the scene listed, its pictures as the
        /// screensaver) or it exists.
        static func exhibitsProblems(_ s: Settings) -> [CustomStringConvertible] {
            let e = s.sections[ExhibitsSettings.self]
            var st = stat()
            guard s.scenes.contains("exhibits") || e.screensaver || stat(e.folder, &st) == 0 else { return [] }
            return ExhibitsFolder.read(e.folder).checked(coverage: FontCoverage.installed)
        }
    }
}

extension KioskCommand {
    /// Every text the kiosk writes, as a `[text]` table to copy into kiosk.toml and edit.
    struct Texts: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "texts",
            abstract: "Print every text the kiosk writes in a language, as a [text] table for kiosk.toml.")

        @Argument(help: "The language: en, or one with a catalog (the package's or the operator's).")
        var language: String = "en"
        @Flag(help: "Print the translation template (gettext's .pot) instead: msginit makes a language's catalog from it.")
        var pot = false
        @Flag(help: "List the languages the kiosk has instead: code and name.")
        var list = false

        func run() throws {
            if pot { print(TemplateMessage.pot(), terminator: ""); return }
            let languages = LanguageCatalogs.load().languages
            if list {
                for l in languages { print("\(l.code)\t\(l.name)") }
                return
            }
            guard let l = Language.named(language, in: languages) else {
                throw fail(makeLogger(verbose: false), "'\(language)': expected one of \(languages.map(\.code).joined(separator: ", "))")
            }
            let table = SceneCatalog.standard.texts, texts = KioskCore.Texts(l, table: table)
            print("[text\(l.code == Language.english.code ? "" : ".\(l.code)")]")
            for key in table.keys where !table.isCounted(key) {
                print("\"\(key)\" = \(TOML.quoted(texts[key]))")
            }
            for key in table.countedKeys {
                for (form, n) in Self.forms(of: l) { print("\"\(key).\(form)\" = \(TOML.quoted(texts.form(key, n)))") }
            }
        }

        /// The forms a count takes in `language`, each with a count that takes it.
        static func forms(of language: Language) -> [(String, Int)] {
            var seen: [(String, Int)] = []
            for n in [0, 1, 2, 3, 11, 100] where !seen.contains(where: { $0.0 == language.pluralCategory(n) }) {
                seen.append((language.pluralCategory(n), n))
            }
            return seen
        }
    }

    /// For packaging (`make deb`): the icon drawn from the lander's rocket.
    struct Icon: ParsableCommand {
        static let configuration = CommandConfiguration(commandName: "icon", abstract: "Write Kiosk's icon as a PNG of a given size, or as SVG.",
                                                        shouldDisplay: false)
        @Option(help: "Pixels a side (PNG).")
        var size: Int = 48
        @Flag(help: "Write SVG instead of PNG.")
        var svg = false
        @Option(help: "Where to write it.")
        var out: String

        func run() throws {
            let log = makeLogger(verbose: false)
            if svg {
                guard let f = fopen(out, "w") else { throw fail(log, "\(out): cannot write: \(String(cString: strerror(errno)))") }
                fputs(AppIcon.svg(), f)
                fclose(f)
                return
            }
            guard (16...1024).contains(size), let img = AppIcon.image(size: size) else { throw fail(log, "--size \(size): expected 16 to 1024") }
            do { try PNG.write(img, path: out) } catch { throw fail(log, "\(error)") }
        }
    }
}

/// Command-line settings for one run; they win over the settings file, and are checked by
/// the same declarations as its values.
struct Overrides {
    var scene: String?
    var idleTimeout: Double?
    /// Degrees, as `rotate` in the file.
    var rotate: Int?

    var layer: SettingsLayer {
        var l = SettingsLayer()
        if let t = idleTimeout { l.add("shell.idle_timeout", format(t), from: "--idle-timeout \(format(t))") }
        if let r = rotate { l.add("shell.rotate", "\(r)", from: "--rotate \(r)") }
        return l
    }

    func apply(to s: inout Settings) { layer.apply(to: &s) }

    /// What the declarations refuse, one line each (without the file's fallback: a command
    /// line that is wrong is not run).
    var problems: [String] {
        var s = Settings()
        return layer.apply(to: &s).map { String($0.prefix { $0 != ";" }) }
    }
}
