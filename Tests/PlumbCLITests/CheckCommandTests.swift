import Foundation
import PlumbTestSupport
import XCTest

/// `plumb check`: every shipped pipeline passes; each class of error is reported
/// as FILE:LINE:COL: error: ... with exit 2.
final class CheckCommandTests: XCTestCase {
    func testEveryShippedPipelinePasses() throws {
        let dir = PlumbProcess.root.appendingPathComponent("pipelines")
        let files = try FileManager.default.contentsOfDirectory(atPath: dir.path).filter { $0.hasSuffix(".pipeline") }
        XCTAssertGreaterThanOrEqual(files.count, 3)
        for file in files {
            // The v4l2 preview's window sink is swapped for fakesink: no display here.
            let extra = file.hasPrefix("v4l2") ? ["-D", "sink=fakesink"] : []
            let r = try PlumbProcess.run(PlumbProcess.binary, ["check", "pipelines/\(file)"] + extra)
            XCTAssertEqual(r.code, 0, "\(file): \(r.stderr)")
            XCTAssertTrue(r.stdout.contains("ok"), r.stdout)
        }
    }

    func testRolesAreReported() throws {
        let r = try PlumbProcess.plumb("check", "pipelines/test-preview.pipeline")
        XCTAssertEqual(r.code, 0, r.stderr)
        XCTAssertTrue(r.stdout.contains("preview_flip=preview_flip"), r.stdout)
        XCTAssertTrue(r.stdout.contains("src=src"), r.stdout)
    }

    /// Without a camera the v4l2 pipeline is valid but its device is missing: a
    /// warning naming the device line, or an error with --strict.
    func testMissingCameraIsAWarningUnlessStrict() throws {
        let dir = try temporaryDirectory(self)
        let file = try write(dir, "cam.pipeline", "# var: device=/dev/video-missing\nv4l2src device=${device}\n  ! fakesink\n")
        let lenient = try PlumbProcess.plumb("check", file)
        XCTAssertEqual(lenient.code, 0, lenient.stderr)
        XCTAssertTrue(lenient.stderr.contains("\(file):2:1: warning: cannot reach READY"), lenient.stderr)
        let strict = try PlumbProcess.plumb("check", "--strict", file)
        XCTAssertEqual(strict.code, 2)
        XCTAssertTrue(strict.stderr.contains("\(file):2:1: error: cannot reach READY"), strict.stderr)
        XCTAssertTrue(strict.stderr.contains("/dev/video-missing"), strict.stderr)
    }

    func testErrorsPointAtTheirLineAndColumn() throws {
        let dir = try temporaryDirectory(self)
        let cases: [(String, String, String)] = [
            // (file body, expected "LINE:COL: error:", expected words)
            ("# name: x\nvideotestsrc num-buffers=3\n  ! nosuchelement ! fakesink\n", "3:5", "no element \"nosuchelement\""),
            ("videotestsrc num-buffers=3 foo=1 ! fakesink\n", "1:28", "has no property \"foo\""),
            ("videotestsrc num-buffers=abc ! fakesink\n", "1:26", "\"abc\" is not a valid value for property \"num-buffers\""),
            ("videotestsrc\n  pattern=nope ! fakesink\n", "2:11", "expected one of: smpte"),
            ("videotestsrc num-buffers=99999999999 ! fakesink\n", "1:26", "expected gint from -1 to 2147483647"),
            ("videotestsrc\n  ! video/x-raw,format=XYZ ! fakesink\n", "2:5", "can't handle caps"),
            ("videotestsrc ! audioconvert ! fakesink\n", "1:14", "could not link videotestsrc to audioconvert"),
            ("videotestsrc ! video/x-raw,width=(int)many ! fakesink\n", "1:16", "is not valid caps"),
            ("# var: w=10\nvideotestsrc ! fakesink name=${sink}\n", "2:30", "undefined variable \"sink\""),
            ("# var: sink\nvideotestsrc ! ${sink}\n", "2:16", "has no default: give it with -D sink=VALUE"),
            ("videotestsrc ! ! fakesink\n", "1:16", "syntax error"),
            ("videotestsrc ! fakesink name=\"open\n", "1:30", "unterminated quote"),
            ("videotestsrc ! filesink location=/nonexistent/dir/x.mp4\n", "1:16", "cannot reach READY"),
            ("videotestsrc ! identity name=preview_flip ! fakesink\n", "1:16", "needs videoflip"),
        ]
        for (n, (body, place, words)) in cases.enumerated() {
            let file = try write(dir, "case\(n).pipeline", body)
            let r = try PlumbProcess.plumb("check", file)
            XCTAssertEqual(r.code, 2, "case \(n): \(r.stdout) \(r.stderr)")
            XCTAssertTrue(r.stderr.hasPrefix("\(file):\(place): error: "), "case \(n): \(r.stderr)")
            XCTAssertTrue(r.stderr.contains(words), "case \(n): \(r.stderr)")
        }
    }

    func testMissingFile() throws {
        let r = try PlumbProcess.plumb("check", "/nonexistent/x.pipeline")
        XCTAssertEqual(r.code, 2)
        XCTAssertEqual(r.stderr, "/nonexistent/x.pipeline:1:1: error: no such pipeline file\n")
    }

    func testDefinesOverrideDefaultsAndUnknownDefinesAreErrors() throws {
        let dir = try temporaryDirectory(self)
        let file = try write(dir, "v.pipeline", "# var: pattern=ball\nvideotestsrc pattern=${pattern} ! fakesink\n")
        XCTAssertEqual(try PlumbProcess.plumb("check", file, "-D", "pattern=snow").code, 0)
        let bad = try PlumbProcess.plumb("check", file, "-D", "pattern=nope")
        XCTAssertEqual(bad.code, 2)
        XCTAssertTrue(bad.stderr.hasPrefix("\(file):2:22: error:"), bad.stderr)
        let unknown = try PlumbProcess.plumb("check", file, "-D", "patern=snow")
        XCTAssertEqual(unknown.code, 2)
        XCTAssertTrue(unknown.stderr.contains("no variable \"patern\" is declared in this file (declared: pattern)"), unknown.stderr)
        let malformed = try PlumbProcess.plumb("check", file, "-D", "pattern")
        XCTAssertEqual(malformed.code, 2)
        XCTAssertTrue(malformed.stderr.contains("expected -D NAME=VALUE"), malformed.stderr)
    }

    private func write(_ dir: URL, _ name: String, _ body: String) throws -> String {
        let url = dir.appendingPathComponent(name)
        try body.write(to: url, atomically: true, encoding: .utf8)
        return url.path
    }
}
