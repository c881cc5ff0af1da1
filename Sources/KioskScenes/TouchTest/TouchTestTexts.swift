import KioskCore

extension TouchTestScene {
    /// The touch test's words, in English by key, with notes for translators:
    /// gathered into the kiosk's texts (`SceneCatalog.texts`) and its translation template.
    public static let textTable = TextCatalog([
        "scene.touch": "Touch test",
        "touch.title": "Kiosk",
        "touch.info": "Touch test — {size} pt · scale {scale} · {orientation} · {dpi} dpi",
        "touch.info.panel": "panel {width}×{height} mm",
        "touch.portrait": "portrait",
        "touch.landscape": "landscape",
        "touch.points.one": "{n} touch point",
        "touch.points.other": "{n} touch points",
        "touch.total.one": "{n} touch since start",
        "touch.total.other": "{n} touches since start",
        "touch.ignored.one": "{n} ignored",
        "touch.ignored.other": "{n} ignored",
        "touch.lastKey": "Last key: {key}",
        "touch.lastKey.none": "none",
        "touch.spinner": "Two fingers: turn and pinch",
        "touch.follower": "Drag: it rides above your finger",
        "touch.target.one": "Small target: {n} hit",
        "touch.target.other": "Small target: {n} hits",
        "touch.swipe": "Swipe on the grid",
        "touch.swiped": "Swipe: {direction}",
        "touch.left": "← left",
        "touch.right": "→ right",
        "touch.up": "↑ up",
        "touch.down": "↓ down",
        "touch.hold": "Hold 1 s",
        "touch.held": "Held for 1 s — release to close",
    ], notes: [
        "scene.touch": "A pill in the scene bar: the operators' multi-touch test screen.",
        "touch.title": "The product's name; usually left as it is.",
        "touch.info": "A line of facts about the screen: its size in points, scale, orientation and pixel density.",
        "touch.spinner": "The label of a wheel turned with two fingers and made larger by spreading them.",
        "touch.follower": "The label of a shape dragged with one finger; it is drawn above the finger so it stays visible.",
        "touch.target": "A tiny target for testing accuracy; counts how often it was hit.",
        "touch.hold": "Keep a finger on this for one second.",
        "touch.lastKey.none": "No key was pressed yet (after \"Last key:\").",
        "touch.ignored": "Contacts the panel reported that no finger made (a faulty touchscreen's phantom taps), ignored by the kiosk and marked in red: how many, on a line of its own below the touches since start.",
    ])
}
