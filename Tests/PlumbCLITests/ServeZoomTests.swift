import Foundation
import PlumbTestSupport
import XCTest

/// The digital zoom in a real `plumb serve`: `[camera] zoom` at start, `POST /zoom` (curl),
/// `GET /status`, stills from `POST /photo` carrying EXIF DigitalZoomRatio (exiftool).
final class ServeZoomTests: XCTestCase {
    func testZoomAtStartByRequestAndInStills() throws {
        let grid = try TestPictures(self).grid()
        let serve = try ServeProcess(self, ["camera": ["device": "image:" + grid.path, "size": "640x480",
                                                       "zoom": "2", "max-zoom": "4"]])
        func zoom() throws -> [String: Any] {
            let status = try serve.curl("GET", "/status")
            return try XCTUnwrap(try status.json()["zoom"] as? [String: Any], status.text)
        }
        eventually("\((try? zoom()) ?? [:])", timeout: .seconds(30)) { (try? zoom()["factor"] as? Double) == 2 }
        XCTAssertEqual(try zoom()["maximum"] as? Double, 4)

        let tooFar = try serve.curl("POST", "/zoom?factor=5")
        XCTAssertEqual(tooFar.status, 400, tooFar.text)
        XCTAssertTrue(tooFar.error.contains("max-zoom"), tooFar.text)
        XCTAssertEqual(try serve.curl("POST", "/zoom?factor=two").status, 400)
        XCTAssertEqual(try serve.curl("POST", "/zoom").status, 400)

        let ramp = try serve.curl("POST", "/zoom?factor=4&rate=2&x=0.5&y=0.5")
        XCTAssertEqual(ramp.status, 200, ramp.text)
        XCTAssertEqual(try ramp.json()["target"] as? Double, 4)
        XCTAssertEqual(try ramp.json()["rate"] as? Double, 2)
        eventually("\((try? zoom()) ?? [:])", timeout: .seconds(30)) { (try? zoom()["factor"] as? Double) == 4 }

        let still = serve.dir.appendingPathComponent("zoomed.jpg")
        let photo = try serve.curl("POST", "/photo", output: still)
        XCTAssertEqual(photo.status, 200, photo.text)
        XCTAssertEqual(try IndependentReaders.exiftool("DigitalZoomRatio", still.path), 4)
        XCTAssertEqual(serve.stop().code, 0)
    }
}
