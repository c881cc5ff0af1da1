#if canImport(Glibc)
import Glibc
#endif
import Testing
@testable import KioskVoice
import KioskCore

/// The voice: every language the kiosk ships is spoken by espeak-ng; a new utterance stops the
/// one being spoken; a missing device or voice is one line, not one per utterance.
@Suite(.serialized) struct VoiceTests {
    @Test func espeakSpeaksEveryShippedLanguageAloud() throws {
        let espeak = Espeak()
        try espeak.load()
        #expect(espeak.sampleRate == 22050)
        for language in [Language.english] + shippedLanguages {
            #expect(espeak.use(language: language.code), "espeak-ng has no voice for \(language.code)")
            var samples: [Int16] = []
            try espeak.synthesize(kioskTexts(language)["access.speechOn"]) { chunk in
                samples += chunk
                return true
            }
            let seconds = Double(samples.count) / Double(espeak.sampleRate)
            #expect(seconds > 2, "\(language.code): \(seconds) s of speech")
            #expect(rms(samples) > 1000, "\(language.code): as quiet as \(rms(samples))")
        }
        // A chunk that says stop ends the utterance there, with no fault.
        var chunks = 0
        try espeak.synthesize(kioskTexts()["access.speechOn"]) { _ in chunks += 1; return false }
        #expect(chunks == 1)
        // Faster is shorter; softer is quieter.
        func spoken(_ manner: Voice.Manner) throws -> [Int16] {
            espeak.speak(like: manner)
            var samples: [Int16] = []
            try espeak.synthesize("Tiles, scene, selected") { samples += $0; return true }
            return samples
        }
        _ = espeak.use(language: "en")
        let normal = try spoken(Voice.Manner()), fast = try spoken(Voice.Manner(wordsPerMinute: 300))
        let soft = try spoken(Voice.Manner(volume: 30))
        #expect(Double(fast.count) < 0.75 * Double(normal.count), "\(fast.count) vs \(normal.count) samples")
        #expect(rms(soft) < 0.5 * rms(normal), "\(rms(soft)) vs \(rms(normal))")
    }

    @Test func aMissingSoundDeviceIsNamedInTheError() {
        let output = AlsaOutput(device: "kiosk_no_such_device")
        #expect(throws: VoiceError.self) { try output.open(sampleRate: 22050) }
        do { try output.open(sampleRate: 22050) } catch {
            #expect("\(error)".hasPrefix("no sound device (ALSA 'kiosk_no_such_device': "), "\(error)")
        }
    }

    @Test func aNewUtteranceStopsTheOneBeingSpokenAndDropsItsQueuedSound() {
        let output = FakeOutput(pacing: 0.002)
        let voice = Voice(synthesizer: FakeSynthesizer(), output: output) { _, _ in }
        defer { voice.shutDown() }
        // Two seconds of sound at the fake device's pace: interrupted well before its end.
        voice.say(String(repeating: "long ", count: 1000), language: "en")
        waitFor { output.chunks.count >= 3 }
        voice.say("hi there", language: "en")
        voice.waitUntilQuiet()
        let long = output.chunks.filter { $0 == 5000 }.count
        #expect(long >= 3 && long < 1000, "\(long) of the long utterance's chunks were played")
        #expect(output.discards == 1)
        #expect(Array(output.chunks.suffix(2)) == [8, 8], "the new utterance is spoken whole, last")
    }

    @Test func aQuietVoiceLetsGoOfTheDeviceAndOpensItAgainToSpeak() {
        let output = FakeOutput(pacing: 0)
        let voice = Voice(synthesizer: FakeSynthesizer(), output: output) { _, _ in }
        voice.closeAfter = 0.05
        defer { voice.shutDown() }
        voice.say("one", language: "en")
        voice.waitUntilQuiet()
        waitFor { output.closes == 1 }
        #expect(output.closes == 1, "an idle kiosk keeps no sound card running")
        voice.say("two", language: "en")
        voice.say("three", language: "en")
        voice.waitUntilQuiet()
        waitFor { output.closes == 2 }
        #expect(output.opened == ["default", "default"] && output.closes == 2)
    }

