import Testing
@testable import Kiosk
@testable import KioskScenes
@testable import KioskRender
@testable import KioskCore
#if canImport(Glibc)
import Glibc
#endif

/// Saved state read and written as if an adversary had been in the folder first.
@Suite struct StateStoreTests {
    final class Folder {
        let path: String
        var lines: [String] = []
        lazy var store = StateStore(directory: path, report: { [unowned self] in self.lines.append($0) })
        init() { path = String(cString: mkdtemp(strdup("/tmp/kiosk-state-XXXXXX"))!) }
        deinit { _ = system("rm -rf '\(path)'") }
        func write(_ name: String, _ text: String) {
            let f = fopen("\(path)/\(name)", "w")!
            fputs(text, f)
            fclose(f)
        }
        func read(_ name: String) -> String? {
            (try? readRegularFile("\(path)/\(name)", limit: 1 << 20).get()).map { String(decoding: $0, as: UTF8.self) }
        }
        var files: [String] {
            guard let d = opendir(path) else { return [] }
            defer { closedir(d) }
            var out: [String] = []
            while let e = readdir(d) {
                let n = withUnsafeBytes(of: e.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
                if n != "." && n != ".." { out.append(n) }
            }
            return out.sorted()
        }
    }

    @Test func aBoardWhoseNextIDWouldOverflowIsRefusedAndRefillWorks() throws {
        let f = Folder()
        f.write("tiles.json", #"{"nextID": 9223372036854775807, "tiles": [{"id": 0, "selected": true}]}"#)
        let fonts = FontCache()
        let scene = TileBoardScene(fonts: fonts, store: f.store, report: { f.lines.append($0) })
        #expect(scene.model == TileBoardModel())
        #expect(f.lines.contains { $0.contains("saved board is out of range") })
        var m = scene.model
        _ = m.removeSelected()
        _ = m.refill() // used to trap on overflow
        #expect(f.files.contains { $0.hasPrefix("tiles.json.corrupt-") })
    }

    @Test func aStateFileThatIsAFIFOOrALinkIsNeitherReadNorWrittenThrough() throws {
        let f = Folder()
        // A FIFO would block the open; a link would redirect the read and, worse, the save.
        #expect(mkfifo("\(f.path)/fifo", 0o600) == 0)
        #expect(symlink("\(f.path)/fifo", "\(f.path)/shell.json") == 0)
        #expect(f.store.load(ShellSaved.self, name: "shell") == nil)
        #expect(f.lines.last?.contains("not a regular file (a symbolic link)") == true)
        f.write("victim", "precious\n")
        #expect(symlink("\(f.path)/victim", "\(f.path)/tiles.json") == 0)
        #expect(f.store.save(ShellSaved(scene: "tiles"), name: "tiles"))
        #expect(f.read("victim") == "precious\n")
        var st = stat()
        #expect(lstat("\(f.path)/tiles.json", &st) == 0 && st.st_mode & S_IFMT == S_IFREG)
        #expect(f.store.load(ShellSaved.self, name: "tiles") == ShellSaved(scene: "tiles"))
    }

    @Test func aHugeStateFileIsNotReadIntoMemory() {
        let f = Folder()
        f.write("shell.json", "{\"scene\": \"" + String(repeating: "x", count: StateStore.maxBytes) + "\"}")
        #expect(f.store.load(ShellSaved.self, name: "shell") == nil)
        #expect(f.lines.last?.contains("at most 1 MiB is read") == true)
    }

    @Test func temporaryFilesAreUnpredictableAndLeftoversAreRemovedAtStart() {
        let f = Folder()
        // Leftovers of saves killed between create and rename, in both naming schemes.
        f.write(".tiles.json.a1B2c3", "{")
        f.write("shell.json.tmp-4242", "{")
        f.write("keep.txt", "not ours")
        f.store.prepare()
        #expect(f.files == ["keep.txt"])
        #expect(f.lines == ["\(f.path): removed 2 temporary file(s) an interrupted save left"])
        // A file planted at the old, predictable temporary name is not written through.
        f.write("shell.json.tmp-\(getpid())", "planted")
        #expect(f.store.save(ShellSaved(scene: "lander"), name: "shell"))
        #expect(f.read("shell.json.tmp-\(getpid())") == "planted")
    }

    @Test func aFolderOthersCanWriteIsReportedOnce() {
        let f = Folder()
        chmod(f.path, 0o777)
        f.store.prepare()
        #expect(f.lines.count == 1 && f.lines[0].contains("can be written by others (mode 777)"))
    }
}
