import Testing
@testable import Kiosk
@testable import KioskScenes
@testable import KioskCore
#if canImport(Glibc)
import Glibc
#endif

/// Central European time with its summer time rule, spelt out so no zoneinfo file is needed:
/// summer time from the last Sunday of March 02:00 to the last Sunday of October 03:00.
private let centralEurope = "CET-1CEST,M3.5.0,M10.5.0/3"

/// Seconds since the epoch of a wall-clock time in `centralEurope`.
private func local(_ y: Int, _ mo: Int, _ d: Int, _ h: Int, _ mi: Int) -> Int {
    var t = tm()
    t.tm_year = Int32(y - 1900); t.tm_mon = Int32(mo - 1); t.tm_mday = Int32(d)
    t.tm_hour = Int32(h); t.tm_min = Int32(mi); t.tm_isdst = -1
    return Int(mktime(&t))
}

private func hours(_ text: String) throws -> OpeningHours { try OpeningHours.parse(text) }

@Suite(.serialized) struct OpeningHoursTests {
    init() {
        setenv("TZ", centralEurope, 1)
        tzset()
    }

    @Test func specsParseAndBadOnesSayWhereTheyGoWrong() throws {
        let h = try hours("Mon-Fri 08:00-20:00, Sat 10:00-16:00")
        #expect(h.rules == [.init(days: [1, 2, 3, 4, 5], open: 8 * 3600, close: 20 * 3600), .init(days: [6], open: 10 * 3600, close: 16 * 3600)])
        #expect(try hours("").isAlwaysOpen && hours("  ").isAlwaysOpen)
        #expect(try hours("Fri-Mon 09:00-17:00;").rules == [.init(days: [5, 6, 0, 1], open: 9 * 3600, close: 17 * 3600)])
        #expect(try hours("7:30-24:00").rules == [.init(days: Set(0..<7), open: 7 * 3600 + 1800, close: 86_400)])
        #expect(try hours("Mon 08:00-17:59:30").rules == [.init(days: [1], open: 8 * 3600, close: 18 * 3600 - 30)])
        #expect(try hours("saturday 00:00-24:00, daily 18:00-02:00").rules.count == 2)
        func error(_ text: String) -> OpeningHours.SpecError? {
            do { _ = try OpeningHours.parse(text); return nil } catch { return error }
        }
        #expect(error("Mon-Fry 08:00-20:00") == .init(offset: 4, message: "'fry' is not a day (Mon, Tue, Wed, Thu, Fri, Sat, Sun)"))
        #expect(error("Mon 08:00-20:00, Sat 10-16")?.offset == 21)
        #expect(error("Mon 08:00-20:00, Sat 10:00-25:00") == .init(offset: 27, message: "'25:00' is not a time of day (00:00 to 24:00)"))
        #expect(error("Mon 08:00-08:00")?.message == "'08:00-08:00' opens and closes at the same time")
        #expect(error("Mon 08:00-12:00 14:00-18:00")?.offset == 16)
        #expect(error(", Mon 08:00-12:00")?.offset == 0)
    }

    @Test func weekdaysAndTheNextOpening() throws {
        let h = try hours("Mon-Fri 08:00-20:00, Sat 10:00-16:00")
        // Friday 20 November 2026.
        #expect(h.isOpen(at: local(2026, 11, 20, 19, 59)))
        #expect(!h.isOpen(at: local(2026, 11, 20, 20, 0)))
        #expect(h.nextChange(after: local(2026, 11, 20, 12, 0)) == local(2026, 11, 20, 20, 0))
        #expect(h.nextChange(after: local(2026, 11, 20, 20, 0)) == local(2026, 11, 21, 10, 0))
        // Saturday afternoon: closed through Sunday until Monday 08:00.
        #expect(!h.isOpen(at: local(2026, 11, 22, 12, 0)))
        #expect(h.nextChange(after: local(2026, 11, 21, 16, 0)) == local(2026, 11, 23, 8, 0))
        #expect(try hours("").nextChange(after: 0) == nil && hours("").isOpen(at: 0))
        #expect(try hours("daily 00:00-24:00").nextChange(after: local(2026, 11, 20, 12, 0)) == nil)
    }

