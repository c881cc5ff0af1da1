import KioskCore
import KioskRender
import KioskUI

/// Synthetic scenes for `kiosk bench`: the toolkit's costs, measured headless.
enum BenchWorkloads {
    /// Sixteen phrases of the kind a museum or shop shows, from one word to a short sentence:
    /// the peers' falling-words page, for measurements against them.
    static let sixteenPhrases = [
        "Welcome", "Peace", "Love", "Groovy Music", "Open daily", "Touch to begin", "Hello there",
        "Discover more", "Ask our staff", "New this week", "Free entry", "Follow the signs",
        "Enjoy your visit", "Look closer", "Try it out", "Peace Love Groovy Music",
    ]
    /// The same kind of phrases in Chinese, Japanese and Korean (fonts-noto-cjk's large fonts).
    static let cjkPhrases = [
        "ようこそ", "平和", "愛", "音楽", "毎日開館", "タッチして開始", "こんにちは", "もっと見る",
        "欢迎光临", "本周新品", "免费入场", "请跟随指示", "즐거운 관람 되세요", "자세히 보기", "체험해 보세요", "平和と愛と音楽",
    ]
    /// Emoji phrases (colour glyphs from fonts-noto-color-emoji, composited as images).
    static let emojiPhrases = [
        "👋", "☮️", "❤️", "🎵🎶", "🕘 🗓️", "👆 ▶️", "😀", "🔍✨", "🙋‍♀️", "🆕", "🎟️ 0 €", "➡️ ⬆️",
        "😊 🎉", "👀", "🤹", "☮️ ❤️ 🎸 🎵",
    ]
    static func phraseSet(_ script: String) -> [String]? {
        switch script {
        case "latin": return sixteenPhrases
        case "cjk": return cjkPhrases
        case "emoji": return emojiPhrases
        default: return nil
        }
    }
    static let names = ["labels", "drag", "soak"]

    /// `count` translucent labels (~200×60, alpha 0.75) falling at different speeds.
    final class FallingLabels: ViewScene {
        private let count: Int
        private var rng = SplitMix64(seed: 42)
        private var speeds: [Double] = []
        private var last: Double?

        init(count: Int, fonts: FontCache) {
            self.count = count
            super.init(name: "labels", fonts: fonts)
        }
        override func build(in view: SceneView) {
            view.backgroundColor = Color.ink
            view.addDisplayLink(wantsFrames: { true }) { [unowned self] time in fall(to: time) }
            let words = ["Peace", "Love", "Groovy", "Music", "Peace Love", "Groovy Music"]
            for i in 0..<count {
                let l = Label(frame: Rect(x: 0, y: 0, width: 200, height: 60))
                l.text = words[i % words.count]
                l.fontSize = 30
                l.alignment = .center
                l.textColor = Color(rgb: 0x9c27b0)
                l.alpha = 0.75
                l.isUserInteractionEnabled = false
                view.addSubview(l)
                speeds.append(60 + rng.next(below: 240))
            }
        }
        override func layout(view: SceneView) {
            let size = view.bounds.size
            for l in view.subviews {
                l.center = Point(x: rng.next(below: size.width), y: rng.next(below: size.height + 120) - 60)
            }
        }
        private func fall(to time: Double) {
            let dt = last.map { time - $0 } ?? 0
            last = time
            let h = view.bounds.height
            for (i, l) in view.subviews.enumerated() {
                var c = l.center
                c.y += speeds[i] * dt
                if c.y > h + 30 { c.y -= h + 60 }
                l.center = c
            }
        }
    }

    /// One small view that a finger drags around.
    final class Drag: ViewScene {
        let square = View(frame: Rect(x: 0, y: 0, width: 50, height: 50))
        private var grab: Point?
        init(fonts: FontCache) { super.init(name: "drag", fonts: fonts) }
        override func build(in view: SceneView) {
            view.backgroundColor = Color.ink
            square.backgroundColor = Color.sky
            square.cornerRadius = 8
            view.addSubview(square)
            let pan = PanGestureRecognizer { [unowned self] pan in
                let t = pan.translation(in: nil)
                square.center = square.center + t
                pan.setTranslation(.zero, in: nil)
            }
            pan.minimumDistance = .points(0)
            square.addGestureRecognizer(pan)
        }
        override func layout(view: SceneView) { square.center = Point(x: view.bounds.midX, y: view.bounds.midY) }
    }
}
