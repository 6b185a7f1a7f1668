import Foundation
import PlumbTestSupport
import XCTest

/// The command line itself: help everywhere, version, usage errors exit 2.
final class UsageTests: XCTestCase {
    func testHelpOnEveryCommand() throws {
        let top = try PlumbProcess.plumb("--help")
        XCTAssertEqual(top.code, 0)
        let commands = ["check", "run", "devices", "photo", "record", "rotation", "inspect"]
        for command in commands {
            XCTAssertTrue(top.stdout.contains("  \(command)"), "top-level help lists \(command)")
            let r = try PlumbProcess.plumb(command, "--help")
            XCTAssertEqual(r.code, 0, command)
            XCTAssertTrue(r.stdout.hasPrefix("Usage: plumb \(command)"), r.stdout)
        }
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
