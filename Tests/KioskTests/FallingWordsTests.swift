import Testing
@testable import Kiosk

@Suite struct FallingWordsModelTests {
    @Test func aLabelEveryIntervalFromAFixedSeed() {
        var m = FallingWordsModel(config: FallingWordsConfig())
        #expect(m.advance(to: 0, height: 1080).added.count == 1)
        #expect(m.advance(to: 1.99, height: 1080).added.count == 3) // 0.5, 1.0, 1.5
        #expect(m.advance(to: 2.0, height: 1080).added.count == 1)
        #expect(m.words.map(\.spawnTime) == [0, 0.5, 1, 1.5, 2])
        var again = FallingWordsModel(config: FallingWordsConfig())
        again.advance(to: 0, height: 1080)
        again.advance(to: 2, height: 1080)
        #expect(again.words == m.words) // repeatable
    }

    @Test func sizesDurationsAndPathsStayInRange() {
        var c = FallingWordsConfig()
        c.seed = 99
        var m = FallingWordsModel(config: c)
        m.advance(to: 30, height: 1920)
        for w in m.words {
            #expect((1...2).contains(w.scale))
            #expect(w.duration >= 0.5 && w.duration <= 120 && w.duration.isFinite)
            #expect((0...1).contains(w.startX) && (0...1).contains(w.endX))
        }
    }

    @Test func noLabelSurvivesPastTheBottom() {
        var m = FallingWordsModel(config: FallingWordsConfig())
        let size = Size(width: 800, height: 600)
        for step in 0...600 {
            let t = Double(step) * 0.1
            m.advance(to: t, height: size.height)
            for w in m.words {
                let c = m.centre(of: w, at: t, in: size)
                let h = 60 * w.scale
                #expect(c.y - h / 2 < size.height) // still (partly) on screen while it exists
            }
        }
        // Each label starts fully above the top and ends fully below the bottom.
        let w = m.words[0]
        #expect(m.centre(of: w, at: w.spawnTime, in: size).y + 30 * w.scale <= 0)
        #expect(m.centre(of: w, at: w.spawnTime + w.duration, in: size).y - 30 * w.scale >= size.height - 1e-9)
    }

    @Test func blankPhrasesAndAbsurdSpeedsFallBackSafely() {
        var c = FallingWordsConfig()
        c.phrases = ["", "   "]
        c.speed = 0
        c.interval = .infinity
        var m = FallingWordsModel(config: c)
        m.advance(to: 100, height: 1080)
        #expect(m.words.allSatisfy { $0.text == "Peace Love Groovy Music" && $0.duration <= 120 })
        var many = FallingWordsConfig()
        many.phrases = ["Grüße", "春", "🎵 music"]
        var m2 = FallingWordsModel(config: many)
        m2.advance(to: 0, height: 1080)
        m2.advance(to: 20, height: 1080)
        #expect(Set(m2.words.map(\.text)).count == 3)
    }
}

@Suite struct FallingWordsSceneTests {
    @Test func labelsFollowTheModelAndARotationRetargetsThem() {
        let rig = SceneRig<FallingWordsScene>(size: Size(width: 1920, height: 1080)) { FallingWordsScene(fonts: $0, scheduler: $1) }
        rig.wait(3)
        #expect(rig.scene.labelCount == rig.scene.model.words.count && rig.scene.labelCount == 7)
        rig.scene.layout(DisplayInfo(size: Size(width: 1080, height: 1920)))
        let w = rig.scene.model.words[0]
        let expected = rig.scene.model.centre(of: w, at: rig.now, in: Size(width: 1080, height: 1920))
        let label = rig.scene.root.subviews.compactMap { $0 as? Label }.first { $0.center == expected }
        #expect(label != nil)
        rig.wait(60)
        #expect(rig.scene.labelCount == rig.scene.model.words.count) // removed with the model
    }

    @Test func pausedItStopsAndResumesWithoutAFlood() {
        let rig = SceneRig<FallingWordsScene>(size: Size(width: 800, height: 600)) { FallingWordsScene(fonts: $0, scheduler: $1) }
        rig.wait(2)
        rig.scene.setActive(false)
        let n = rig.scene.labelCount
        rig.wait(100)
        #expect(rig.scene.labelCount == n)
        rig.scene.setActive(true)
        rig.wait(0.1)
        #expect(rig.scene.labelCount < 80) // at most a screenful catches up
    }
}
