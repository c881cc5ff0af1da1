#if canImport(Glibc)
import Glibc
#endif
import KioskCore
import CSpeech

/// The kiosk's voice: speaks on a thread of its own, so a frame never waits for sound. The
/// newest utterance wins: saying something new stops what is being spoken at once (the sound
/// already queued for the device is dropped), as a screen reader does when the finger moves on.
/// A kiosk whose speech is never turned on starts no thread and loads no voice.
///
/// `@unchecked Sendable`: what the caller and the thread share (`pending`, `generation`, the
/// flags, the wanted device and manner) is read and written only with `mutex` held; the
/// synthesizer, the output and the fault bookkeeping are used only by the voice's thread.
package final class Voice: @unchecked Sendable {
    private let synthesizer: any Synthesizer
    private let output: any SoundOutput
    /// One line for the journal: a fault, or the device working again.
    private let report: @Sendable (Logger.Level, String) -> Void
    private let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
    private let wake = UnsafeMutablePointer<pthread_cond_t>.allocate(capacity: 1)
    private var pending: (text: String, language: String)?
    /// Counts what was asked for; an utterance whose number is no longer the newest stops.
    private var generation = 0
    private var started = false, running = true, speaking = false
    /// What the journal was last told about the device, so a lasting fault is one line.
    private var deviceFault: String?
    private var missingVoices: Set<String> = []
    /// The device the operator names now (`[access] sound_device`); the thread moves to it.
    private var wantedDevice: String

    /// espeak-ng through ALSA's `device` ("default": what the system's ALSA configuration says).
    package convenience init(device: String = "default", log: Logger) {
        self.init(synthesizer: Espeak(), output: AlsaOutput(device: device)) { level, line in log.log(level) { line } }
    }

    init(synthesizer: any Synthesizer, output: any SoundOutput, report: @escaping @Sendable (Logger.Level, String) -> Void) {
        self.synthesizer = synthesizer
        self.output = output
        self.report = report
        wantedDevice = output.device
        pthread_mutex_init(mutex, nil)
        pthread_cond_init(wake, nil)
    }

    /// Says `text` in `language` (ISO 639-1), stopping whatever is being said.
    package func say(_ text: String, language: String) {
        locked {
            pending = (text, language)
            generation += 1
            pthread_cond_signal(wake)
        }
        startIfNeeded()
    }

    /// How the voice speaks: words per minute (80 to 450) and loudness in per cent (0 to 200).
    package struct Manner: Equatable, Sendable {
        package var wordsPerMinute = 175
        package var volume = 100
        package init(wordsPerMinute: Int = 175, volume: Int = 100) {
            (self.wordsPerMinute, self.volume) = (wordsPerMinute, volume)
        }
    }
    private var wantedManner = Manner()
    /// From the next utterance (`[access] speech_rate`, `speech_volume`).
    package var manner: Manner {
        get { locked { wantedManner } }
        set { locked { wantedManner = newValue } }
    }

    /// The ALSA device to speak on from the next utterance.
    package var device: String {
        get { locked { wantedDevice } }
        set { locked { wantedDevice = newValue } }
    }

    /// Stops speaking now (speech turned off, the screensaver came).
    package func stop() {
        locked {
            pending = nil
            generation += 1
        }
    }

    /// Waits until nothing is pending or being spoken (tests; the kiosk never waits for sound).
    func waitUntilQuiet() {
        while locked({ pending != nil || speaking }) { usleep(2000) }
    }

    /// Ends the voice's thread after what it is saying (tests).
    func shutDown() {
        locked { running = false; generation += 1; pthread_cond_signal(wake) }
    }

    private func startIfNeeded() {
        guard !locked({ let s = started; started = true; return s }) else { return }
        var thread = pthread_t()
        var attr = pthread_attr_t()
        pthread_attr_init(&attr)
        defer { pthread_attr_destroy(&attr) }
        pthread_attr_setdetachstate(&attr, Int32(PTHREAD_CREATE_DETACHED))
        let arg = Unmanaged.passRetained(self).toOpaque()
        let created = pthread_create(&thread, &attr, { arg in
            let voice = Unmanaged<Voice>.fromOpaque(arg!).takeRetainedValue()
            voice.run()
            return nil
        }, arg)
        if created != 0 {
            Unmanaged<Voice>.fromOpaque(arg).release()
            report(.warning, "speech: no thread for the voice (\(String(cString: strerror(created)))); the kiosk stays silent")
        }
    }

    private func run() {
        do {
            try synthesizer.load()
        } catch {
            report(.warning, "speech: \(error); the kiosk stays silent")
            locked { pending = nil; running = false }
            return
        }
        while true {
            guard let u = next(within: closeAfter) else {
                // Quiet for a while: the sound has played; let go of the device so that an idle
                // kiosk keeps no sound card running (and another program may use it).
                output.close()
                guard let u = next(within: nil) else { return }
                say(u)
                continue
            }
            say(u)
        }
    }

    /// Seconds of quiet after which the device is closed (set before the first utterance).
    var closeAfter = 3.0

    private func say(_ u: (text: String, language: String, number: Int)) {
        speak(u.text, language: u.language, number: u.number)
        locked { speaking = false }
    }

    /// Sleeps until there is something to say (nil after `seconds` of nothing, or when the voice
    /// is shut down).
    private func next(within seconds: Double?) -> (text: String, language: String, number: Int)? {
        var deadline = timespec()
        if let seconds {
            clock_gettime(CLOCK_REALTIME, &deadline)
            let ns = Int(deadline.tv_nsec) + Int(seconds * 1e9)
            deadline.tv_sec += ns / 1_000_000_000
            deadline.tv_nsec = ns % 1_000_000_000
        }
        return locked {
            while running && pending == nil {
                if seconds == nil { pthread_cond_wait(wake, mutex) }
                else if pthread_cond_timedwait(wake, mutex, &deadline) == ETIMEDOUT { break }
            }
            guard running, let p = pending else { return nil }
            pending = nil
            speaking = true
            return (p.text, p.language, generation)
        }
    }

    private func speak(_ text: String, language: String, number: Int) {
        guard openDevice() else { return }
        chooseVoice(language)
        synthesizer.speak(like: manner)
        var interrupted = false
        do {
            try synthesizer.synthesize(text) { samples in
                if locked({ generation != number }) { interrupted = true; return false }
                do { try output.write(samples) } catch {
                    reportDevice(fault: "\(error)")
                    return false
                }
                return true
            }
        } catch {
            report(.warning, "speech: '\(text)' could not be spoken (\(error))")
        }
        if interrupted { output.discard() }
    }

    private func openDevice() -> Bool {
        let wanted = device
        if wanted != output.device {
            output.close()
            output.device = wanted
            deviceFault = nil
        }
        do {
            try output.open(sampleRate: synthesizer.sampleRate)
            reportDevice(fault: nil)
            return true
        } catch {
            reportDevice(fault: "\(error)")
            return false
        }
    }

    private func reportDevice(fault: String?) {
        guard fault != deviceFault else { return }
        if let fault {
            output.close()
            report(.warning, "speech: \(fault); the kiosk speaks silently until the device works")
        } else if deviceFault != nil {
            report(.notice, "speech: \(output.name) works again")
        }
        deviceFault = fault
    }

    /// The synthesizer's voice for `language`, English where it has none (said once per language).
    private func chooseVoice(_ language: String) {
        if synthesizer.use(language: language) { return }
        if missingVoices.insert(language).inserted {
            report(.warning, "speech: espeak-ng has no voice for '\(language)'; it is spoken with the English voice")
        }
        _ = synthesizer.use(language: "en")
    }

    private func locked<T>(_ body: () -> T) -> T {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return body()
    }
}

/// Turns text into sound, one utterance at a time, chunk by chunk as it is made.
protocol Synthesizer: AnyObject {
    /// Loads the voices' data; throws what an operator needs to know when it cannot.
    func load() throws
    var sampleRate: Int { get }
    /// Speaks what follows in `language` (ISO 639-1); false when it has no voice for it.
    func use(language: String) -> Bool
    /// Speaks what follows at this pace and loudness.
    func speak(like manner: Voice.Manner)
    /// Hands each chunk of 16-bit mono samples to `chunk` as it is made; stops when it says false.
    func synthesize(_ text: String, chunk: (UnsafeBufferPointer<Int16>) -> Bool) throws
}

/// Where the sound goes: a device that plays 16-bit mono samples.
protocol SoundOutput: AnyObject {
    /// Which device, by the name the system gives it.
    var device: String { get set }
    /// The device as the journal names it.
    var name: String { get }
    /// Opens the device if it is not open.
    func open(sampleRate: Int) throws
    /// Queues `samples`, waiting while the device's buffer is full.
    func write(_ samples: UnsafeBufferPointer<Int16>) throws
    /// Drops what is queued and not yet played.
    func discard()
    /// Plays out what is queued and lets go of the device (opened again for the next sound).
    func close()
}
