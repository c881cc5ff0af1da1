import ArgumentParser
import Testing
@testable import Kiosk

/// `RunArguments` reads the kiosk's plain command lines without ArgumentParser: it must read
/// each one exactly as ArgumentParser does, and hand everything else over to it.
@Suite struct RunArgumentsTests {
    /// What ArgumentParser makes of `words` (nil: not a `run`, or an error).
    private func parsed(_ words: [String]) -> RunArguments? {
        (try? KioskCommand.parseAsRoot(words) as? KioskCommand.Run)?.arguments
    }

    @Test(arguments: [
        [],
        ["run"],
        ["--scene", "lander"],
        ["--scene=tiles", "--idle-timeout", "30"],
        ["run", "--idle-timeout=0.5", "--screensaver", "-v"],
        ["--config", "/etc/kiosk/other.toml", "--rotate", "90", "--verbose"],
        ["--rotate=270", "--scene", "no such scene"],
        ["--idle-timeout", "1e3"],
        ["--idle-timeout", "inf"],
        ["--rotate", "45"],
        ["--scene", "run"],
    ])
    func plainCommandLinesAreReadAsArgumentParserReadsThem(_ words: [String]) throws {
        let quick = try #require(RunArguments(words), "not read directly: \(words)")
        #expect(quick == parsed(words), "\(words)")
    }

    @Test(arguments: [
        ["--help"], ["-h"], ["--version"], ["help"], ["run", "--help"],
        ["snapshot", "--out", "x.png"], ["bench"], ["check-config"],
        ["--bogus"], ["-x"], ["-vv"], ["run", "run"],
        ["--scene"], ["--scene="], ["--scene", "--verbose"], ["--idle-timeout", "-1"], ["--idle-timeout", "soon"],
        ["--rotate", "1.5"], ["--screensaver=true"], ["--scene", "a", "--scene", "b"], ["-v", "--verbose"],
        ["--", "--scene"], ["lander"],
    ])
    func everythingElseGoesToArgumentParser(_ words: [String]) {
        #expect(RunArguments(words) == nil, "\(words)")
    }

    /// A new `run` option must be added to `RunArguments` too: a command line using it would
    /// still work (through ArgumentParser), but start slower without anyone noticing.
    @Test func itKnowsEveryOptionRunHas() {
        let help = KioskCommand.Run.helpMessage(columns: 1000)
        var names: Set<String> = []
        for word in help.split(whereSeparator: { " ,[]<>=\n".contains($0) }) where word.hasPrefix("-") {
            names.insert(String(word))
        }
        names.subtract(["--help", "-h", "--version"])
        #expect(names == RunArguments.optionNames)
    }
}
