import Testing
@testable import Kiosk
@testable import KioskCore
#if canImport(Glibc)
import Glibc
#endif

@Suite struct MetricsTests {
    @Test func theTextHasEveryFamilyWithHelpAndTypeAndACumulativeHistogram() {
        let m = KioskMetrics(startTime: 1_700_000_000)
        m.touches = 3
        m.languagesChosen = ["fr": 2, "ar": 1]
        m.showing("touch", now: 10)
        m.showing("screensaver", now: 70)
        var h = Histogram.frameTimes()
        for v in [0.0003, 0.0015, 0.02, 0.5] { h.record(v) }
        let touch = KioskMetrics.Readings.Touch(ignored: [.noDuration: 7, .lastPixel: 90], stuck: 1, present: false, quietOpenSeconds: 32_400)
        let text = m.text(.init(frameDraw: h, open: false, residentBytes: 25 << 20, saveFailures: 1, touch: touch, clockSynchronized: false), now: 100)
        let lines = text.split(separator: "\n").map(String.init)
        for family in ["kiosk_start_time_seconds", "kiosk_frames_drawn_total", "kiosk_frame_draw_seconds", "kiosk_touches_total",
                       "kiosk_scene_switches_total", "kiosk_scene_shown_seconds_total", "kiosk_screensaver_activations_total",
                       "kiosk_last_input_time_seconds", "kiosk_settings_reloads_total", "kiosk_state_save_failures_total",
                       "kiosk_resident_memory_bytes", "kiosk_open", "kiosk_clock_synchronized", "kiosk_touch_phantoms_total",
                       "kiosk_touch_stuck_total", "kiosk_touchscreen_present", "kiosk_touch_quiet_open_seconds"] {
            #expect(lines.contains { $0.hasPrefix("# HELP \(family) ") } && lines.contains { $0.hasPrefix("# TYPE \(family) ") }, "\(family)")
        }
        #expect(lines.contains("kiosk_start_time_seconds 1700000000") && lines.contains("kiosk_touches_total 3"))
        #expect(lines.contains("kiosk_frame_draw_seconds_bucket{le=\"0.0005\"} 1"))
        #expect(lines.contains("kiosk_frame_draw_seconds_bucket{le=\"0.002\"} 2"))
        #expect(lines.contains("kiosk_frame_draw_seconds_bucket{le=\"0.032\"} 3"))
        #expect(lines.contains("kiosk_frame_draw_seconds_bucket{le=\"+Inf\"} 4") && lines.contains("kiosk_frame_draw_seconds_count 4"))
        #expect(lines.contains("kiosk_scene_shown_seconds_total{scene=\"touch\"} 60"))
        #expect(lines.contains("kiosk_scene_shown_seconds_total{scene=\"screensaver\"} 30"))
        #expect(lines.contains("kiosk_open 0") && lines.contains("kiosk_resident_memory_bytes 26214400"))
        // Every rule's count, zeros too (a fleet's query finds the series before the first phantom).
        #expect(lines.contains("kiosk_touch_phantoms_total{rule=\"no-duration\"} 7") && lines.contains("kiosk_touch_phantoms_total{rule=\"last-pixel\"} 90"))
        #expect(lines.contains("kiosk_touch_phantoms_total{rule=\"beat\"} 0") && lines.contains("kiosk_touch_phantoms_total{rule=\"outside\"} 0"))
        #expect(lines.contains("kiosk_touch_stuck_total 1") && lines.contains("kiosk_touchscreen_present 0"))
        #expect(lines.contains("kiosk_touch_quiet_open_seconds 32400") && lines.contains("kiosk_clock_synchronized 0"))
        #expect(lines.contains("kiosk_language_chosen_total{language=\"ar\"} 1") && lines.contains("kiosk_language_chosen_total{language=\"fr\"} 2"))
        #expect(!KioskMetrics(startTime: 0).text(.init(frameDraw: h, open: true, residentBytes: 0, saveFailures: 0), now: 1)
            .contains("kiosk_language_chosen_total"), "no pill, no family")
    }

    @Test func anUnwritablePathIsReportedOnceAndAgainOnlyAfterItWorkedInBetween() throws {
        let dir = try #require(mkdtemp(strdup("/tmp/kiosk-metrics-XXXXXX")).map { String(cString: $0) })
        defer { _ = system("rm -rf \(dir)") }
        var reports: [String] = []
        let s = ManualScheduler()
        let path = dir + "/textfile/kiosk.prom"
        let file = MetricsTextfile(path: path, scheduler: s, report: { reports.append($0) }) { "kiosk_open 1\n" }
        file.start()
        #expect(!file.write())
        s.advance(to: 31) // two more tries, silently
        #expect(reports.count == 1 && reports[0].hasPrefix("metrics: cannot write \(path) ("), "\(reports)")
        mkdir(dir + "/textfile", 0o755)
        s.advance(to: 46)
        var st = stat()
        #expect(stat(path, &st) == 0 && st.st_mode & 0o777 == 0o644) // node_exporter reads it as another user
        _ = system("rm -rf \(dir)/textfile")
        s.advance(to: 61)
        #expect(reports.count == 2)
    }
}
