import Foundation
@testable import Plumb
import PlumbTestSupport
import XCTest

/// The mode choice on what real webcams offer (`Tests/Fixtures/webcams`: their
/// `v4l2-ctl --list-formats-ext` listings): MJPEG where raw cannot give the rate at the size.
final class ModeChooserListingTests: XCTestCase {
    private func modes(_ file: String) throws -> [CameraMode] {
        let url = PlumbProcess.root.appendingPathComponent("Tests/Fixtures/webcams/\(file)")
        let modes = V4L2FormatListing.modes(in: try String(contentsOf: url, encoding: .utf8))
        XCTAssertFalse(modes.isEmpty, file)
        return modes
    }

    private func choice(_ file: String, _ width: Int, _ height: Int, _ fps: Int) throws -> String? {
        ModeChooser.choose(from: try modes(file), size: VideoSize(width: width, height: height), rate: FrameRate(fps))?
            .description
    }

    func testTheListingsParse() throws {
        let generic = try modes("uvc-1080p-raw-slow.txt")
        XCTAssertEqual(generic.count, 20)
        XCTAssertTrue(generic.contains(CameraMode(encoding: .raw("YUY2"), size: VideoSize(width: 1280, height: 720),
                                                  rate: FrameRate(10))))
        let usb = try modes("usb-camera-mjpeg-720p60.txt")
        XCTAssertTrue(usb.contains(CameraMode(encoding: .raw("YUY2"), size: VideoSize(width: 640, height: 480),
                                              rate: FrameRate(15, 2))), "7.500 fps is 15/2")
        XCTAssertTrue(usb.contains { $0.encoding == .raw("NV12") })
    }

    /// Raw at 720p gives 10 fps and at 1080p 5: MJPEG for 30; at 640x480 raw gives 30.
    func testAGenericWebcamSendsMJPEGForHDAt30() throws {
        XCTAssertEqual(try choice("uvc-1080p-raw-slow.txt", 1280, 720, 30), "MJPG 1280x720@30/1")
        XCTAssertEqual(try choice("uvc-1080p-raw-slow.txt", 1920, 1080, 30), "MJPG 1920x1080@30/1")
        XCTAssertEqual(try choice("uvc-1080p-raw-slow.txt", 640, 480, 30), "YUY2 640x480@30/1")
        // At 10 fps raw 720p is there: no decoding.
        XCTAssertEqual(try choice("uvc-1080p-raw-slow.txt", 1280, 720, 10), "YUY2 1280x720@10/1")
    }

    func testAWebcamWithRawOnlyAtVGA() throws {
        XCTAssertEqual(try choice("usb-camera-mjpeg-720p60.txt", 1280, 720, 30), "MJPG 1280x720@30/1")
        XCTAssertEqual(try choice("usb-camera-mjpeg-720p60.txt", 1280, 720, 60), "MJPG 1280x720@60/1")
        XCTAssertEqual(try choice("usb-camera-mjpeg-720p60.txt", 640, 480, 30), "YUY2 640x480@30/1")
        XCTAssertEqual(try choice("usb-camera-mjpeg-720p60.txt", 640, 360, 30), "NV12 640x360@30/1")
    }

    /// 4K raw is 15 fps: MJPEG for 30. Below, both give only 60: raw (no decoding).
    func testA4KWebcam() throws {
        XCTAssertEqual(try choice("uvc-4k.txt", 3840, 2160, 30), "MJPG 3840x2160@30/1")
        XCTAssertEqual(try choice("uvc-4k.txt", 3840, 2160, 15), "YUY2 3840x2160@15/1")
        XCTAssertEqual(try choice("uvc-4k.txt", 1920, 1080, 30), "YUY2 1920x1080@60/1")
    }

    /// Raw at 30 fps at every size: never MJPEG.
    func testAWebcamWithRawAt30Everywhere() throws {
        XCTAssertEqual(try choice("usb2-camera-raw-30.txt", 1280, 720, 30), "YUY2 1280x720@30/1")
        XCTAssertEqual(try choice("usb2-camera-raw-30.txt", 1280, 960, 30), "YUY2 1280x960@30/1")
    }
}
