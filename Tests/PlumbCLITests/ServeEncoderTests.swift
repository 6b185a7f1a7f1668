import Foundation
import PlumbTestSupport
import XCTest

/// `[recording] encoder` and `[preview] encoder` in `plumb serve`'s config.
final class ServeEncoderTests: XCTestCase {
    private func serve(_ config: String) throws -> (result: ProcessResult, dir: URL) {
        let dir = try temporaryDirectory(self)
        let file = dir.appendingPathComponent("plumb.ini")
        try config.write(to: file, atomically: true, encoding: .utf8)
        let r = try PlumbProcess.run(PlumbProcess.binary, ["serve", "--config", file.path], cwd: dir, timeout: 30)
        return (r, dir)
    }

    func testAnEncoderThatIsNoneOrCannotRunStopsTheDaemonSayingWhy() throws {
        let (h265, dir) = try serve("[preview]\nencoder = x265enc\n")
        XCTAssertEqual(h265.code, 2, h265.stderr)
        XCTAssertTrue(h265.stderr.contains(":2: [preview] encoder = \"x265enc\""), h265.stderr)
        XCTAssertTrue(h265.stderr.contains("auto or an H.264 encoder"), h265.stderr)
        XCTAssertFalse(FileManager.default.fileExists(atPath: dir.appendingPathComponent("recordings").path))

        let (unknown, _) = try serve("[recording]\nencoder = nvh264enc\n")
        XCTAssertEqual(unknown.code, 2, unknown.stderr)
        XCTAssertTrue(unknown.stderr.contains("[recording] encoder = \"nvh264enc\""), unknown.stderr)

        // Known but not installed here (gst-inspect-1.0 says so): an error at start, not a silent fallback.
        let absent = try XCTUnwrap(try ["vaapih264enc", "vah264enc", "v4l2h264enc", "openh264enc"].first { name in
            try PlumbProcess.run(PlumbProcess.tool("gst-inspect-1.0"), ["--exists", name]).code != 0
        }, "every H.264 encoder is installed here: none to show the error with")
        let (missing, missingDir) = try serve("[camera]\ndevice = test\n[recording]\nencoder = \(absent)\n")
        XCTAssertNotEqual(missing.code, 0, missing.stderr)
        XCTAssertTrue(missing.stderr.contains(
            "[recording] encoder = \(absent): encoder \(absent) cannot be used: element missing"), missing.stderr)
        XCTAssertFalse(FileManager.default.fileExists(atPath: missingDir.appendingPathComponent("recordings").path),
                       "nothing may be created")
    }
}
