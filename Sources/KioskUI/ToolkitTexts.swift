import KioskCore

public enum ToolkitTexts {
    /// The toolkit's own words: what the screen reader says of a control, and a panel's buttons, in English by key, with notes for translators:
    /// gathered into the kiosk's texts (`SceneCatalog.texts`) and its translation template.
    public static let table = TextCatalog([
        "panel.close": "Close",
        "panel.more": "More",
        "access.button": "button",
        "access.scene": "scene",
        "access.header": "heading",
        "access.selected": "selected",
        "access.dimmed": "dimmed",
        "access.separator": ", ",
        "access.speechOn": "Speech on. Touch the screen to hear what is there; double-tap to choose it. Tap three times with two fingers to turn speech off.",
        "access.speechOff": "Speech off.",
    ], notes: [
        "panel.close": "A button closing the operators' touch test or settings panel.",
        "panel.more": "A button on a help card whose text is shown a part at a time (large text on a small screen): the next part.",
        "access.button": "Spoken after a control's name: what kind of thing it is (\"Remove, button\").",
        "access.scene": "Spoken after a scene's name in the scene bar (\"Tiles, scene, selected\").",
        "access.header": "Spoken after a heading's text.",
        "access.selected": "Spoken after a control that is chosen or on.",
        "access.dimmed": "Spoken after a control that cannot be used now.",
        "access.separator": "Between the parts the screen reader speaks; a comma and a space in most languages.",
        "access.speechOn": "Spoken when a visitor turns speech on: how to explore the screen without seeing it.",
    ])
}
