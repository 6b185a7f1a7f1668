import Foundation
import PlumbTestSupport
import XCTest

/// The command line itself: help everywhere, version, usage errors exit 2.
final class UsageTests: XCTestCase {
    func testHelpOnEveryCommand() throws {
        let top = try PlumbProcess.plumb("--help")
        XCTAssertEqual(top.code, 0)
        let commands = ["check", "run", "devices", "encoders", "photo", "record", "rotation", "inspect", "repair"]
        for command in commands {
            XCTAssertTrue(top.stdout.contains("  \(command)"), "top-level help lists \(command)")
            let r = try PlumbProcess.plumb(command, "--help")
            XCTAssertEqual(r.code, 0, command)
            XCTAssertTrue(r.stdout.hasPrefix("Usage: plumb \(command)"), r.stdout)
        }
    }

    /// `plumb --help` asks for the help: stdout, exit 0. Plain `plumb` is a usage error like
    /// any other: the same help on stderr, nothing on stdout, exit 2.
    func testPlainPlumbPrintsItsUsageToStderrAndExits2() throws {
        let asked = try PlumbProcess.plumb("--help")
        XCTAssertEqual(asked.code, 0)
        XCTAssertTrue(asked.stdout.contains("Usage: plumb COMMAND"), asked.stdout)
        XCTAssertEqual(asked.stderr, "")

        let plain = try PlumbProcess.run(PlumbProcess.binary, [])
        XCTAssertEqual(plain.code, 2, plain.stderr)
        XCTAssertEqual(plain.stdout, "", "plain `plumb` printed on stdout")
        XCTAssertEqual(plain.stderr, asked.stdout, "plain `plumb` prints the usage on stderr")
    }

    /// Every option a command's `--help` lists is in its own Usage line and in the README's
    /// synopsis of the command (the first cell of its row in "The `plumb` command"), and the
    /// README lists no option the command does not have. The commands come from `plumb --help`.
    func testTheREADMESynopsesListEveryOptionOfTheHelp() throws {
        let readme = try String(contentsOf: PlumbProcess.root.appendingPathComponent("README.md"), encoding: .utf8)
        let top = try PlumbProcess.plumb("--help")
        let commands = CommandHelp.commands(inTopLevelHelp: top.stdout)
        XCTAssertGreaterThanOrEqual(commands.count, 8, "commands in: \(top.stdout)")

        let topOptions = CommandHelp.options(in: top.stdout)
        XCTAssertEqual(topOptions, ["--version", "--help"])
        let plainRow = try XCTUnwrap(CommandHelp.readmeSynopsis(of: nil, in: readme), "no README row for `plumb --version`")
        for option in topOptions {
            XCTAssertTrue(CommandHelp.mentions(plainRow, option), "README's `plumb` row omits \(option): \(plainRow)")
        }

        for command in commands {
            let help = try PlumbProcess.plumb(command, "--help")
            XCTAssertEqual(help.code, 0, command)
            let options = CommandHelp.options(in: help.stdout)
            let usage = CommandHelp.usage(in: help.stdout)
            XCTAssertTrue(usage.hasPrefix("plumb \(command)"), "\(command) --help: \(help.stdout)")
            guard let synopsis = CommandHelp.readmeSynopsis(of: command, in: readme) else {
                XCTFail("README.md has no row for `plumb \(command) ...` in its command table")
                continue
            }
            for option in options {
                XCTAssertTrue(CommandHelp.mentions(usage, option), "`plumb \(command) --help`'s Usage line omits \(option): \(usage)")
                XCTAssertTrue(CommandHelp.mentions(synopsis, option), "README's synopsis of `plumb \(command)` omits \(option): \(synopsis)")
            }
            for option in CommandHelp.optionWords(in: synopsis) where !options.contains(option) {
                XCTFail("README's synopsis of `plumb \(command)` lists \(option), which its --help does not")
            }
        }
    }

