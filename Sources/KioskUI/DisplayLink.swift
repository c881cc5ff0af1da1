/// What a view does on every frame its window draws, as UIKit's CADisplayLink: a scene that
/// changes by itself (a flight, falling words, fading trails, a cross-fade) adds one rather than
/// being asked whether it needs frames. While `wantsFrames` holds, the window keeps drawing;
/// the window (`RootView.needsFrame`) is the one place that answers whether a frame is needed.
public final class DisplayLink {
    let wantsFrames: () -> Bool
    let step: (_ time: Double) -> Void
    weak var view: View?

    init(view: View, wantsFrames: @escaping () -> Bool, step: @escaping (Double) -> Void) {
        self.view = view
        self.wantsFrames = wantsFrames
        self.step = step
    }
}

extension View {
    /// Runs `step` with the frame's time on every frame of the window this view is in, before
    /// timers, animations and layout (nothing while it is in none: a scene behind another);
    /// `wantsFrames` says when frames must keep coming for it.
    @discardableResult
    public func addDisplayLink(wantsFrames: @escaping () -> Bool, step: @escaping (_ time: Double) -> Void) -> DisplayLink {
        let link = DisplayLink(view: self, wantsFrames: wantsFrames, step: step)
        displayLinks.append(link)
        root?.register(link)
        return link
    }
}
