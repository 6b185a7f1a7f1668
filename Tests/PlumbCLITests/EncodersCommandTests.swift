import Foundation
import PlumbTestSupport
import XCTest

/// `plumb encoders` on this machine, checked against gst-inspect-1.0, and `record --encoder`.
final class EncodersCommandTests: XCTestCase {
    private func installed(_ element: String) throws -> Bool {
        try PlumbProcess.run(PlumbProcess.tool("gst-inspect-1.0"), ["--exists", element]).code == 0
    }

    func testEveryCandidateIsListedInOrderWithWhyItCannotBeUsed() throws {
        let r = try PlumbProcess.plumb("encoders", "--json")
        XCTAssertEqual(r.code, 0, r.stderr)
        let root = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any])
        let codecs = try XCTUnwrap(root["codecs"] as? [[String: Any]])
        XCTAssertEqual(codecs.compactMap { $0["codec"] as? String }, ["h264", "h265"])
        let h264 = try XCTUnwrap(codecs.first?["candidates"] as? [[String: Any]])
        XCTAssertEqual(h264.compactMap { $0["encoder"] as? String },
                       ["v4l2h264enc", "vah264enc", "vaapih264enc", "x264enc", "openh264enc"])
        for codec in codecs {
            let candidates = try XCTUnwrap(codec["candidates"] as? [[String: Any]])
            for entry in candidates {
                let name = try XCTUnwrap(entry["encoder"] as? String)
                let available = try XCTUnwrap(entry["available"] as? Bool)
                if try !installed(name) {
                    XCTAssertFalse(available, "\(name) is not installed (gst-inspect-1.0) yet listed as available")
                    XCTAssertTrue((entry["reason"] as? String)?.hasPrefix("element missing: ") == true, "\(entry)")
                }
                if !available { XCTAssertNotNil(entry["reason"], "\(name) is unavailable without a reason") }
            }
            // auto takes the first available one.
            XCTAssertEqual(codec["choice"] as? String,
                           candidates.first { $0["available"] as? Bool == true }?["encoder"] as? String)
        }
        if try installed("x264enc") && !installed("v4l2h264enc") && !installed("vah264enc") && !installed("vaapih264enc") {
            XCTAssertEqual(codecs.first?["choice"] as? String, "x264enc")
        }

        let text = try PlumbProcess.plumb("encoders")
        XCTAssertEqual(text.code, 0, text.stderr)
        XCTAssertTrue(text.stdout.hasPrefix("H264: auto uses "), text.stdout)
        XCTAssertTrue(text.stdout.contains("  x264enc (software)  "), text.stdout)
    }

    func testRecordTakesANamedEncoderAndRefusesOneThatCannotRun() throws {
        let dir = try temporaryDirectory(self)
        let file = dir.appendingPathComponent("named.mp4")
        let r = try PlumbProcess.plumb("record", "--seconds", "1", "--camera", "test", "--size", "320x240",
                                       "--encoder", "openh264enc", "-o", file.path, timeout: 60)
        XCTAssertEqual(r.code, 0, r.stderr)
        let line = try XCTUnwrap(r.stdout.split(separator: "\n").last)
        let facts = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        XCTAssertEqual(facts["encoder"] as? String, "openh264enc")
        XCTAssertEqual(try ProbedVideo(file).codec, "h264")

        // auto here: the facts say why each better candidate was passed over.
        let auto = dir.appendingPathComponent("auto.mp4")
        let a = try PlumbProcess.plumb("record", "--seconds", "1", "--camera", "test", "--size", "320x240",
                                       "-o", auto.path, timeout: 60)
        XCTAssertEqual(a.code, 0, a.stderr)
        let autoFacts = try XCTUnwrap(JSONSerialization.jsonObject(
            with: Data(try XCTUnwrap(a.stdout.split(separator: "\n").last).utf8)) as? [String: Any])
        let passedOver = autoFacts["encoder_passed_over"] as? [String] ?? []
        for name in ["v4l2h264enc", "vah264enc", "vaapih264enc"] where try !installed(name) {
            XCTAssertTrue(passedOver.contains { $0.hasPrefix("\(name): element missing") }, "\(passedOver)")
        }

        for (value, expected) in [("vaapih264enc", "encoder vaapih264enc cannot be used: element missing"),
                                  ("nvenc", "unknown encoder \"nvenc\": use auto or one of v4l2h264enc")]
        where value != "vaapih264enc" || (try? installed(value)) == false {
            let bad = dir.appendingPathComponent("bad.mp4")
            let b = try PlumbProcess.plumb("record", "--seconds", "1", "--camera", "test", "--encoder", value,
                                           "-o", bad.path, timeout: 60)
            XCTAssertEqual(b.code, 2, b.stderr)
            XCTAssertTrue(b.stderr.contains("--encoder \(value): \(expected)"), b.stderr)
            XCTAssertFalse(FileManager.default.fileExists(atPath: bad.path), "a refused --encoder created the file")
        }
    }
}