    @Test func aRangeThatClosesAfterMidnightBelongsToTheDayItOpened() throws {
        let h = try hours("Fri-Sat 18:00-02:00")
        #expect(h.isOpen(at: local(2026, 11, 21, 1, 30)))   // Saturday night, from Friday
        #expect(h.isOpen(at: local(2026, 11, 22, 1, 30)))   // Sunday night, from Saturday
        #expect(!h.isOpen(at: local(2026, 11, 22, 2, 0)))
        #expect(!h.isOpen(at: local(2026, 11, 23, 1, 0)))   // Monday night: Sunday is closed
        #expect(h.nextChange(after: local(2026, 11, 21, 1, 0)) == local(2026, 11, 21, 2, 0))
        #expect(h.nextChange(after: local(2026, 11, 22, 2, 0)) == local(2026, 11, 27, 18, 0))
    }

    @Test func summerTimeChangesCountRight() throws {
        let h = try hours("daily 08:00-20:00")
        // 24 to 25 October 2026: the night is an hour longer (03:00 CEST becomes 02:00 CET).
        let close = local(2026, 10, 24, 20, 0)
        #expect(h.nextChange(after: close) == close + 13 * 3600)
        // 28 to 29 March: an hour shorter.
        let closeMarch = local(2026, 3, 28, 20, 0)
        #expect(h.nextChange(after: closeMarch) == closeMarch + 11 * 3600)
        // Opening inside the skipped hour (02:00-03:00 does not exist on 29 March): it opens
        // when the clock has passed 02:30, at 03:00 CEST at the latest — never a day late.
        let night = try hours("Sun 02:30-04:00")
        let opens = try #require(night.nextChange(after: local(2026, 3, 29, 0, 0)))
        #expect(opens > local(2026, 3, 29, 0, 0) && opens <= local(2026, 3, 29, 3, 30) && night.isOpen(at: opens))
        #expect(night.nextChange(after: opens) == local(2026, 3, 29, 4, 0))
    }
}

@Suite(.serialized) struct ClosingTimeTests {
    init() {
        setenv("TZ", centralEurope, 1)
        tzset()
    }

    @Test func closingTimeIsBlackAndStillATouchShowsTheScreensaverAndOpeningIsAFreshStart() throws {
        let r = ShellTests.Rig(idle: 10, start: "tiles")
        r.shell.resetsOnWake = true
        r.shell.homeScene = "tiles"
        r.saver.afterHoursWake = 30
        let friday = local(2026, 11, 20, 19, 59)
        var changes: [Bool] = []
        let hours = OpeningHoursController(hours: try OpeningHours.parse("Mon-Fri 08:00-20:00"), scheduler: r.scheduler,
                                           wallClock: { friday + Int(r.now) }) { open in
            changes.append(open)
            r.saver.openingHoursChanged(open: open)
        }
        let p = r.tiles.board.convert(r.tiles.tileFrame(index: 4).center, to: nil)
        r.tap(p.x, p.y)
        r.wait(0.5)
        #expect(r.tiles.model.selectedIDs == [4] && hours.isOpen)
        // 20:00: black, nothing running, no screensaver however long nobody comes.
        r.wait(60)
        #expect(changes == [false] && r.shell.isClosed && r.shell.activeScene is BlackScreen)
        r.wait(1)
        #expect(!r.shell.window.isAnimating)
        r.wait(600)
        #expect(!r.shell.showingScreensaver && !r.shell.window.isAnimating)
        // A touch at night: the screensaver for 30 s, then black again; the tile is untouched.
        r.tap(p.x, p.y)
        #expect(r.shell.showingScreensaver)
        r.wait(29)
        #expect(r.shell.showingScreensaver)
        r.wait(2)
        #expect(!r.shell.showingScreensaver && r.shell.activeScene is BlackScreen)
        #expect(r.tiles.model.selectedIDs == [4])
        // Monday 08:00: open, the board fresh for the first visitor.
        for _ in 0..<70 { r.wait(3600) }
        #expect(changes == [false, true] && !r.shell.isClosed)
        #expect(r.shell.currentName == "tiles" && r.tiles.model.selectedIDs.isEmpty)
        // And the idle timer runs again.
        r.wait(11)
        #expect(r.shell.showingScreensaver)
    }
}
