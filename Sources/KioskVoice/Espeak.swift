import CSpeech

/// Debian's espeak-ng, as a library: it speaks every language the kiosk ships (and a hundred
/// more) from a few megabytes of data, with no server and no network. Synchronous mode: it
/// hands the sound back chunk by chunk and plays nothing itself, so the voice decides where
/// sound goes and stops it between two chunks.
final class Espeak: Synthesizer {
    /// How much sound each chunk holds: small enough that a new touch is heard quickly.
    static let chunkMilliseconds: Int32 = 60
    private(set) var sampleRate = 22050
    private var language: String?

    func load() throws {
        espeak_ng_InitializePath(nil)
        var context: espeak_ng_ERROR_CONTEXT?
        try check(espeak_ng_Initialize(&context), "espeak-ng could not load its data")
        espeak_ng_ClearErrorContext(&context)
        try check(espeak_ng_InitializeOutput(ENOUTPUT_MODE_SYNCHRONOUS, Self.chunkMilliseconds, nil),
                  "espeak-ng could not start")
        sampleRate = Int(espeak_ng_GetSampleRate())
        espeak_SetSynthCallback { samples, count, events in
            guard let events, let box = events.pointee.user_data else { return 0 }
            let chunk = box.assumingMemoryBound(to: ((UnsafeBufferPointer<Int16>) -> Bool).self).pointee
            guard let samples, count > 0 else { return 0 }
            return chunk(UnsafeBufferPointer(start: samples, count: Int(count))) ? 0 : 1
        }
    }

    func use(language: String) -> Bool {
        if language == self.language { return true }
        guard espeak_ng_SetVoiceByName(language).rawValue == ENS_OK.rawValue else { return false }
        self.language = language
        return true
    }

    func speak(like manner: Voice.Manner) {
        guard manner != self.manner else { return }
        self.manner = manner
        _ = espeak_ng_SetParameter(espeakRATE, Int32(manner.wordsPerMinute), 0)
        _ = espeak_ng_SetParameter(espeakVOLUME, Int32(manner.volume), 0)
    }
    private var manner = Voice.Manner()

    func synthesize(_ text: String, chunk: (UnsafeBufferPointer<Int16>) -> Bool) throws {
        try withoutActuallyEscaping(chunk) { chunk in
            var box = chunk
            let status = text.withCString { cText in
                withUnsafeMutablePointer(to: &box) { boxPointer in
                    espeak_ng_Synthesize(cText, strlen(cText) + 1, 0, POS_CHARACTER, 0,
                                         UInt32(espeakCHARS_UTF8), nil, boxPointer)
                }
            }
            // Stopped by the chunk's answer: not a fault.
            if status.rawValue == ENS_SPEECH_STOPPED.rawValue { return }
            try check(status, "espeak-ng could not speak it")
        }
    }

    private func check(_ status: espeak_ng_STATUS, _ what: String) throws {
        guard status.rawValue != ENS_OK.rawValue else { return }
        var message = [CChar](repeating: 0, count: 256)
        espeak_ng_GetStatusCodeMessage(status, &message, message.count)
        let bytes = message.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }
        throw VoiceError("\(what): \(String(decoding: bytes, as: UTF8.self))")
    }
}

struct VoiceError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
