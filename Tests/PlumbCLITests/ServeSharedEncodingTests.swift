import Foundation
import PlumbTestSupport
import XCTest

/// One encoding, many uses (issue 26): the pre-record ring, the RTSP consumers and the WHEP
/// viewers take one main encoding while the device is upright; a turn moves the preview's
/// consumers to the preview's own, turned encoding and back — each time onto a keyframe
/// with its parameter sets, decoding on without a warning — and an event clip from the
/// shared ring is whole. Read from `GET /status`'s `running_encoders` and by ffmpeg/ffprobe.
final class ServeSharedEncodingTests: XCTestCase {
    /// What is wrong with 5 s of the RTSP preview as ffprobe reads it, joining a shared media
    /// where the stream is (`RTSPPackets.problems`: every keyframe with its SPS/PPS in front),
    /// and whether its PLAY's keyframe came at once (through the relay to whichever encoder
    /// feeds the preview), not a GOP later.
    private func keyframeProblems(_ url: String) throws -> [String] {
        let (packets, stderr) = try RTSPPackets.read(url, seconds: 5)
        var problems = stderr.isEmpty ? [] : ["ffprobe warned: \(stderr)"]
        problems += RTSPPackets.problems(in: packets)
        let first = packets.firstIndex(where: \.isKeyframe)
        if (first ?? .max) > 10 { problems.append("the first keyframe is access unit \(first ?? -1), not one asked for at PLAY") }
        return problems
    }

    func testRingRTSPAndWHEPShareOneEncodingAndATurnMovesThePreviewAndBack() throws {
        let serve = try ServeProcess(self, [
            "rotation": ["accelerometer": "replay:-"],
            "events": ["pre-seconds": "2"],
            "recording": ["continuous": "false"],
        ], withInput: true)
        serve.feed("0 0 9.81 0")  // upright
        let main = "x264enc h264 320x240: "
        // Idle: the ring's encoding alone.
        serve.waitForRunningEncoders([main + "ring"])

        // An RTSP consumer decoding throughout (across both turns) and a WHEP viewer: the same one encoder.
        let rtsp = try FFmpegViewer(serve.rtsp, transport: "tcp", seconds: 40)
        let python = try TestVenv.ready()
        let whep = DispatchGroup()
        nonisolated(unsafe) var whepResult: ProcessResult?
        whep.enter()
        DispatchQueue.global().async {
            whepResult = try? PlumbProcess.run(python, [TestVenv.script("whep_viewers.py").path, serve.http + "/whep", "1", "12"],
                                              timeout: 120)
            whep.leave()
        }
        serve.waitForRunningEncoders([main + "ring,rtsp,whep"])
        XCTAssertTrue(serve.log.contains("preview: its consumers take the main encoding (no turn to burn in)"), serve.log)
        XCTAssertEqual(try keyframeProblems(serve.rtsp), [])
        whep.wait()
        let viewer = try XCTUnwrap(whepResult)
        XCTAssertEqual(viewer.code, 0, viewer.stderr)
        XCTAssertTrue(viewer.stdout.contains("\"status\": 201"), viewer.stdout)
        XCTAssertFalse(viewer.stdout.contains("\"frames\": 0,"), viewer.stdout)

        // Turned: the pixels must turn, so the preview takes its own encoder; the ring stays on the main one.
        serve.feed("100 -9.81 0 0")
        serve.waitForRunningEncoders([main + "ring", "x264enc h264 240x320: rtsp"])
        XCTAssertTrue(serve.log.contains("preview: the device is turned 90 degrees"), serve.log)
        XCTAssertEqual(try keyframeProblems(serve.rtsp), [])

        // Upright again: back on the main encoding; the turned encoder goes once nothing takes it.
        serve.feed("200 0 9.81 0")
        serve.waitForRunningEncoders([main + "ring,rtsp"])
        XCTAssertEqual(try keyframeProblems(serve.rtsp), [])

        // An event clip from the shared ring: whole, on a keyframe.
        let event = try serve.curl("POST", "/event?post-seconds=1")
        XCTAssertEqual(event.status, 200, event.text)
        let name = try XCTUnwrap(try event.json()["file"] as? String, event.text)
        let clip = serve.folder.appendingPathComponent(name).path
        eventually("the clip \(name)", timeout: .seconds(30)) { FileManager.default.fileExists(atPath: clip) }
        let frames = try IndependentReaders.ffprobeFrameCount(clip)
        XCTAssertGreaterThan(frames, 60, "2 s before and 1 s after at 30 fps")
        let decoded = try PlumbProcess.run(PlumbProcess.tool("ffmpeg"), ["-nostdin", "-v", "warning", "-i", clip, "-f", "null", "-"])
        XCTAssertEqual(decoded.stderr, "", name)
        let first = try PlumbProcess.run(PlumbProcess.tool("ffprobe"), [
            "-v", "error", "-select_streams", "v:0", "-read_intervals", "%+#1", "-show_entries", "frame=key_frame,pict_type",
            "-of", "csv=p=0", clip,
        ])
        XCTAssertTrue(first.stdout.hasPrefix("1,I"), first.stdout)

        // The consumer decoded every switch without a warning.
        let watched = rtsp.finish(timeout: 90)
        XCTAssertEqual(watched.warnings, "", "ffmpeg warned")
        XCTAssertGreaterThan(watched.frames, 300, "decoded \(watched.frames) frames")
        let (code, log) = serve.stop()
        XCTAssertEqual(code, 0, log)
    }
}
