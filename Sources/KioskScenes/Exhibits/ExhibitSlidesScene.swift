import KioskCore
import KioskRender
import KioskUI

/// The screensaver of an operator's own content (`[exhibits] screensaver = true`): the exhibits'
/// pictures, the whole screen, one after another, each with its title, cross-fading into the
/// next. Between two fades nothing moves and no frame is drawn; the next picture is decoded
/// (away from the frame loop) while the last one shows.
public final class ExhibitSlidesScene: ViewScene {
    public let folder: ExhibitsFolder
    let loader: PictureLoader
    private var slides: [Slide] = []
    /// The slide on screen, and which exhibit it shows.
    private var shown = 0
    public private(set) var exhibit = 0
    private var isActive = false
    private var timer: ScheduledTimer?
    private var fadeStart: Double?
    /// How long each picture stays, and how long one fades into the next.
    public static let seconds = 10.0, fade = 1.5

    public init(fonts: FontCache, scheduler: Scheduler = ManualScheduler(), folder: ExhibitsFolder, helper: Helper = InlineHelper(),
                report: @escaping (String) -> Void = { _ in }) {
        self.folder = folder
        loader = PictureLoader(helper: helper, report: report)
        super.init(name: "slides", fonts: fonts, scheduler: scheduler, texts: ExhibitsScene.textTable)
    }

    public override func build(in view: SceneView) {
        view.backgroundColor = Color.black
        for _ in 0..<2 {
            let s = Slide(loader: loader)
            s.alpha = 0
            view.addSubview(s)
            slides.append(s)
        }
        slides[0].alpha = 1
        view.addDisplayLink(wantsFrames: { [unowned self] in fadeStart != nil }) { [unowned self] time in fade(to: time) }
        show(exhibit, in: slides[0])
    }

    public override func layout(view: SceneView) {
        for s in slides { s.frame = Rect(origin: .zero, size: view.bounds.size) }
    }

    public override func applyTexts() {
        for s in slides { s.title.text = s.exhibit.map { folder.exhibits[$0].words(in: texts.language.code).title } ?? "" }
    }

    private func show(_ i: Int, in slide: Slide) {
        guard folder.exhibits.indices.contains(i) else { return }
        slide.exhibit = i
        slide.picture.path = folder.exhibits[i].picture
        slide.title.text = folder.exhibits[i].words(in: texts.language.code).title
    }

    public override func setActive(_ active: Bool) {
        super.setActive(active)
        guard active != isActive else { return }
        isActive = active
        timer?.cancel()
        timer = nil
        if active { wait() } else if fadeStart != nil { finishFade() }
    }

    /// The next exhibit goes under the one on screen now and fades in when the time is up.
    private func wait() {
        guard folder.exhibits.count > 1 else { return }
        let next = (exhibit + 1) % folder.exhibits.count
        show(next, in: slides[1 - shown])
        timer = view.scheduler.schedule(after: Self.seconds) { [weak self] in self?.beginFade() }
    }

    private func beginFade() {
        timer = nil
        fadeStart = view.scheduler.now
    }

    private func fade(to time: Double) {
        guard let start = fadeStart else { return }
        let f = min(1, max(0, (time - start) / Self.fade))
        slides[1 - shown].alpha = f
        slides[shown].alpha = 1 - f
        if f >= 1 { finishFade() }
    }

    private func finishFade() {
        fadeStart = nil
        slides[shown].alpha = 0
        shown = 1 - shown
        slides[shown].alpha = 1
        exhibit = slides[shown].exhibit ?? exhibit
        // The one behind lets its picture go until the next comes into it.
        slides[1 - shown].picture.path = nil
        if isActive { wait() }
    }

    /// A new visitor's screensaver starts from the first exhibit again.
    public override func reset() {
        exhibit = 0
        show(0, in: slides[shown])
    }
}

/// One slide: a picture inside the screen, its title along the foot.
final class Slide: View {
    let picture: PictureView
    let title = Label()
    var exhibit: Int?

    init(loader: PictureLoader) {
        picture = PictureView(loader: loader, fit: .inside)
        picture.background = Color.black
        super.init()
        isUserInteractionEnabled = false
        addSubview(picture)
        title.fontSize = 26
        title.alignment = .center
        title.textColor = Color.paper
        title.backgroundColor = Color.black.withAlpha(0.55)
        addSubview(title)
    }

    override func layoutSubviews() {
        picture.frame = Rect(origin: .zero, size: bounds.size)
        title.frame = Rect(x: 0, y: bounds.height - 56, width: bounds.width, height: 56)
    }
}
