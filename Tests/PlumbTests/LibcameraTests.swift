import Foundation
import GStreamer
@testable import Plumb
import PlumbTestSupport
import XCTest

/// libcamera cameras (Raspberry Pi camera modules) on the libcamera stand-in: listed by the
/// device provider, opened through libcamerasrc with the same negotiation, errors and
/// recordings as V4L2 cameras.
final class LibcameraTests: XCTestCase {
    /// A Raspberry Pi Camera Module 3's libcamera id.
    private let module3 = "/base/soc/i2c0mux/i2c@1/imx708@1a"

    func testTheCamerasAreListedWithWhatCameraTakes() throws {
        try HardwareStandIns.connectLibcameras([module3], in: self)
        let cameras = try CameraList.current()
        let camera = try XCTUnwrap(cameras.first { $0.name == module3 }, "\(cameras.map(\.name))")
        XCTAssertNil(camera.path, "libcamera cameras have no device node")
        XCTAssertEqual(camera.source, "libcamera:\(module3)")
        XCTAssertTrue(camera.formats.contains { $0.format == "NV12" }, "\(camera.formats)")
        XCTAssertFalse(CameraDevice.all().contains { $0.name == module3 }, "not a V4L2 camera")
        XCTAssertEqual(try CameraSource.resolve(try XCTUnwrap(camera.source)), .libcamera(module3))
    }

    func testACameraOpensAtTheRequestedModeAndRecords() async throws {
        try HardwareStandIns.connectLibcameras([module3], in: self)
        let source = try CameraSource.resolve("libcamera:\(module3)")
        let session = try await CaptureSession.open(source, size: VideoSize(width: 640, height: 480), rate: FrameRate(30))
        let format = await session.format
        XCTAssertEqual(format.size, VideoSize(width: 640, height: 480))
        XCTAssertEqual(format.rate, FrameRate(30))
        // Of the formats it offers (NV12, I420, YUY2) the tee's own: nothing to convert.
        XCTAssertEqual(format.cameraMode?.encodingName, "I420")
        let dir = try temporaryDirectory(self)
        let recording = try await session.startRecording(to: dir.appendingPathComponent("pi.mp4"))
        _ = try await recording.firstFrameTime()
        await eventually("30 frames recorded") { recording.progress.frames >= 30 }
        let facts = try await recording.stop()
        await session.close()
        let video = try ProbedVideo(recording.url)
        XCTAssertEqual(video.width, 640)
        XCTAssertEqual(video.height, 480)
        XCTAssertEqual(video.packets, facts.frames)
        XCTAssertGreaterThan(facts.frames, 20)
    }

    func testAnUnknownOrMissingCameraIsAClearError() async throws {
        try HardwareStandIns.connectLibcameras([module3], in: self)
        do {
            _ = try await CaptureSession.open(.libcamera("imx219"), size: VideoSize(width: 640, height: 480))
            XCTFail("an unknown libcamera camera opened")
        } catch {
            XCTAssertTrue("\(error)".contains("camera libcamera:imx219: no camera has this name"), "\(error)")
            XCTAssertTrue("\(error)".contains("Could not find a camera named 'imx219'"), "\(error)")
        }
        try HardwareStandIns.connectLibcameras([], in: self)
        do {
            _ = try await CaptureSession.open(.libcamera(module3), size: VideoSize(width: 640, height: 480))
            XCTFail("a camera opened with none connected")
        } catch {
            XCTAssertTrue("\(error)".contains("camera libcamera:\(module3): no such device"), "\(error)")
        }
        XCTAssertThrowsError(try CameraSource.resolve("libcamera:"))
    }
}
