import KioskCore

/// Settings of the falling-words screensaver.
public struct FallingWordsConfig: Equatable, Sendable {
    public static let defaultPhrases = ["Peace Love Groovy Music"]
    /// Phrases, one picked at random per label; empty (or all blank) means the default.
    public var phrases: [String] = FallingWordsConfig.defaultPhrases
    /// Seconds between new labels.
    public var interval = 0.5
    /// Fall speed in points per second (each label varies ±30 % around it).
    public var speed = 150.0
    public var color = Color(rgb: 0x8e24aa)
    public var alpha = 0.75
    /// A label is 1–2× this size.
    public var baseSize = Size(width: 200, height: 60)
    /// `[words] size`: the smallest label's width in points (its box is 0.3 times as tall; the
    /// text is fitted to it).
    public var labelWidth: Double {
        get { baseSize.width }
        set { baseSize = Size(width: newValue, height: newValue * 0.3) }
    }
    public var seed: UInt64 = 1
    public init() {}

    /// The phrases to use: non-blank ones, or the default.
    public var effectivePhrases: [String] {
        let p = phrases.filter { $0.contains { !$0.isWhitespace } }
        return p.isEmpty ? Self.defaultPhrases : p
    }
}

/// Which labels exist and where they fall: pure logic, seeded, no views and no clock.
public struct FallingWordsModel: Sendable {
    public struct Word: Equatable, Sendable {
        public let id: Int
        public let text: String
        /// 1...2 times the base size.
        public let scale: Double
        /// Horizontal start and end as fractions of the width (the label's centre).
        public let startX: Double
        public let endX: Double
        public let spawnTime: Double
        /// Seconds from just above the top to just below the bottom (0.5 s ... 2 min).
        public let duration: Double
    }

    public let config: FallingWordsConfig
    /// `config.effectivePhrases`, worked out once rather than at every label.
    private let phrases: [String]
    public private(set) var words: [Word] = []
    private var rng: SplitMix64
    private var nextSpawn: Double?
    private var nextID = 0

    public init(config: FallingWordsConfig) {
        var c = config
        c.interval = min(60, max(0.005, config.interval.isFinite ? config.interval : 0.5))
        c.speed = min(5000, max(5, config.speed.isFinite ? config.speed : 150))
        self.config = c
        phrases = c.effectivePhrases
        rng = SplitMix64(seed: config.seed)
    }

    /// Adds the labels due by `time` for a screen `height` points tall and drops the ones that
    /// have fallen past the bottom. Returns the ids added and removed.
    @discardableResult
    public mutating func advance(to time: Double, height: Double) -> (added: [Int], removed: [Int]) {
        var added: [Int] = []
        if nextSpawn == nil { nextSpawn = time }
        // A long pause (the screensaver was off) does not flood the screen: catch up at most a
        // screenful's worth of spawns.
        if let n = nextSpawn, time - n > 30 { nextSpawn = time - 30 }
        while let n = nextSpawn, n <= time {
            added.append(spawn(at: n, height: height))
            nextSpawn = n + config.interval
        }
        let removed = words.filter { time >= $0.spawnTime + $0.duration }.map(\.id)
        if !removed.isEmpty { words.removeAll { time >= $0.spawnTime + $0.duration } }
        return (added, removed)
    }

    private mutating func spawn(at time: Double, height: Double) -> Int {
        let text = phrases[Int(rng.next() % UInt64(phrases.count))]
        let scale = 1 + rng.next(below: 1)
        let distance = max(1, height) + config.baseSize.height * scale
        let variation = 0.7 + rng.next(below: 0.6)
        let duration = min(120, max(0.5, distance / config.speed * variation))
        let w = Word(id: nextID, text: text, scale: scale, startX: rng.next(below: 1), endX: rng.next(below: 1),
                     spawnTime: time, duration: duration)
        nextID += 1
        words.append(w)
        return w.id
    }

    /// The centre of `word` at `time` on a screen of `size`: from just above the top to just
    /// below the bottom, so a label is never seen appearing or vanishing, and never cut by the
    /// side edges (the whole box stays on screen across; centred on a screen narrower than it).
    public func centre(of word: Word, at time: Double, in size: Size) -> Point {
        let t = max(0, min(1, (time - word.spawnTime) / word.duration))
        let h = config.baseSize.height * word.scale, w = config.baseSize.width * word.scale
        let across = max(0, size.width - w)
        let x = (size.width - across) / 2 + (word.startX + (word.endX - word.startX) * t) * across
        let y = -h / 2 + t * (size.height + h)
        return Point(x: x, y: y)
    }
}
