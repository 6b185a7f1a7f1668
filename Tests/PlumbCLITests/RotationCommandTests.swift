import Foundation
import PlumbTestSupport
import XCTest

/// `plumb rotation`: the installer's diagnostic, on replayed and fixed sensors.
final class RotationCommandTests: XCTestCase {
    func testReplayPrintsSamplesDropsAndEveryAngleChange() throws {
        let dir = try temporaryDirectory(self)
        let replay = dir.appendingPathComponent("turns.txt")
        try """
            0 0 9.81 0
            100 -9.81 0 0
            200 nan 1 2
            300 0 -9.81 0
            400 0 0 0
            500 9.81 0 0
            600 0 0.4 9.8
            """.write(to: replay, atomically: true, encoding: .utf8)
        let r = try PlumbProcess.plumb("rotation", "--accelerometer", "replay:\(replay.path)", "--replay-speed", "4")
        XCTAssertEqual(r.code, 0, r.stderr)
        let changes = r.stdout.split(separator: "\n").filter { $0.contains("angles: capture") }
        XCTAssertEqual(changes.map { $0.components(separatedBy: "angles: ").last! },
                       ["capture 90°, preview 90°", "capture 180°, preview 180°", "capture 270°, preview 270°"], r.stdout)
        XCTAssertTrue(r.stdout.contains("samples 5, dropped 2"), r.stdout)
        // Flat at the end: the last angle holds.
        XCTAssertTrue(r.stdout.contains("final: capture 270"), r.stdout)
    }

    func testMountAndFacingChangeTheAngle() throws {
        let back = try PlumbProcess.plumb("rotation", "--accelerometer", "fixed:90", "--mount", "90")
        XCTAssertTrue(back.stdout.contains("final: capture 180"), back.stdout)
        let front = try PlumbProcess.plumb("rotation", "--accelerometer", "fixed:90", "--facing", "front")
        XCTAssertTrue(front.stdout.contains("final: capture 270"), front.stdout)
    }

    func testBadOptionsExit2() throws {
        for args in [["rotation"], ["rotation", "--accelerometer", "bogus"], ["rotation", "--accelerometer", "fixed:45"],
                     ["rotation", "--accelerometer", "fixed:0", "--mount", "45"],
                     ["rotation", "--accelerometer", "fixed:0", "--facing", "up"],
                     ["rotation", "--accelerometer", "replay:/nonexistent/file"]] {
            let r = try PlumbProcess.run(PlumbProcess.binary, args)
            XCTAssertEqual(r.code, 2, "\(args): \(r.stdout) \(r.stderr)")
            XCTAssertFalse(r.stderr.isEmpty)
        }
    }
}

/// `plumb inspect` agrees with exiftool and ffprobe on files they wrote or read.
final class InspectCommandTests: XCTestCase {
    func testMP4RotationAgreesWithExiftoolAndFFprobe() throws {
        let dir = try temporaryDirectory(self)
        let base = dir.appendingPathComponent("base.mp4")
        let make = try PlumbProcess.run(PlumbProcess.tool("gst-launch-1.0"), [
            "-q", "videotestsrc", "num-buffers=10", "!", "video/x-raw,width=320,height=240", "!", "x264enc", "!",
            "h264parse", "!", "mp4mux", "!", "filesink", "location=\(base.path)",
        ])
        XCTAssertEqual(make.code, 0, make.stderr)
        // exiftool writes the track matrix; Plumb, exiftool and ffprobe must agree on it.
        for angle in [0, 90, 180, 270] {
            let file = dir.appendingPathComponent("r\(angle).mp4")
            try FileManager.default.copyItem(at: base, to: file)
            let write = try PlumbProcess.run(PlumbProcess.tool("exiftool"), ["-q", "-overwrite_original", "-Rotation=\(angle)", file.path])
            XCTAssertEqual(write.code, 0, write.stderr)
            let r = try PlumbProcess.plumb("inspect", "--json", file.path)
            XCTAssertEqual(r.code, 0, r.stderr)
            let json = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any])
            XCTAssertEqual(json["rotation"] as? Int, angle)
            let exif = try PlumbProcess.run(PlumbProcess.tool("exiftool"), ["-s3", "-Rotation", file.path])
            XCTAssertEqual(exif.stdout.trimmingCharacters(in: .whitespacesAndNewlines), "\(angle)")
            let probe = try PlumbProcess.run(PlumbProcess.tool("ffprobe"), ["-v", "error", "-show_streams", file.path])
            // ffprobe counts counter-clockwise and prints nothing for 0.
            let expected = [0: nil, 90: "rotation=-90", 180: "rotation=-180", 270: "rotation=90"][angle]!
            let line = probe.stdout.split(separator: "\n").first { $0.hasPrefix("rotation=") }.map(String.init)
            XCTAssertEqual(line, expected, "angle \(angle)")
        }
    }

    func testJPEGOrientationAgreesWithExiftool() throws {
        let dir = try temporaryDirectory(self)
        for (tag, angle, exif) in [("rotate-0", 0, 1), ("rotate-90", 90, 6), ("rotate-180", 180, 3), ("rotate-270", 270, 8)] {
            let file = dir.appendingPathComponent("\(tag).jpg")
            let make = try PlumbProcess.run(PlumbProcess.tool("gst-launch-1.0"), [
                "-q", "videotestsrc", "num-buffers=1", "!", "jpegenc", "!", "taginject", "tags=image-orientation=\(tag)",
                "!", "jifmux", "!", "filesink", "location=\(file.path)",
            ])
            XCTAssertEqual(make.code, 0, make.stderr)
            let r = try PlumbProcess.plumb("inspect", "--json", file.path)
            let json = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any], r.stderr)
            XCTAssertEqual(json["rotation"] as? Int, angle)
            XCTAssertEqual(json["exif_orientation"] as? Int, exif)
            let tool = try PlumbProcess.run(PlumbProcess.tool("exiftool"), ["-n", "-s3", "-Orientation", file.path])
            XCTAssertEqual(tool.stdout.trimmingCharacters(in: .whitespacesAndNewlines), "\(exif)")
        }
    }

    func testUnreadableFilesAreErrors() throws {
        let r = try PlumbProcess.plumb("inspect", "/etc/hostname", "/nonexistent.mp4")
        XCTAssertEqual(r.code, 2)
        XCTAssertTrue(r.stderr.contains("/etc/hostname: error: "), r.stderr)
        XCTAssertTrue(r.stderr.contains("/nonexistent.mp4: error: "), r.stderr)
        XCTAssertEqual(try PlumbProcess.plumb("inspect").code, 2)
    }
}
