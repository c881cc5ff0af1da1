import KioskCore
import KioskRender

/// A scene's own view, as a UIKit view controller's `view`: it fills the screen and holds the
/// scene's content. It knows the display its scene is laid out for (with the shell's safe
/// area), and the fonts and timers the scene uses, from before it is shown in a window.
public final class SceneView: View {
    public let fonts: FontCache
    public let scheduler: Scheduler
    public internal(set) var info: DisplayInfo
    /// The scene: where touches no view took go next.
    weak var owner: Responder?
    /// Every touch that began in this view's subtree, one batch per platform batch, before
    /// its views and recognizers hear of it (a scene's model follows fingers with it). A touch
    /// that a recognizer outside the subtree takes arrives cancelled, and then no more.
    public var touchObserver: ((TouchBatch) -> Void)?
    /// The scene's language reads right to left: its views lay out mirrored.
    public var layoutIsRightToLeft = false {
        didSet { if layoutIsRightToLeft != oldValue { layoutDirectionDidChange() } }
    }
    public override var isRightToLeft: Bool { layoutIsRightToLeft }

    init(info: DisplayInfo, fonts: FontCache, scheduler: Scheduler) {
        self.info = info
        self.fonts = fonts
        self.scheduler = scheduler
        super.init(frame: Rect(origin: .zero, size: info.size))
    }

    public override var next: Responder? { owner ?? superview }
}
