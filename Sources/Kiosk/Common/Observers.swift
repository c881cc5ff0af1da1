/// Whoever wants to know, told in the order they asked: a change has any number of listeners,
/// and one that starts listening never silences another.
final class Observers<Value> {
    private var listeners: [(Value) -> Void] = []

    func add(_ listener: @escaping (Value) -> Void) { listeners.append(listener) }

    func tell(_ value: Value) { for listener in listeners { listener(value) } }
}

extension Observers where Value == Void {
    func tell() { tell(()) }
}
