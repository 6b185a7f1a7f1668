import Foundation
@testable import Plumb
@testable import PlumbService
import XCTest

/// `[camera] device = libcamera:ID`: a libcamera camera, opened through libcamerasrc.
final class ServeLibcameraChoiceTests: XCTestCase {
    func testALibcameraDeviceIsALibcameraSource() throws {
        let config = try ServeConfig.parse(text: "[camera]\ndevice = libcamera:/base/soc/i2c0mux/i2c@1/imx708@1a\n")
        let choices = try ServeChoices.resolve(config, cameras: { [] })
        XCTAssertEqual(choices.camera, .libcamera("/base/soc/i2c0mux/i2c@1/imx708@1a"))
        XCTAssertEqual(choices.camera.identifier, "libcamera:/base/soc/i2c0mux/i2c@1/imx708@1a")
    }
}
