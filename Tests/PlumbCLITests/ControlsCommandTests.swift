import Foundation
import PlumbTestSupport
import XCTest

/// `plumb controls` and `--control` where no V4L2 camera is involved: the test camera has
/// no controls, and malformed settings are refused before anything opens. (On a real
/// driver: KernelVividControlsTests.)
final class ControlsCommandTests: XCTestCase {
    func testTheTestCameraHasNoControls() throws {
        let r = try PlumbProcess.plumb("controls", "--camera", "test")
        XCTAssertEqual(r.code, 2, r.stderr)
        XCTAssertTrue(r.stderr.contains("camera test has no V4L2 controls"), r.stderr)
        XCTAssertEqual(r.stdout, "")
    }

    func testControlWithTheTestCameraIsAUsageError() throws {
        let folder = try temporaryDirectory(self, "plumb-controls")
        for command in [["photo", "-o", folder.path + "/x.jpg"], ["record", "--seconds", "1", "-o", folder.path + "/x.mp4"], ["scan", "--once"]] {
            let r = try PlumbProcess.run(PlumbProcess.binary, command + ["--camera", "test", "--control", "brightness=10"])
            XCTAssertEqual(r.code, 2, "\(command): \(r.stderr)")
            XCTAssertTrue(r.stderr.contains("--control: camera test has no V4L2 controls"), "\(command): \(r.stderr)")
        }
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: folder.path), [], "nothing is written")
    }

    func testAControlThatIsNotNameEqualsValueIsAUsageError() throws {
        let r = try PlumbProcess.plumb("photo", "--camera", "test", "--control", "brightness")
        XCTAssertEqual(r.code, 2, r.stderr)
        XCTAssertTrue(r.stderr.contains("--control: control 'brightness' is not NAME=VALUE"), r.stderr)
    }

    func testANodeWithoutControlsIsNamed() throws {
        let r = try PlumbProcess.plumb("controls", "--camera", "/dev/null")
        XCTAssertEqual(r.code, 1, r.stderr)
        XCTAssertTrue(r.stderr.contains("/dev/null") && r.stderr.contains("ENOTTY"), r.stderr)
    }

    /// `record --lock` needs a camera with controls: refused before anything opens.
    func testRecordLockOnACameraWithoutControlsIsAUsageError() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("plumb-lock-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let r = try PlumbProcess.plumb("record", "--camera", "test", "--seconds", "1", "--lock", "-o", folder.path + "/x.mp4")
        XCTAssertEqual(r.code, 2, r.stderr)
        XCTAssertTrue(r.stderr.contains("--lock: camera test has no V4L2 controls"), r.stderr)
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: folder.path), [], "nothing is written")
    }
}
