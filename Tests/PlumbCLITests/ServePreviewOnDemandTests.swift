import Foundation
import PlumbTestSupport
import XCTest

/// `plumb serve` encodes the preview only while something takes it (issue 16): idle with
/// no consumer, running from an RTSP consumer's DESCRIBE, idle again 5 s after the last
/// one left — while a recording keeps every frame.
///
/// Besides `/status`, GStreamer's own log tells whether the preview's encoder exists:
/// with `GST_DEBUG=x264enc:4` x264 reports each encoder it opens ("using cpu
/// capabilities") and its statistics when it closes ("frame I:"), under the element's name.
final class ServePreviewOnDemandTests: XCTestCase {
    static let gstLog = ["GST_DEBUG": "x264enc:4", "GST_DEBUG_NO_COLOR": "1"]

    private func encoderState(_ serve: ServeProcess) -> String? {
        (try? serve.curl("GET", "/status").json())?["preview_encoder"] as? String
    }

    /// How often the preview encoder was opened and closed, by x264's own lines.
    private func encoderLifecycle(_ serve: ServeProcess) -> (opened: Int, closed: Int) {
        let log = serve.log
        return (log.components(separatedBy: "<preview_encoder> using cpu capabilities").count - 1,
                log.components(separatedBy: "<preview_encoder> frame I:").count - 1)
    }

    /// One decoded frame by ffmpeg over TCP; the wall time from its start, and its stderr.
    private func firstFrame(_ url: String) throws -> (seconds: Double, code: Int32, stderr: String) {
        let started = Date()
        let r = try PlumbProcess.run(PlumbProcess.tool("ffmpeg"), [
            "-nostdin", "-v", "warning", "-rtsp_transport", "tcp", "-i", url, "-frames:v", "1", "-f", "null", "-",
        ], timeout: 60)
        return (Date().timeIntervalSince(started), r.code, r.stderr)
    }

    /// The device is turned: the preview cannot share the main encoding (issue 26), so its own
    /// encoder is what comes and goes.
    func testThePreviewIsEncodedOnlyWhileAConsumerReadsAndTheRecordingLosesNoFrame() throws {
        let serve = try ServeProcess(self, ["rotation": ["accelerometer": "fixed:90"]], environment: Self.gstLog)
        XCTAssertEqual(try serve.curl("POST", "/recording/start").status, 200)
        // Nobody watches: no preview encoder, by /status and by x264.
        Thread.sleep(forTimeInterval: 3)  // the thing tested: no encoder over this time
        XCTAssertEqual(encoderState(serve), "idle")
        XCTAssertEqual(encoderLifecycle(serve).opened, 0, "the preview encoder was opened with nobody watching")
        XCTAssertTrue(serve.log.contains("<encoder> using cpu capabilities"), "the recording's x264 is not in the log")

        // The first consumer's DESCRIBE finds the encoder idle and is answered all the same.
        let cold = try firstFrame(serve.rtsp)
        XCTAssertEqual(cold.code, 0, cold.stderr)
        XCTAssertEqual(cold.stderr, "")
        XCTAssertLessThan(cold.seconds, 10, "the first frame took \(cold.seconds) s")

        // A consumer joining decodes every frame with no warning, the encoder running meanwhile.
        let viewer = try FFmpegViewer(serve.rtsp, transport: "tcp", seconds: 6)
        eventually(serve.log, timeout: .seconds(15)) { self.encoderState(serve) == "running" }
        let warm = try firstFrame(serve.rtsp)
        XCTAssertEqual(warm.code, 0, warm.stderr)
        let watched = viewer.finish(timeout: 40)
        let left = Date()
        XCTAssertEqual(watched.warnings, "", "ffmpeg warned")
        XCTAssertTrue((170...181).contains(watched.frames), "decoded \(watched.frames) frames in 6 s of 30 fps")
        print(String(format: "on-demand preview: first frame %.2f s with the encoder idle, %.2f s with it running",
                     cold.seconds, warm.seconds))

        // Gone: idle after the 5 s linger, the encoder closed (x264's statistics say so).
        eventually(serve.log, timeout: .seconds(30)) { self.encoderState(serve) == "idle" }
        let lingered = Date().timeIntervalSince(left)
        XCTAssertGreaterThan(lingered, 4, "stopped \(lingered) s after the last consumer left, before the 5 s linger")
        eventually(serve.log, timeout: .seconds(10)) { self.encoderLifecycle(serve).closed >= 1 }
        let lifecycle = encoderLifecycle(serve)
        XCTAssertEqual(lifecycle.opened, lifecycle.closed, "\(lifecycle)")
        XCTAssertTrue(serve.log.contains("preview encoder: idle (no consumer for 5"), serve.log)
        // And stays closed.
        Thread.sleep(forTimeInterval: 2)  // the thing tested: it stays closed
        XCTAssertEqual(encoderLifecycle(serve).opened, lifecycle.opened)
        XCTAssertEqual(encoderState(serve), "idle")

        // The recording through every start and stop of the preview: no frame lost.
        let stop = try serve.curl("POST", "/recording/stop")
        XCTAssertEqual(stop.status, 200, stop.text)
        let name = try XCTUnwrap(try stop.json()["file"] as? String)
        let times = try packetTimes(serve.folder.appendingPathComponent(name).path)
        let duration = (times.last ?? 0) - (times.first ?? 0)
        XCTAssertGreaterThan(duration, 15, "\(times.count) frames")
        XCTAssertEqual(Double(times.count - 1), duration * ServeProcess.fps, accuracy: 1, "frames lost or doubled")
        let widest = zip(times, times.dropFirst()).map { $1 - $0 }.max() ?? 0
        print("on-demand preview: recording of \(times.count) frames over \(duration) s, widest gap \(widest) s, "
              + "encoder opened \(lifecycle.opened) times")
        // Where a missing frame went, by the recording's own count (seen once in a full run).
        let facts = try stop.json()["facts"] as? [String: Any]
        XCTAssertLessThan(widest, 1.5 / ServeProcess.fps, "a frame is missing from the recording: frames_lost_by_camera "
                          + "\(facts?["frames_lost_by_camera"] ?? "?"), frames_lost_by_encoder \(facts?["frames_lost_by_encoder"] ?? "?")")
        let (code, log) = serve.stop()
        XCTAssertEqual(code, 0, log)
    }

    /// `[preview] on-demand = false`: the encoder runs with nobody watching.
    func testOnDemandFalseKeepsTheEncoderRunning() throws {
        let serve = try ServeProcess(self, ["preview": ["on-demand": "false"]], environment: Self.gstLog)
        XCTAssertEqual(encoderState(serve), "running")
        eventually(serve.log, timeout: .seconds(10)) { self.encoderLifecycle(serve).opened == 1 }
        Thread.sleep(forTimeInterval: 6)  // the thing tested: not closed past the linger time
        XCTAssertEqual(encoderState(serve), "running")
        XCTAssertEqual(encoderLifecycle(serve).closed, 0)
        let (code, log) = serve.stop()
        XCTAssertEqual(code, 0, log)
    }

    /// The timestamps of a file's video packets, in order.
    private func packetTimes(_ path: String) throws -> [Double] {
        let r = try PlumbProcess.run(PlumbProcess.tool("ffprobe"), ["-v", "error", "-select_streams", "v:0",
                                                                  "-show_entries", "packet=pts_time", "-of", "csv=p=0", path])
        return r.stdout.split(separator: "\n").compactMap { Double($0.trimmingCharacters(in: .punctuationCharacters)) }
            .sorted()
    }
}