    /// The parsing the test above relies on, on texts with a known answer: a synopsis that
    /// omits an option is caught.
    func testTheSynopsisCheckCatchesAnOmittedOption() {
        let help = """
            Usage: plumb photo [-o FILE] [--camera NAME|PATH|test]
                               [--settle MS | --settle-frames N]

            Options:
              -o FILE          where to write
              --force          replace FILE
              --camera NAME|PATH|test
                               the camera: `-o -` is stdout
              --settle-frames N
                               wait for N frames
            """
        XCTAssertEqual(CommandHelp.options(in: help), ["-o", "--force", "--camera", "--settle-frames"])
        let usage = CommandHelp.usage(in: help)
        XCTAssertFalse(CommandHelp.mentions(usage, "--force"))
        XCTAssertTrue(CommandHelp.mentions(usage, "--settle-frames"))
        XCTAssertTrue(CommandHelp.mentions(usage, "--settle"))
        XCTAssertFalse(CommandHelp.mentions("[--settle-frames N]", "--settle"), "a longer option is not the shorter one")
        let readme = """
            | command | what it does |
            |---|---|
            | `plumb photo [-o FILE] [--camera NAME\\|PATH\\|test] [--bogus]` | takes a photo \\| --force is prose |
            | `plumb --version`, `plumb COMMAND --help` | |
            """
        let synopsis = CommandHelp.readmeSynopsis(of: "photo", in: readme)
        XCTAssertEqual(synopsis, "plumb photo [-o FILE] [--camera NAME|PATH|test] [--bogus]")
        XCTAssertFalse(CommandHelp.mentions(synopsis ?? "", "--force"), "the description cell is not the synopsis")
        XCTAssertEqual(CommandHelp.optionWords(in: synopsis ?? ""), ["-o", "--camera", "--bogus"])
        XCTAssertEqual(CommandHelp.readmeSynopsis(of: nil, in: readme), "plumb --version, plumb COMMAND --help")
        XCTAssertNil(CommandHelp.readmeSynopsis(of: "record", in: readme))
        XCTAssertEqual(CommandHelp.commands(inTopLevelHelp: "Commands:\n  check     checks\n  run       runs\n\nOptions:\n"),
                       ["check", "run"])
    }

    func testVersion() throws {
        let r = try PlumbProcess.plumb("--version")
        XCTAssertEqual(r.code, 0)
        XCTAssertTrue(r.stdout.hasPrefix("plumb "), r.stdout)
        XCTAssertTrue(r.stdout.contains("GStreamer 1."), r.stdout)
    }

    func testUsageErrorsExit2() throws {
        for args in [["frobnicate"], ["check"], ["run"], ["check", "x.pipeline", "--bogus"], ["run", "x", "--duration", "-3"],
                     ["devices", "extra"], ["record"], ["photo", "--camera"], []] {
            let r = try PlumbProcess.run(PlumbProcess.binary, args)
            XCTAssertEqual(r.code, 2, "\(args): \(r.stderr)")
        }
        let r = try PlumbProcess.plumb("run", "pipelines/test-preview.pipeline", "--duration", "abc")
        XCTAssertTrue(r.stderr.contains("--duration abc: expected a positive number of seconds"), r.stderr)
    }

    func testDevicesSaysPlainlyWhenThereAreNone() throws {
        let r = try PlumbProcess.plumb("devices")
        XCTAssertEqual(r.code, 0, r.stderr)
        let json = try PlumbProcess.plumb("devices", "--json")
        XCTAssertEqual(json.code, 0, json.stderr)
        let list = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [[String: Any]])
        if list.isEmpty {
            XCTAssertTrue(r.stdout.hasPrefix("No cameras found"), r.stdout)
        } else {
            for camera in list {
                XCTAssertNotNil(camera["name"] as? String)
                XCTAssertTrue(r.stdout.contains(camera["name"] as! String))
            }
        }
    }
}
