import KioskCore
import KioskUI

/// The touch test's state: every finger on the panel, with a short trail behind it.
/// Pure logic: it knows nothing about drawing and takes time as an argument.
public struct TouchTestModel {
    public struct TrailPoint: Equatable {
        public var location: Point
        public var time: Double
    }
    public struct Finger: Equatable {
        public var id: Int32
        public var location: Point
        public var trail: [TrailPoint]
        public var liftedAt: Double?
    }

    /// How long a trail point stays visible; it fades linearly over this time.
    public static let trailDuration = 0.5
    /// Trail points closer than this (points) to the previous one are not kept.
    static let minimumSpacing = 2.0

    /// Fingers on the panel, in the order they touched down.
    public private(set) var fingers: [Finger] = []
    /// Trails of lifted fingers, still fading.
    public private(set) var fading: [Finger] = []
    public private(set) var lastKey: String?
    /// Touch sequences seen since launch (a quick check that every touch arrives).
    public private(set) var totalTouches = 0
    public private(set) var cancelledBatches = 0

    public init() {}

    public var touchCount: Int { fingers.count }

    /// Applies one batch. Returns the ids whose visuals changed.
    @discardableResult
    public mutating func apply(_ batch: TouchBatch) -> Set<Int32> {
        let time = batch.time
        var changed = Set<Int32>()
        if batch.points.contains(where: { $0.phase == .cancelled }) { cancelledBatches += 1 }
        for p in batch.points {
            changed.insert(p.id)
            switch p.phase {
            case .began:
                if let i = fingers.firstIndex(where: { $0.id == p.id }) { lift(at: i, time: time) }
                fingers.append(Finger(id: p.id, location: p.location, trail: [TrailPoint(location: p.location, time: time)]))
                totalTouches += 1
            case .moved:
                guard let i = fingers.firstIndex(where: { $0.id == p.id }) else { continue }
                fingers[i].location = p.location
                if let last = fingers[i].trail.last, last.location.distance(to: p.location) < Self.minimumSpacing {
                    fingers[i].trail[fingers[i].trail.count - 1].time = time
                } else {
                    fingers[i].trail.append(TrailPoint(location: p.location, time: time))
                }
            case .ended:
                guard let i = fingers.firstIndex(where: { $0.id == p.id }) else { continue }
                fingers[i].location = p.location
                lift(at: i, time: time)
            case .cancelled:
                // A cancelled touch never happened as far as the app is concerned: no fading
                // trail is left behind it.
                fingers.removeAll { $0.id == p.id }
            }
        }
        return changed
    }

    private mutating func lift(at i: Int, time: Double) {
        var f = fingers.remove(at: i)
        f.liftedAt = time
        if !f.trail.isEmpty { fading.append(f) }
    }

    public mutating func recordKey(_ text: String) { lastKey = text }

    /// Where contacts nobody made were ignored (`TouchFilter`), the newest last, and how many
    /// since launch: a panel's phantoms show where they land, in a colour no finger has.
    public private(set) var ignored: [Point] = []
    public private(set) var ignoredTotal = 0
    static let ignoredKept = 20

    /// Records an ignored contact; returns a mark no longer shown (the oldest of too many).
    @discardableResult
    public mutating func recordIgnored(at p: Point) -> Point? {
        ignoredTotal += 1
        ignored.append(p)
        return ignored.count > Self.ignoredKept ? ignored.removeFirst() : nil
    }

    /// Drops trail points older than `trailDuration`. Returns true when anything was dropped.
    @discardableResult
    public mutating func prune(at time: Double) -> Bool {
        var dropped = false
        let cutoff = time - Self.trailDuration
        for i in fingers.indices {
            // Keep the newest point so a resting finger's trail ends at the finger.
            let before = fingers[i].trail.count
            fingers[i].trail.removeAll { $0.time < cutoff }
            if fingers[i].trail.count != before { dropped = true }
        }
        let fadingBefore = fading.count
        for i in fading.indices { fading[i].trail.removeAll { $0.time < cutoff } }
        fading.removeAll { $0.trail.isEmpty }
        return dropped || fading.count != fadingBefore
    }

    /// True while some trail is still fading (the view then needs frames).
    public var hasLiveTrails: Bool {
        !fading.isEmpty || fingers.contains { $0.trail.count > 1 }
    }
}
