import GStreamer
import PlumbTestSupport
@testable import Plumb
import XCTest

/// The camera mode chosen for a request, and its documented fallbacks.
final class ModeChooserTests: XCTestCase {
    /// What a typical USB webcam offers: raw YUY2 only slowly at 720p, MJPEG fast.
    private let webcam = """
        video/x-raw, format=(string)YUY2, width=(int)1280, height=(int)720, framerate=(fraction){ 10/1, 5/1 }; \
        video/x-raw, format=(string)YUY2, width=(int)640, height=(int)480, framerate=(fraction){ 30/1, 15/1 }; \
        image/jpeg, width=(int)1280, height=(int)720, framerate=(fraction){ 30/1, 15/1 }; \
        image/jpeg, width=(int)640, height=(int)480, framerate=(fraction)30/1
        """

    private func choose(_ caps: String, _ w: Int, _ h: Int, _ fps: Int,
                        _ encoding: ModeChooser.Preference = .any) throws -> CameraMode? {
        let size = VideoSize(width: w, height: h)
        let modes = ModeChooser.modes(in: try Caps(caps), requested: size, rate: FrameRate(fps))
        return ModeChooser.choose(from: modes, size: size, rate: FrameRate(fps), encoding: encoding)
    }

    func testAPreferredEncodingWinsWhenOffered() throws {
        let mjpeg = try XCTUnwrap(choose(webcam, 640, 480, 30, .mjpeg))
        XCTAssertEqual(mjpeg.encoding, .mjpeg)
        XCTAssertEqual(mjpeg.size, VideoSize(width: 640, height: 480))
        let raw = try XCTUnwrap(choose(webcam, 1280, 720, 30, .raw))
        XCTAssertEqual(raw.encoding, .raw("YUY2"))
        XCTAssertEqual(raw.rate, FrameRate(10), "raw at 720p only comes at 10 fps")
        // A camera with no MJPEG: the preference is ignored.
        let rawOnly = "video/x-raw, format=(string)YUY2, width=(int)640, height=(int)480, framerate=(fraction)30/1"
        XCTAssertEqual(try XCTUnwrap(choose(rawOnly, 640, 480, 30, .mjpeg)).encoding, .raw("YUY2"))
    }

    func testExactSizeAndRateRawBeforeMJPEG() throws {
        let m = try XCTUnwrap(choose(webcam, 640, 480, 30))
        XCTAssertEqual(m.encoding, .raw("YUY2"))
        XCTAssertEqual(m.size, VideoSize(width: 640, height: 480))
        XCTAssertEqual(m.rate, FrameRate(30))
        XCTAssertEqual(m.caps, "video/x-raw,format=YUY2,width=640,height=480,framerate=30/1")
    }

    func testMJPEGAtTheRightRateBeatsRawAtAWrongOne() throws {
        let m = try XCTUnwrap(choose(webcam, 1280, 720, 30))
        XCTAssertEqual(m.encoding, .mjpeg)
        XCTAssertEqual(m.rate, FrameRate(30))
        XCTAssertEqual(m.caps, "image/jpeg,width=1280,height=720,framerate=30/1")
    }

    func testRawWhenItOffersTheRate() throws {
        let m = try XCTUnwrap(choose(webcam, 1280, 720, 10))
        XCTAssertEqual(m.encoding, .raw("YUY2"))
    }

    func testTheNearestRateAtTheRequestedSize() throws {
        let m = try XCTUnwrap(choose(webcam, 640, 480, 25))
        XCTAssertEqual(m.size, VideoSize(width: 640, height: 480))
        XCTAssertEqual(m.rate, FrameRate(30))
    }

    func testTheNearestSizeWhenTheSizeIsMissing() throws {
        let big = try XCTUnwrap(choose(webcam, 1920, 1080, 30))
        XCTAssertEqual(big.size, VideoSize(width: 1280, height: 720))
        XCTAssertEqual(big.encoding, .mjpeg)
        let between = try XCTUnwrap(choose(webcam, 800, 600, 30))
        XCTAssertEqual(between.size, VideoSize(width: 640, height: 480))
    }

    func testRangesAreMetExactlyOrClamped() throws {
        let ranges = "video/x-raw, format=(string)NV12, width=(int)[ 16, 1920 ], height=(int)[ 16, 1080 ], framerate=(fraction)[ 1/1, 60/1 ]"
        let inside = try XCTUnwrap(choose(ranges, 800, 600, 25))
        XCTAssertEqual(inside.size, VideoSize(width: 800, height: 600))
        XCTAssertEqual(inside.rate, FrameRate(25))
        XCTAssertEqual(inside.encoding, .raw("NV12"))
        let outside = try XCTUnwrap(choose(ranges, 4000, 3000, 120))
        XCTAssertEqual(outside.size, VideoSize(width: 1920, height: 1080))
        XCTAssertEqual(outside.rate, FrameRate(60))
    }

    func testNothingUsableIsNil() throws {
        XCTAssertNil(try choose("video/x-h264, width=(int)1920, height=(int)1080, framerate=(fraction)30/1", 1920, 1080, 30))
    }

    func testSizesAndRatesParse() {
        XCTAssertEqual(VideoSize(parsing: "640x480"), VideoSize(width: 640, height: 480))
        XCTAssertNil(VideoSize(parsing: "640"))
        XCTAssertNil(VideoSize(parsing: "0x480"))
        XCTAssertEqual(FrameRate(parsing: "30000/1001")?.perSecond ?? 0, 29.97, accuracy: 0.01)
        XCTAssertEqual(FrameRate(30).frameDuration, 33_333_333)
    }
}
