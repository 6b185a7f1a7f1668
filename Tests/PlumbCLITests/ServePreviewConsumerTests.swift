import Foundation
import PlumbTestSupport
import XCTest

/// `plumb serve`'s RTSP preview as the independent testing read it: ffmpeg consumers
/// over TCP and UDP that must not print a single warning, and a consumer that stops
/// reading, which must be dropped, logged and no longer counted.
final class ServePreviewConsumerTests: XCTestCase {
    /// Four ffmpeg consumers at `-v warning` for 10 s each — TCP and UDP from the start, TCP
    /// and UDP joining 3 s later — with the default config (a scheduled keyframe every 2 s):
    /// no line on stderr (each keyframe used to come as two frames with one timestamp:
    /// "corrupt decoded frame", "non monotonically increasing dts"), about 300 frames each;
    /// and one access unit per keyframe timestamp for ffprobe, SPS and PPS in front.
    func testFFmpegConsumersOverTCPAndUDPDecodeEveryFrameWithoutAWarning() throws {
        let serve = try ServeProcess(self)
        let (viewers, packets, probeWarnings) = try FFmpegViewer.fourConsumers(serve.rtsp)
        for (label, r) in viewers {
            XCTAssertEqual(r.warnings, "", "\(label) warned")
            XCTAssertTrue((285...301).contains(r.frames), "\(label) decoded \(r.frames) frames in 10 s of 30 fps")
        }
        XCTAssertEqual(probeWarnings, "")
        XCTAssertEqual(RTSPPackets.problems(in: packets), [])
        let (code, log) = serve.stop()
        XCTAssertEqual(code, 0, log)
    }

    /// `[preview] stall-seconds = 2`: a consumer that stops reading after PLAY is dropped
    /// once data has waited 2 s for it — logged with its address, gone from
    /// `rtsp_clients` — while a healthy consumer decodes on; the server never holds more
    /// than those 2 s for it (its connection's send queue, as the kernel reports it).
    func testAConsumerThatStopsReadingIsDroppedLoggedAndNoLongerCounted() throws {
        let serve = try ServeProcess(self, ["preview": ["stall-seconds": "2"]])
        let rtspPort = try XCTUnwrap(URL(string: serve.rtsp)?.port)
        func clients() -> Int { ((try? serve.curl("GET", "/status").json())?["rtsp_clients"] as? Int) ?? -1 }
        let healthy = try RTSPClient(serve.rtsp, frames: 240)  // 8 s
        eventually("clients() == 1", timeout: .seconds(20)) { clients() == 1 }
        let started = Date()
        let stalled = try StalledRTSPClient(serve.rtsp)
        XCTAssertEqual(clients(), 2)
        let line = "dropped RTSP consumer 127.0.0.1:\(stalled.localPort)"
        var largestQueue = 0
        eventually("the drop of the stalled consumer: \(serve.log)", timeout: .seconds(2 + 8)) {
            let queue = KernelTCPConnection.find(localPort: rtspPort, remotePort: stalled.localPort)?.sendQueue ?? 0
            largestQueue = max(largestQueue, queue)
            return serve.log.contains(line)
        }
        let seconds = Date().timeIntervalSince(started)
        XCTAssertGreaterThanOrEqual(seconds, 2, "dropped before its data had waited 2 s")
        print("plumb serve dropped the stalled consumer \(String(format: "%.1f", seconds)) s after PLAY, holding at most "
              + "\(largestQueue) bytes for it")
        eventually("rtsp_clients: \(clients())", timeout: .seconds(5)) { clients() == 1 }
        XCTAssertGreaterThan(largestQueue, 0, "the stalled connection's queue was never seen")
        XCTAssertLessThan(largestQueue, 1 << 20)
        eventually("the daemon still holds data for the dropped consumer", timeout: .seconds(5)) {
            (KernelTCPConnection.find(localPort: rtspPort, remotePort: stalled.localPort)?.sendQueue ?? 0) == 0
        }
        XCTAssertTrue(stalled.waitForServerClose(timeout: 5))
        let r = healthy.finish(timeout: 30)
        XCTAssertTrue(RTSPClient.gotEveryFrame(r), "the healthy consumer did not get its 240 frames: \(r.stderr)")
        XCTAssertEqual(serve.log.components(separatedBy: "dropped RTSP consumer").count - 1, 1, serve.log)
        let (code, log) = serve.stop()
        XCTAssertEqual(code, 0, log)
    }
}