    @Test func aMissingDeviceIsOneLineUntilItWorksAgain() {
        let output = FakeOutput(pacing: 0)
        output.broken = true
        let lines = Lines()
        let voice = Voice(synthesizer: FakeSynthesizer(), output: output) { level, line in lines.add("\(level) \(line)") }
        defer { voice.shutDown() }
        for text in ["one", "two", "three"] {
            voice.say(text, language: "en")
            voice.waitUntilQuiet()
        }
        #expect(lines.all == ["warning speech: no sound device (fake); the kiosk speaks silently until the device works"])
        output.broken = false
        voice.say("four", language: "en")
        voice.waitUntilQuiet()
        #expect(lines.all.last == "notice speech: the fake device works again")
        #expect(output.chunks == [4])
    }

    @Test func aLanguageWithoutAVoiceIsSpokenInEnglishAndSaidOnce() {
        let synthesizer = FakeSynthesizer()
        let lines = Lines()
        let voice = Voice(synthesizer: synthesizer, output: FakeOutput(pacing: 0)) { _, line in lines.add(line) }
        defer { voice.shutDown() }
        for _ in 0..<2 {
            voice.say("Olá", language: "pt")
            voice.waitUntilQuiet()
        }
        #expect(lines.all == ["speech: espeak-ng has no voice for 'pt'; it is spoken with the English voice"])
        #expect(synthesizer.spokenIn == ["en", "en"])
    }

    @Test func theDeviceNamedByTheOperatorIsUsedFromTheNextUtterance() {
        let output = FakeOutput(pacing: 0)
        let voice = Voice(synthesizer: FakeSynthesizer(), output: output) { _, _ in }
        defer { voice.shutDown() }
        voice.say("a", language: "en")
        voice.waitUntilQuiet()
        voice.device = "plughw:CARD=Headphones"
        voice.say("b", language: "en")
        voice.waitUntilQuiet()
        #expect(output.opened == ["default", "plughw:CARD=Headphones"])
    }
}

private func rms(_ samples: [Int16]) -> Double {
    (samples.reduce(0.0) { $0 + Double($1) * Double($1) } / Double(max(1, samples.count))).squareRoot()
}

private func waitFor(_ condition: () -> Bool) {
    for _ in 0..<5000 where !condition() { usleep(1000) }
}

/// Speaks each word of a text as one chunk of two samples, the chunk's samples the text's length.
private final class FakeSynthesizer: Synthesizer, @unchecked Sendable {
    var sampleRate: Int { 22050 }
    private(set) var spokenIn: [String] = []
    private var language = "en"
    func load() throws {}
    private(set) var manners: [Voice.Manner] = []
    func speak(like manner: Voice.Manner) { manners.append(manner) }
    func use(language: String) -> Bool {
        guard ["en", "fr"].contains(language) else { return false }
        self.language = language
        return true
    }
    func synthesize(_ text: String, chunk: (UnsafeBufferPointer<Int16>) -> Bool) throws {
        spokenIn.append(language)
        let words = text.split(separator: " ")
        let value = Int16(text.count)
        for _ in words {
            let stop = [value, value].withUnsafeBufferPointer { !chunk($0) }
            if stop { return }
        }
    }
}

/// A device that takes `pacing` seconds per chunk, as a real one plays in real time.
private final class FakeOutput: SoundOutput, @unchecked Sendable {
    var device = "default"
    var name: String { "the fake device" }
    let pacing: Double
    var broken = false
    private let played = Lines()
    var chunks: [Int16] { played.all.compactMap { Int16($0) } }
    private(set) var discards = 0
    private(set) var opened: [String] = []
    private var isOpen = false
    init(pacing: Double) { self.pacing = pacing }
    func open(sampleRate: Int) throws {
        if broken { throw VoiceError("no sound device (fake)") }
        if !isOpen { opened.append(device) }
        isOpen = true
    }
    func write(_ samples: UnsafeBufferPointer<Int16>) throws {
        if pacing > 0 { usleep(UInt32(pacing * 1e6)) }
        played.add("\(samples[0])")
    }
    func discard() { discards += 1 }
    private(set) var closes = 0
    func close() { if isOpen { closes += 1 }; isOpen = false }
}

private final class Lines: @unchecked Sendable {
    private var lines: [String] = []
    private let lock = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
    init() { pthread_mutex_init(lock, nil) }
    func add(_ line: String) { pthread_mutex_lock(lock); lines.append(line); pthread_mutex_unlock(lock) }
    var all: [String] { pthread_mutex_lock(lock); defer { pthread_mutex_unlock(lock) }; return lines }
}
