import XCTest
@testable import Plumb

/// A lost camera looked up again before each reopening (`CameraDevice.refound`), as
/// `plumb serve` does: by path, name or /dev/v4l link, under whatever node it came back.
final class CameraDeviceRefoundTests: XCTestCase {
    let webcam = CameraDevice(path: "/dev/video0", name: "HD Webcam")

    func testACameraBackUnderAnotherNodeIsFoundByItsName() {
        let back = CameraDevice(path: "/dev/video2", name: "HD Webcam")
        XCTAssertEqual(webcam.refound(among: { [CameraDevice(path: "/dev/video1", name: "Other"), back] },
                                      nodeExists: { _ in false }), back)
    }

    func testItsNodeStillThereIsOpenedWithoutListingTheCameras() {
        XCTAssertEqual(webcam.refound(among: { XCTFail("cameras listed"); return [] }, nodeExists: { $0 == "/dev/video0" }),
                       webcam)
    }

    func testANameGivenWhileTheCameraWasAwayIsFoundWhenItComes() {
        let asked = CameraDevice(path: "HD Web", name: "HD Web")
        XCTAssertEqual(asked.refound(among: { [self.webcam] }), webcam)
        XCTAssertEqual(asked.refound(among: { [] }), asked)
    }

    func testAByIDLinkStaysTheLink() {
        let link = CameraDevice(path: "/dev/v4l/by-id/usb-Cam-video-index0", name: "HD Webcam")
        XCTAssertEqual(link.refound(among: { [CameraDevice(path: "/dev/video3", name: "HD Webcam")] },
                                    nodeExists: { _ in false }), link)
    }
}
