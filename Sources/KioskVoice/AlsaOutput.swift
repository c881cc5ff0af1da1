import CSpeech

/// An ALSA playback device ("default" unless the operator names one). ALSA's own configuration
/// converts the rate and mixes with other sound where the system sets that up.
final class AlsaOutput: SoundOutput {
    var device: String
    /// The most sound queued ahead: a new utterance is heard at most this late.
    static let latencyMicroseconds: UInt32 = 120_000
    private var pcm: OpaquePointer?

    init(device: String) {
        self.device = device
        kiosk_alsa_quiet()
    }

    var name: String { "the sound device (ALSA '\(device)')" }

    func open(sampleRate: Int) throws {
        guard pcm == nil else { return }
        var opened: OpaquePointer?
        try check(snd_pcm_open(&opened, device, SND_PCM_STREAM_PLAYBACK, 0), "no sound device")
        let set = snd_pcm_set_params(opened, SND_PCM_FORMAT_S16_LE, SND_PCM_ACCESS_RW_INTERLEAVED,
                                     1, UInt32(sampleRate), 1, Self.latencyMicroseconds)
        if set < 0 { snd_pcm_close(opened) }
        try check(set, "the sound device refused mono sound at \(sampleRate) Hz")
        pcm = opened
    }

    func write(_ samples: UnsafeBufferPointer<Int16>) throws {
        guard let pcm, var next = samples.baseAddress else { return }
        var left = samples.count
        while left > 0 {
            var written = snd_pcm_writei(pcm, next, snd_pcm_uframes_t(left))
            // An underrun between two utterances (the device played everything): start again.
            if written < 0 { written = snd_pcm_sframes_t(snd_pcm_recover(pcm, Int32(written), 1)) }
            try check(Int32(clamping: min(written, 0)), "the sound device stopped playing")
            next += Int(written)
            left -= Int(written)
        }
    }

    func discard() {
        guard let pcm else { return }
        snd_pcm_drop(pcm)
        snd_pcm_prepare(pcm)
    }

    /// Plays out what is queued, then lets go of the device.
    func close() {
        if let pcm {
            snd_pcm_drain(pcm)
            snd_pcm_close(pcm)
        }
        pcm = nil
    }

    private func check(_ result: Int32, _ what: String) throws {
        guard result < 0 else { return }
        throw VoiceError("\(what) (ALSA '\(device)': \(String(cString: snd_strerror(result))))")
    }
}
