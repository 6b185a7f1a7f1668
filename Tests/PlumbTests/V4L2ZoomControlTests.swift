import Foundation
import GStreamer
@testable import Plumb
import XCTest

/// The choice between a camera's `zoom_absolute` control and the crop, from control
/// listings as `v4l2-ctl --list-ctrls` prints them (this machine has no camera: the
/// listings are a webcam's, copied; the live path is the same `method(for:)`).
final class V4L2ZoomControlTests: XCTestCase {
    static let webcam = """
                         brightness 0x00980900 (int)    : min=0 max=255 step=1 default=128 value=128
                 exposure_auto_priority 0x009a0903 (bool)   : default=0 value=1
                          zoom_absolute 0x009a090d (int)    : min=100 max=500 step=10 default=100 value=100
                           focus_auto 0x009a090c (bool)   : default=1 value=1
    """
    static let withoutZoom = """
                         brightness 0x00980900 (int)    : min=0 max=255 step=1 default=128 value=128
                          focus_absolute 0x009a090a (int)    : min=0 max=250 step=5 default=0 value=0 flags=inactive
    """

    func testACameraWithZoomAbsoluteIsZoomedByTheControl() throws {
        let control = try XCTUnwrap(V4L2ZoomControl.parse(listing: Self.webcam))
        XCTAssertEqual(control.range, V4L2ControlRange(minimum: 100, maximum: 500, step: 10, defaultValue: 100))
        XCTAssertEqual(V4L2ZoomControl.method(for: control), .control(control))
        // 1× at the minimum, the maximum zoom at the maximum, on the control's steps.
        XCTAssertEqual(control.value(for: 1, maximum: 8), 100)
        XCTAssertEqual(control.value(for: 8, maximum: 8), 500)
        XCTAssertEqual(control.value(for: 4.5, maximum: 8), 300)
        XCTAssertEqual(control.value(for: 2, maximum: 8), 160)  // 57.1 rounded to a step of 10
        XCTAssertEqual(V4L2ZoomControl.extraControls(300), "controls,zoom_absolute=300")
    }

    func testACameraWithoutItOrWithAFixedOneIsZoomedByTheCrop() {
        XCTAssertNil(V4L2ZoomControl.parse(listing: Self.withoutZoom))
        XCTAssertEqual(V4L2ZoomControl.method(for: V4L2ZoomControl.parse(listing: Self.withoutZoom)), .crop)
        let inactive = Self.webcam.replacingOccurrences(of: "value=100\n", with: "value=100 flags=inactive\n")
        XCTAssertNil(V4L2ZoomControl.parse(listing: inactive))
        let fixed = V4L2ZoomControl(range: V4L2ControlRange(minimum: 1, maximum: 1, step: 1, defaultValue: 1))
        XCTAssertEqual(V4L2ZoomControl.method(for: fixed), .crop)
        // A node that is not there has no control (the ioctl path, as far as this machine goes).
        XCTAssertNil(V4L2ZoomControl.query(device: "/dev/video-plumb-missing"))
    }
}
