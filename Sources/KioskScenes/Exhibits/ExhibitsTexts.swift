import KioskCore

extension ExhibitsScene {
    /// The exhibits' own words (the exhibits' are the operator's), in English by key, with notes
    /// for translators: gathered into the kiosk's texts (`SceneCatalog.texts`) and its template.
    public static let textTable = TextCatalog([
        "scene.exhibits": "Exhibits",
        "scene.slides": "Slides",
        "exhibits.back": "Back",
        "exhibits.previous": "Previous exhibits",
        "exhibits.next": "Next exhibits",
        "exhibits.page": "Page {n} of {count}",
        "exhibits.up": "Scroll up",
        "exhibits.down": "Scroll down",
        "exhibits.empty": "Nothing to show here yet.",
    ], notes: [
        "scene.exhibits": "A pill in the scene bar: the operator's own content (pictures and texts about things on show).",
        "scene.slides": "The screensaver that shows the exhibits' pictures one after another (named in settings and the journal).",
        "exhibits.back": "A button on an exhibit's page: back to the board of all exhibits.",
        "exhibits.previous": "Spoken name of the arrow button that shows the previous page of exhibits on the board.",
        "exhibits.next": "Spoken name of the arrow button that shows the next page of exhibits on the board.",
        "exhibits.page": "Between the board's arrow buttons, and spoken when another page shows: {n}: this page; {count}: how many.",
        "exhibits.up": "Spoken name of the button that scrolls an exhibit's text back up a screenful.",
        "exhibits.down": "Spoken name of the button that scrolls an exhibit's text down a screenful.",
        "exhibits.empty": "Shown to visitors where the operator's folder of exhibits has none (yet).",
    ])
}
