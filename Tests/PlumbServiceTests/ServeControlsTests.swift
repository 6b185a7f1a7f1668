import Foundation
import GStreamer
@testable import PlumbService
import PlumbTestSupport
import XCTest
@testable import Plumb

/// Camera controls in `plumb serve` on the test camera, which has none (V4L2 cameras are in
/// the kernel VM: KernelVividControlsServeTests): `[camera] controls` reported as not set,
/// not failed; `GET /controls` empty with the reason; `PATCH /controls` and the lock a
/// clear 400 (409 for releasing a lock never taken); a malformed body 400 with an example.
final class ServeControlsTests: XCTestCase {
    private func start(_ config: ServeConfig, log: ServeDaemonTests.Lines) async throws -> String {
        let daemon = try ServeDaemon(config: config, choices: try ServeChoices.resolve(config), log: log.add)
        let addresses = try await daemon.start()
        addTeardownBlock { await daemon.shutdown() }
        return addresses.http.httpURL
    }

    func testTheTestCameraHasNoControlsAndEachRouteSaysSo() async throws {
        var config = ServeDaemonTests.config(folder: try temporaryDirectory(self))
        config.recording.continuous = false
        config.camera.controls = try CameraControlRequest(parsingList: "brightness=200, exposure=manual")
        let lines = ServeDaemonTests.Lines()
        let base = try await start(config, log: lines)

        // Started all the same; the configured controls reported as not set, and why.
        let status = try await ServiceClient.curl([base + "/status"])
        XCTAssertEqual(try status.json()["state"] as? String, "running", status.text)
        let controls = try XCTUnwrap(try status.json()["controls"] as? [String: Any], status.text)
        XCTAssertEqual(controls["kept"] as? [String], ["brightness=200", "exposure=manual"])
        XCTAssertEqual(controls["not_applied"] as? [String], ["brightness", "exposure"])
        XCTAssertEqual(controls["problem"] as? String, "camera test has no V4L2 controls (only V4L2 cameras such as /dev/video0 have them)")
        XCTAssertEqual(controls["locked"] as? Bool, false)
        XCTAssertTrue(lines.contains("controls: not set: camera test has no V4L2 controls"), "\(lines.all)")

        let listing = try await ServiceClient.curl([base + "/controls"])
        XCTAssertEqual(listing.status, 200, listing.text)
        XCTAssertEqual((try listing.json()["controls"] as? [Any])?.count, 0, listing.text)
        XCTAssertTrue((try listing.json()["reason"] as? String ?? "").contains("has no V4L2 controls"), listing.text)

        let patch = try await ServiceClient.curl(["-X", "PATCH", "--data", #"{"brightness": 200}"#, base + "/controls"])
        XCTAssertEqual(patch.status, 400, patch.text)
        XCTAssertEqual(try patch.json()["error"] as? String, "camera test has no V4L2 controls (only V4L2 cameras such as /dev/video0 have them)")

        let lock = try await ServiceClient.curl(["-X", "POST", base + "/controls/lock"])
        XCTAssertEqual(lock.status, 400, lock.text)
        let unlock = try await ServiceClient.curl(["-X", "DELETE", base + "/controls/lock"])
        XCTAssertEqual(unlock.status, 409, unlock.text)
        XCTAssertEqual(try unlock.json()["error"] as? String, "no lock is held; POST /controls/lock first")
    }

    /// A camera switched to gets the kept controls too: here it has none either, and the
    /// report names the new camera.
    func testACameraSwitchedToIsGivenTheKeptControls() async throws {
        var config = ServeDaemonTests.config(folder: try temporaryDirectory(self))
        config.recording.continuous = false
        config.camera.controls = try CameraControlRequest(parsingList: "brightness=200")
        let lines = ServeDaemonTests.Lines()
        let base = try await start(config, log: lines)
        let switched = try await ServiceClient.curl(["-X", "POST", base + "/camera?device=test:smpte"])
        XCTAssertEqual(switched.status, 200, switched.text)
        let status = try await ServiceClient.curl([base + "/status"])
        let controls = try XCTUnwrap(try status.json()["controls"] as? [String: Any], status.text)
        XCTAssertEqual(controls["not_applied"] as? [String], ["brightness"])
        XCTAssertEqual(controls["problem"] as? String, "camera test:smpte has no V4L2 controls (only V4L2 cameras such as /dev/video0 have them)")
        XCTAssertTrue(lines.contains("controls: not set: camera test:smpte has no V4L2 controls"), "\(lines.all)")
    }

    func testABodyThatIsNoObjectOfValuesIsRefusedWithAnExample() async throws {
        var config = ServeDaemonTests.config(folder: try temporaryDirectory(self))
        config.recording.continuous = false
        let base = try await start(config, log: ServeDaemonTests.Lines())
        for body in ["brightness=200", "[1, 2]", "{}", #"{"brightness": null}"#, #"{"brightness": [1]}"#] {
            let r = try await ServiceClient.curl(["-X", "PATCH", "--data", body, base + "/controls"])
            XCTAssertEqual(r.status, 400, body)
            XCTAssertTrue((try r.json()["error"] as? String ?? "").contains(#"e.g. {"exposure": "manual", "exposure-time": 0.01}"#), "\(body): \(r.text)")
        }
    }

    /// JSON values as the names' text: booleans 1/0, whole numbers without a point.
    func testJSONValuesBecomeControlText() throws {
        let given = try ControlsRoutes.assignments(Data(#"{"torch": true, "gain": 12, "exposure-time": 0.01, "exposure": "manual", "power-line": false}"#.utf8))
        XCTAssertEqual(given.map { "\($0.name)=\($0.value)" },
                       ["exposure=manual", "exposure-time=0.01", "gain=12", "power-line=0", "torch=1"])
    }

    /// The driver's refusals keep its word; busy is 409, a failing device 502, a gone one 503.
    func testDriverRefusalsKeepTheDriversWordAndTheirStatus() {
        func status(_ errno: Int32) -> APIError {
            ControlsRoutes.apiError(.driver(V4L2ControlError(request: "VIDIOC_S_EXT_CTRLS", errno: errno, control: "exposure_time_absolute")))
        }
        XCTAssertEqual(status(EBUSY), .busy("VIDIOC_S_EXT_CTRLS refused for exposure_time_absolute: EBUSY: the device is busy (the control cannot change while streaming, or another process holds it)"))
        XCTAssertEqual(status(EIO).status, 502)
        XCTAssertTrue(status(EIO).message.contains("EIO: the device failed to carry it out"))
        XCTAssertEqual(status(ENODEV).status, 503)
        XCTAssertEqual(status(ERANGE).status, 400)
        XCTAssertEqual(ControlsRoutes.apiError(.unknown(name: "zoomm", known: ["zoom"])).status, 400)
    }
}
