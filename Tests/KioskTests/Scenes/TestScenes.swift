@testable import Kiosk

/// The standard scenes and the test suite's own (each a folder beside this file): what the
/// tests that prove a scene needs nothing but its folder make their kiosk with.
let testSceneCatalog = SceneCatalog(scenes: SceneCatalog.standard.scenes + [PaintScene.description])
