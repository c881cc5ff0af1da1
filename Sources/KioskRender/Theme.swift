#if canImport(Glibc)
import Glibc
#endif

/// Optional theme images from the operator's theme folder.
package enum Theme {
    /// The images among `names` that exist in `directory` and decode. A file that is absent is
    /// simply not themed; one that exists but does not decode is reported once (naming it), so
    /// the caller falls back to its vector drawing.
    package static func images(_ names: [String], in directory: String?, report: (String) -> Void) -> [String: Image] {
        guard let directory else { return [:] }
        var out: [String: Image] = [:]
        for name in names {
            let path = directory + "/" + name
            guard access(path, F_OK) == 0 else { continue }
            do { out[name] = try PNG.read(path: path, limits: .theme) } catch { report("image \(error); drawing the vector version instead") }
        }
        return out
    }
}
