import XCTest
import GStreamer
@testable import Plumb

/// `plumb devices`' formats from a camera's caps: one per format and size.
final class CameraListTests: XCTestCase {
    /// vivid's caps as v4l2src gives them: every size twice, once progressive and once as
    /// alternate fields, the first listing printed each 320x180 line twice.
    func testASizeOfferedTwiceIsOneFormatWithTheRatesOfBoth() throws {
        let caps = try Caps("""
            video/x-raw, format=YUY2, width=320, height=180, framerate={ 30/1, 25/1 }; \
            video/x-raw(format:Interlaced), format=YUY2, width=320, height=180, interlace-mode=alternate, framerate={ 30/1, 15/1 }; \
            video/x-raw, format=NV12, width=320, height=180, framerate=30/1; \
            video/x-raw, format=YUY2, width=640, height=360, framerate=30/1; \
            image/jpeg, width=320, height=180, framerate=30/1
            """)
        let formats = CameraList.formats(caps)
        XCTAssertEqual(formats.map { "\($0.mediaType) \($0.format ?? "-") \($0.size)" },
                       ["video/x-raw YUY2 320x180", "video/x-raw NV12 320x180", "video/x-raw YUY2 640x360",
                        "image/jpeg - 320x180"])
        XCTAssertEqual(formats[0].framerates, ["30/1", "25/1", "15/1"])
    }
}
