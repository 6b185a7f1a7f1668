import Foundation
import PlumbTestSupport
import XCTest

/// `plumb serve` keeping camera controls on vivid (`Tests/Kernel/scenarios/31-vivid-controls-serve.sh`):
/// `[camera] controls` at start, `PATCH /controls` read back by v4l2-ctl and its refusals, the
/// lock, and the kept values set again after vivid is disconnected, removed and loaded again.
final class KernelVividControlsServeTests: XCTestCase {
    private func read(_ name: String) throws -> String {
        let out = try KernelVM.shared.output(of: "vivid-controls-serve")
        return (try? String(contentsOf: out.appendingPathComponent(name), encoding: .utf8)) ?? ""
    }

    private func json(_ name: String) throws -> [String: Any] {
        (try? JSONSerialization.jsonObject(with: Data(try read(name).utf8)) as? [String: Any]) ?? [:]
    }

    /// `v4l2-ctl --get-ctrl=a,b` lines (`brightness: 200`) as a dictionary.
    private func values(_ name: String) throws -> [String: String] {
        var result: [String: String] = [:]
        for line in try read(name).split(separator: "\n") {
            let parts = line.split(separator: ":", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
            if parts.count == 2 { result[parts[0]] = parts[1] }
        }
        return result
    }

    /// A file for a failure message (messages cannot throw).
    private func peek(_ name: String) -> String { (try? read(name)) ?? "" }

    private func code(_ name: String) throws -> Int { Int(try read(name + ".code").trimmingCharacters(in: .whitespacesAndNewlines)) ?? 0 }

    private func error(_ name: String) throws -> String { try json(name + ".json")["error"] as? String ?? "" }

    func testConfiguredControlsAreSetAtStartAndAMissingOneIsReportedNotFailed() throws {
        XCTAssertEqual(try values("start.txt"), ["brightness": "200", "contrast": "50"], "v4l2-ctl after start")
        let status = try json("status-start.json")
        let controls = try XCTUnwrap(status["controls"] as? [String: Any], "\(status)")
        XCTAssertEqual(controls["not_applied"] as? [String], ["torch"])
        XCTAssertTrue((controls["problem"] as? String ?? "").contains("torch"), "\(controls)")
        XCTAssertTrue(try read("serve.log").contains("controls: not set: camera /dev/video0 has no torch control"))
    }

    /// GET /controls lists what v4l2-ctl lists, with the values set.
    func testGetControlsListsEveryControlWithItsValue() throws {
        let listing = try json("controls.json")
        let entries = try XCTUnwrap(listing["controls"] as? [[String: Any]], "\(listing)")
        let names = Set(entries.compactMap { $0["name"] as? String })
        let listed = try read("v4l2-ctrls.txt").split(separator: "\n").compactMap { line -> String? in
            let words = line.split(separator: " ")
            return words.count > 2 && words[1].hasPrefix("0x") ? String(words[0]) : nil
        }
        XCTAssertGreaterThan(listed.count, 10)
        XCTAssertEqual(names, Set(listed))
        let brightness = try XCTUnwrap(entries.first { $0["name"] as? String == "brightness" })
        XCTAssertEqual(brightness["value"] as? Int, 200)
        let gain = try XCTUnwrap(entries.first { $0["name"] as? String == "gain" })
        XCTAssertEqual(gain["inactive_reason"] as? String, "inactive while gain is auto: set gain=manual first")
    }

    func testPatchIsReadBackByV4L2CtlAndAnnouncedAsAnEvent() throws {
        XCTAssertEqual(try code("set"), 200, peek("set.json"))
        XCTAssertEqual(try values("set.txt"), ["brightness": "220", "saturation": "10"])
        let answered = try XCTUnwrap(try json("set.json")["controls"] as? [[String: Any]])
        XCTAssertEqual(answered.first { $0["name"] as? String == "saturation" }?["value"] as? Int, 10)
        let events = try read("events.txt")
        XCTAssertTrue(events.contains("event: controls\n"), events)
        XCTAssertTrue(events.contains(#""saturation":10"#), events)
    }

    /// Each refusal is 400 naming what would do, and none half-applied (saturation stayed 10
    /// while brightness=999 was refused in its batch).
    func testPatchRefusalsSayWhatToChangeAndApplyNothing() throws {
        XCTAssertEqual(try code("inactive"), 400)
        XCTAssertTrue(try error("inactive").contains("set gain=manual first"), peek("inactive" + ".json"))
        XCTAssertEqual(try code("range"), 400)
        XCTAssertTrue(try error("range").contains("accepted 0 to 255"), peek("range" + ".json"))
        XCTAssertEqual(try values("after-refusals.txt"), ["brightness": "220", "saturation": "10"])
    }

    func testTheLockFreezesAutoGainAndReleasesIt() throws {
        XCTAssertEqual(try code("lock"), 200, peek("lock.json"))
        XCTAssertEqual(try values("locked.txt")["gain_automatic"], "0")
        XCTAssertEqual(try code("unlock"), 200, peek("unlock.json"))
        XCTAssertEqual(try values("unlocked.txt")["gain_automatic"], "1")
    }

    /// vivid loaded again starts at its defaults (128); serve sets the kept values on it: the
    /// configured contrast and the PATCHed brightness and saturation.
    func testKeptValuesAreSetAgainAfterTheCameraIsRemovedAndLoadedAgain() throws {
        XCTAssertEqual(try json("status-back.json")["state"] as? String, "running", peek("status-back.json"))
        XCTAssertEqual(try values("back.txt"), ["brightness": "220", "contrast": "50", "saturation": "10"], peek("serve.log"))
        XCTAssertTrue(try read("v4l2-ctrls.txt").contains("default=128"))
    }

    /// `plumb record --lock`: vivid's auto gain switched off while it records (read by
    /// v4l2-ctl meanwhile), and back on once it is done.
    func testRecordLockHoldsAutoGainOffWhileItRecordsAndPutsItBack() throws {
        XCTAssertEqual(try read("record-lock.status").trimmingCharacters(in: .whitespacesAndNewlines), "0", peek("record-lock.err"))
        XCTAssertTrue(try read("record-lock-during.txt").contains("gain_automatic: 0"), peek("record-lock-during.txt"))
        XCTAssertEqual(try values("record-lock-after.txt")["gain_automatic"], "1")
    }
}
