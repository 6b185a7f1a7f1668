import Foundation
import GStreamer
@testable import Plumb
import PlumbTestSupport
import XCTest

/// A camera that cannot be opened is a typed error naming the device and the cause,
/// raised within a bounded time.
final class CameraErrorTests: XCTestCase {
    private func openFailure(_ path: String, file: StaticString = #filePath, line: UInt = #line) async throws
        -> (CameraError, TimeInterval)
    {
        let start = Date()
        do {
            let session = try await within(.seconds(30), "opening \(path)") {
                try await CaptureSession.open(.device(CameraDevice(path: path)), timeout: .seconds(5))
            }
            await session.close()
            XCTFail("\(path) opened", file: file, line: line)
            throw CaptureError.closed
        } catch CaptureError.camera(let error) {
            return (error, Date().timeIntervalSince(start))
        }
    }

    func testAMissingDeviceIsNotFound() async throws {
        let (error, seconds) = try await openFailure("/dev/video99")
        XCTAssertEqual(error.cause, .notFound)
        XCTAssertEqual(error.device, "/dev/video99")
        XCTAssertTrue(error.description.contains("/dev/video99"), error.description)
        XCTAssertTrue(error.description.contains("no such device"), error.description)
        XCTAssertLessThan(seconds, 10)
    }

    func testAPlainFileIsNotADevice() async throws {
        let dir = try temporaryDirectory(self)
        let path = dir.appendingPathComponent("video0").path
        try Data("not a camera".utf8).write(to: URL(fileURLWithPath: path))
        let (error, seconds) = try await openFailure(path)
        XCTAssertEqual(error.cause, .notADevice)
        XCTAssertEqual(error.device, path)
        XCTAssertTrue(error.description.contains("not a device"), error.description)
        XCTAssertLessThan(seconds, 10)
    }

    /// /dev/null is a character device that opens fine, so the cause comes from v4l2src itself.
    func testACharacterDeviceThatIsNotACameraIsNotACaptureDevice() async throws {
        let (error, seconds) = try await openFailure("/dev/null")
        XCTAssertEqual(error.cause, .notACaptureDevice, error.description)
        XCTAssertEqual(error.device, "/dev/null")
        XCTAssertLessThan(seconds, 10)
    }

    /// v4l2src's words for a busy or forbidden device (not reproducible here: the tests
    /// run as root with no camera) map to their causes.
    func testV4L2MessagesMapToCauses() {
        let busy = GStreamerError(.busy,
                                  message: "Device '/dev/video0' is busy",
                                  debug: "system error: Device or resource busy")
        XCTAssertEqual(CameraError(device: "/dev/video0", gstreamer: busy).cause, .busy)
        let denied = GStreamerError(.openReadWrite,
                                    message: "Could not open device '/dev/video0' for reading and writing.",
                                    debug: "v4l2_calls.c(637): gst_v4l2_open (): system error: Permission denied")
        let error = CameraError(device: "/dev/video0", gstreamer: denied)
        XCTAssertEqual(error.cause, .permissionDenied)
        XCTAssertTrue(error.description.contains("video"), error.description)
        let missing = GStreamerError(.notFound,
                                     message: "Cannot identify device '/dev/video7'.",
                                     debug: "system error: No such file or directory")
        XCTAssertEqual(CameraError(device: "/dev/video7", gstreamer: missing).cause, .notFound)
    }

    /// Where v4l2src's words say nothing known, its error's code decides, by name:
    /// GStreamer's "negotiation" and "caps" failures are a camera with no usable format.
    func testCodesWithoutKnownWordsMapToCauses() {
        func cause(_ error: GStreamerError) -> CameraError.Cause { CameraError(device: "/dev/video0", gstreamer: error).cause }
        XCTAssertEqual(cause(GStreamerError(.busy, message: "Oops")), .busy)
        XCTAssertEqual(cause(GStreamerError(.notAuthorized, message: "Oops")), .permissionDenied)
        XCTAssertEqual(cause(GStreamerError(.negotiation, message: "Oops")), .noUsableFormat)
        XCTAssertEqual(cause(GStreamerError(.caps, message: "Oops")), .noUsableFormat)
        XCTAssertEqual(cause(GStreamerError(.write, message: "Oops")), .failed)
        XCTAssertEqual(cause(GStreamerError(GStreamerError.StreamCode.failed, message: "Oops")), .failed)
    }

    /// The engine speaks of cameras, not of one program's flags: the CLI adds those itself.
    func testEngineMessagesNameNoCommandLineFlags() {
        let causes: [CameraError.Cause] = [.notFound, .notADevice, .notACaptureDevice, .busy, .permissionDenied,
                                           .noUsableFormat, .noFrames, .unknownName, .failed]
        for cause in causes {
            let text = CameraError(device: "/dev/video7", cause: cause).description
            XCTAssertFalse(text.contains("--"), "\(cause): \(text)")
            XCTAssertFalse(text.contains("plumb "), "\(cause): \(text)")
        }
    }

    func testAnUnknownCameraNameSaysSo() {
        XCTAssertThrowsError(try CameraSource.resolve("No Such Camera 9000")) { error in
            let e = error as? CameraError
            XCTAssertEqual(e?.cause, .unknownName)
            XCTAssertEqual(e?.device, "No Such Camera 9000")
        }
        XCTAssertEqual(try CameraSource.resolve("test"), .testPattern(.ball))
        XCTAssertEqual(try CameraSource.resolve("test:smpte"), .testPattern(.smpte))
        XCTAssertEqual(try CameraSource.resolve("/dev/video42"), .device(CameraDevice(path: "/dev/video42")))
    }

    func testOutOfRangeRequestsAreRefused() async {
        for (size, rate) in [(VideoSize(width: 0, height: 240), FrameRate(30)),
                             (VideoSize(width: 320, height: 240), FrameRate(0))] {
            do {
                let s = try await CaptureSession.open(.testPattern(), size: size, rate: rate)
                await s.close()
                XCTFail("\(size)@\(rate) opened")
            } catch CaptureError.invalidArgument(let text) {
                XCTAssertTrue(text.contains("out of range"), text)
            } catch {
                XCTFail("unexpected \(error)")
            }
        }
    }

    /// What v4l2src says when a streaming camera is unplugged (vivid's `disconnect`, as the
    /// kernel tests saw it): the camera was lost, and the system's reason, not "could not be opened".
    func testAnErrorWhileStreamingIsTheCameraLostWithTheSystemsReason() {
        let unplugged = GStreamerError(.read, message: "Could not read from resource.",
                                       debug: "../sys/v4l2/gstv4l2src.c(1234): gst_v4l2src_create (): /GstPipeline:camera/GstV4l2Src:src:\npoll error 1: No such device (19)")
        let lost = CameraError(device: "/dev/video0", gstreamer: unplugged, streaming: true)
        XCTAssertEqual(lost.cause, .lost)
        XCTAssertEqual(lost.description, "camera /dev/video0: lost while streaming: the device went away or its driver "
                       + "stopped with an error (Could not read from resource. poll error 1: No such device (19))")
        XCTAssertFalse(lost.description.contains("could not be opened"))
        // Before its first frame the same error is an opening that failed.
        XCTAssertEqual(CameraError(device: "/dev/video0", gstreamer: unplugged, streaming: false).cause, .failed)
    }
}
