extension TouchTestScene {
    /// The touch test, as the kiosk's catalog lists it: the operators'.
    package static let description = SceneDescription(
        name: "touch", aliases: ["touch-test", "touchtest"], audience: .operators, texts: textTable
    ) { c in
        TouchTestScene(fonts: c.fonts, scheduler: c.scheduler)
    }
}
