import Foundation
import GStreamer
@testable import Plumb
import PlumbTestSupport
import XCTest

/// The RTSP preview, read by real clients (ffprobe, GStreamer's rtspsrc) while the
/// stand-in capture pipeline keeps running.
final class RTSPPreviewTests: XCTestCase {
    func testFFprobeReadsTheConfiguredCaps() throws {
        let rig = try PreviewRig.start(self, size: VideoSize(width: 320, height: 240))
        XCTAssertTrue(rig.url.hasSuffix("/preview"), rig.url)
        let (probe, err) = try Probe.live(rig.url)
        let p = try XCTUnwrap(probe, err)
        XCTAssertEqual(p.codec, "h264")
        XCTAssertEqual(p.width, 320)
        XCTAssertEqual(p.height, 240)
    }

    func testRtspsrcDecodesFramesOfTheConfiguredSize() throws {
        let rig = try PreviewRig.start(self, size: VideoSize(width: 352, height: 288))
        let consumer = try RTSPConsumer(rig.url, tail: [
            "rtph264depay", "!", "avdec_h264", "!", "video/x-raw,width=352,height=288", "!",
            "fakesink", "num-buffers=30", "sync=false",
        ])
        let r = consumer.finish(timeout: 30)
        XCTAssertEqual(r.code, 0, "the consumer did not decode 30 frames of 352x288: \(r.stderr)")
        XCTAssertEqual(rig.source.errors, [])
    }
}
