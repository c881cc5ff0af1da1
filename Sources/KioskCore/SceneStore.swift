/// Where scenes keep what must survive a restart (a lander flight, the tile board), by name.
/// The app's `StateStore` is one (atomic JSON files); tests pass their own or none.
public protocol SceneStore: AnyObject {
    /// The saved value, or nil when there is none or it cannot be read (reported by the store).
    func load<T: Decodable>(_ type: T.Type, name: String) -> T?
    /// Saves `value`; false when it could not (reported by the store).
    @discardableResult func save<T: Encodable>(_ value: T, name: String) -> Bool
    /// Where `name` is kept, for messages.
    func path(_ name: String) -> String
    /// Moves an unusable file at `path` aside; says what was done, for the log.
    func moveAside(_ path: String) -> String
}
