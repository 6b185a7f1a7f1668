import Foundation
import PlumbTestSupport
import XCTest

/// `--camera libcamera:ID` for a camera that is not here: a clear error — naming the package
/// when libcamerasrc is missing, saying there is no such camera when it is installed.
final class LibcameraCommandTests: XCTestCase {
    func testACameraThatIsNotHereIsAClearError() throws {
        let installed = try PlumbProcess.run(PlumbProcess.tool("gst-inspect-1.0"), ["--exists", "libcamerasrc"]).code == 0
        let dir = try temporaryDirectory(self)
        let file = dir.appendingPathComponent("pi.mp4")
        let r = try PlumbProcess.plumb("record", "--seconds", "1", "--camera", "libcamera:/base/soc/i2c0mux/i2c@1/imx708@1a",
                                       "-o", file.path, timeout: 60)
        XCTAssertNotEqual(r.code, 0, r.stderr)
        XCTAssertTrue(r.stderr.contains("camera libcamera:/base/soc/i2c0mux/i2c@1/imx708@1a"), r.stderr)
        XCTAssertTrue(r.stderr.contains(installed ? "no camera has this name" : "libcamerasrc is missing: install gstreamer1.0-libcamera")
                      || (installed && r.stderr.contains("no such device")), r.stderr)
        XCTAssertFalse(FileManager.default.fileExists(atPath: file.path), "nothing may be written")
    }
}
