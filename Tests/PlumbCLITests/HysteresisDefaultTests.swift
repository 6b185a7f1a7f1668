import Foundation
import PlumbTestSupport
import XCTest

/// One hysteresis default wherever a user reads or gets one: the rotation options' help of
/// every command that takes them, `plumb serve --print-config` (what the daemon runs with),
/// the example config and the README, which also gives the angles it makes.
final class HysteresisDefaultTests: XCTestCase {
    /// The number captured by `pattern`'s first group in `text`.
    private func number(_ pattern: String, in text: String, _ place: String) throws -> Double {
        let match = try XCTUnwrap(try Regex(pattern).firstMatch(in: text), "\(place): nothing matches \(pattern)")
        let captured = try XCTUnwrap(match.output[1].substring, "\(place): \(pattern) captured nothing")
        return try XCTUnwrap(Double(captured), "\(place): \(captured) is not a number")
    }

    func testEveryPlaceGivesTheSameDefault() throws {
        var defaults: [String: Double] = [:]
        for command in ["photo", "record", "scan", "run", "rotation"] {
            let help = try PlumbProcess.plumb(command, "--help")
            XCTAssertEqual(help.code, 0, help.stderr)
            defaults["\(command) --help"] = try number(#"--hysteresis DEG[^\n]*\(default ([0-9.]+)\)"#, in: help.stdout,
                                                       "\(command) --help")
        }
        let printed = try PlumbProcess.plumb("serve", "--print-config")
        XCTAssertEqual(printed.code, 0, printed.stderr)
        defaults["serve --print-config"] = try number(#"(?m)^hysteresis *= *([0-9.]+)$"#, in: printed.stdout,
                                                      "serve --print-config")
        let example = try String(contentsOf: PlumbProcess.root.appendingPathComponent("config/plumb.example.ini"),
                                 encoding: .utf8)
        defaults["config/plumb.example.ini"] = try number(#"(?m)^hysteresis *= *([0-9.]+)$"#, in: example, "the example config")
        let readme = try String(contentsOf: PlumbProcess.root.appendingPathComponent("README.md"), encoding: .utf8)
        let documented = try number(#"must turn ([0-9.]+)° past a 45° diagonal"#, in: readme, "README")
        defaults["README"] = documented
        XCTAssertEqual(Set(defaults.values).count, 1, "the defaults disagree: \(defaults)")
        // The angles the README derives from it: 45 plus it to turn, 45 less it to turn back.
        XCTAssertEqual(try number(#"0 -> 90 at ([0-9.]+)°"#, in: readme, "README"), 45 + documented)
        XCTAssertEqual(try number(#"0 -> 90 at [0-9.]+°, back at ([0-9.]+)°"#, in: readme, "README"), 45 - documented)
    }
}
