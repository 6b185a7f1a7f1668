import Foundation
import PlumbTestSupport
import XCTest

/// `plumb serve` counts frames lost: `GET /status`'s `frames_lost` for the camera since it
/// opened, and a warning in the log for a recorded file that misses frames (none here: the
/// test pattern drops nothing, the engine's tests drop frames on purpose).
final class ServeFrameLossTests: XCTestCase {
    func testStatusCountsFramesLostAndACleanRecordingWarnsOfNone() throws {
        let serve = try ServeProcess(self)
        let status = try serve.curl("GET", "/status").json()
        XCTAssertEqual(status["frames_lost"] as? Int, 0, "\(status)")

        let started = try serve.curl("POST", "/recording/start")
        XCTAssertEqual(started.status, 200, started.text)
        serve.waitForRecordedFrames(45, in: try XCTUnwrap(started.json()["file"] as? String, started.text))
        let stopped = try serve.curl("POST", "/recording/stop")
        XCTAssertEqual(stopped.status, 200, stopped.text)
        let name = try XCTUnwrap((try stopped.json()["files"] as? [String])?.first, stopped.text)
        eventually(serve.log, timeout: .seconds(20)) { serve.log.contains("recorded \(name):") }
        XCTAssertFalse(serve.log.contains("warning: lost"), serve.log)
        XCTAssertEqual(try serve.curl("GET", "/status").json()["frames_lost"] as? Int, 0)
    }
}
