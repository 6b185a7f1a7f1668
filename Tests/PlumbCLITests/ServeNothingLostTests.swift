import Foundation
import PlumbTestSupport
import XCTest

/// Issue 26's "nothing lost": a continuous recording across an RTSP consumer's arrival and
/// departure, a camera switch and back, and segment splits keeps every frame, by ffprobe.
final class ServeNothingLostTests: XCTestCase {
    func testARecordingAcrossAConsumerASwitchAndSplitsKeepsEveryFrame() throws {
        let images = try temporaryDirectory(self)
        try IndependentReaders.gstLaunch("videotestsrc num-buffers=1 pattern=ball ! video/x-raw,width=320,height=240 "
            + "! jpegenc ! filesink location=\(images.appendingPathComponent("a.jpg").path)")
        let serve = try ServeProcess(self, ["recording": ["continuous": "true", "segment-seconds": "3"],
                                            "camera": ["image-folder": images.path]])
        let tap = try EventTap(serve, self)
        XCTAssertTrue(eventually(tap.raw, timeout: .seconds(30)) { !tap.named("recording-started").isEmpty })

        let client = try RTSPClient(serve.rtsp, frames: 30)
        XCTAssertTrue(RTSPClient.gotEveryFrame(client.finish(timeout: 60)), "the RTSP consumer got no frames")
        XCTAssertEqual(try serve.curl("POST", "/camera?device=image:a.jpg").status, 200)
        XCTAssertEqual(try serve.curl("POST", "/camera?device=test").status, 200)
        XCTAssertTrue(eventually(tap.raw, timeout: .seconds(60)) { tap.named("recording-stopped").count >= 2 })
        let stop = try serve.curl("POST", "/recording/stop")
        XCTAssertEqual(stop.status, 200, stop.text)
        // The reply names every file of the recording; each has its facts in a recording-stopped.
        let files = try XCTUnwrap(try stop.json()["files"] as? [String])
        XCTAssertGreaterThanOrEqual(files.count, 3, "the recording was not split")
        XCTAssertTrue(eventually(tap.raw, timeout: .seconds(30)) { tap.named("recording-stopped").count >= files.count })

        var factsFrames = 0, probedFrames = 0, gaps = 0, lost = 0
        for event in tap.named("recording-stopped") {
            let facts = try XCTUnwrap(event.data["facts"] as? [String: Any])
            let path = try XCTUnwrap(facts["file"] as? String)
            factsFrames += try XCTUnwrap(facts["frames"] as? Int)
            lost += try XCTUnwrap(facts["frames_lost"] as? Int)
            probedFrames += try IndependentReaders.ffprobeFrameCount(path)
            let packets = try PlumbProcess.run(PlumbProcess.tool("ffprobe"), ["-v", "error", "-select_streams", "v",
                "-show_entries", "packet=pts_time,flags", "-of", "csv=p=0", path]).stdout
                .split(separator: "\n").map { $0.split(separator: ",") }
            XCTAssertEqual(packets.first?.last.map(String.init)?.hasPrefix("K"), true, "\(path) starts off a keyframe")
            let times = packets.compactMap { Double($0[0]) }.sorted()
            gaps += zip(times, times.dropFirst()).map { $1 - $0 - 1 / ServeProcess.fps }
                .reduce(0) { $0 + Int(($1 * ServeProcess.fps).rounded()) }
            let decoded = try PlumbProcess.run(PlumbProcess.tool("ffmpeg"), ["-nostdin", "-v", "warning", "-i", path, "-f", "null", "-"])
            XCTAssertEqual(decoded.stderr, "", "\(path) does not decode cleanly")
        }
        XCTAssertEqual(probedFrames, factsFrames, "ffprobe's frames against the facts'")
        XCTAssertEqual(gaps, lost, "frames missing between timestamps against the facts' frames_lost")
        print("nothing-lost: files \(tap.named("recording-stopped").count) frames \(probedFrames) missing \(gaps) lost \(lost)")
    }
}
