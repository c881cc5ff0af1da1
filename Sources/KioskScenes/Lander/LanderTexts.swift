import KioskCore

extension LanderScene {
    /// The lander's words, in English by key, with notes for translators:
    /// gathered into the kiosk's texts (`SceneCatalog.texts`) and its translation template.
    public static let textTable = TextCatalog([
        "scene.lander": "Lander",
        "lander.readout": "Speed {speed} m/s (↓ {down}) · Altitude {altitude} m · Fuel {fuel} %",
        "lander.landed": "The Eagle has landed!",
        "lander.hardLanding": "Hard landing — but in one piece",
        "lander.crashed": "Crashed",
        "lander.flyAgain": "Fly again",
        "lander.help.title": "How to fly",
        "lander.help.body": "Hold the middle button to fire the engine, or tap it to keep it burning until the next tap; the side buttons turn the rocket.\nLand gently on the flat, lit pad: upright, slower than 2 m/s down and 1 m/s sideways.\nDouble-tap anywhere to start again. Hold the bar above the buttons for a second to move them.",
        "lander.thrust": "Thrust",
        "lander.turnLeft": "Turn left",
        "lander.turnRight": "Turn right",
        "lander.tiltLeft": "Tilted {degrees}° left",
        "lander.tiltRight": "Tilted {degrees}° right",
        "lander.upright": "Upright",
        "admin.pad": "Lander pad",
        "admin.left": "Left",
        "admin.right": "Right",
    ], notes: [
        "scene.lander": "A pill in the scene bar: the game of landing a rocket on the Moon.",
        "lander.landed": "Said on landing safely; a nod to Apollo 11 (\"The Eagle has landed\").",
        "lander.flyAgain": "A button after landing or crashing: start a new flight.",
        "lander.help.title": "The title of the lander's help card.",
        "lander.thrust": "Spoken by the screen reader: the button that fires the rocket's engine.",
        "lander.turnLeft": "Spoken by the screen reader: the button that turns the rocket to the left.",
        "lander.turnRight": "Spoken by the screen reader: the button that turns the rocket to the right.",
        "lander.tiltLeft": "Spoken after a turn button was chosen by the screen reader: how far the rocket leans to the left.",
        "lander.tiltRight": "Spoken after a turn button was chosen by the screen reader: how far the rocket leans to the right.",
        "lander.upright": "Spoken after a turn button was chosen by the screen reader: the rocket stands straight up.",
        "admin.pad": "The side of the screen where the lander's control buttons sit (Left or Right below).",
        "admin.left": "The lander's buttons on the left side of the screen.",
        "admin.right": "The lander's buttons on the right side of the screen.",
    ])
}
