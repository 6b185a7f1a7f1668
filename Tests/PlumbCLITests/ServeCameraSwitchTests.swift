import Foundation
import PlumbTestSupport
import XCTest

/// `POST /camera` in a real `plumb serve`: from the test pattern to an `image:` camera and
/// back while an ffmpeg RTSP consumer decodes and a recording runs; a missing device
/// leaves the old camera running and the answer says why.
final class ServeCameraSwitchTests: XCTestCase {
    func testSwitchingToAnImageAndBackKeepsConsumersAndTheRecording() throws {
        let red = try TestPictures(self).plain("red")
        let serve = try ServeProcess(self)
        let events = try EventTap(serve, self)
        let started = try serve.curl("POST", "/recording/start")
        XCTAssertEqual(started.status, 200, started.text)
        let viewer = try FFmpegViewer(serve.rtsp, transport: "tcp", seconds: 10)
        Thread.sleep(forTimeInterval: 2)

        let toImage = try serve.curl("POST", "/camera?device=image:\(red.path)&facing=front")
        XCTAssertEqual(toImage.status, 200, toImage.text)
        XCTAssertEqual(try toImage.json()["to"] as? String, "image:" + red.path)
        XCTAssertEqual(try toImage.json()["facing"] as? String, "front")
        let status = try serve.curl("GET", "/status")
        XCTAssertEqual(try status.json()["device"] as? String, "image:" + red.path, status.text)
        XCTAssertEqual(try status.json()["camera"] as? String, "Plumb image camera", status.text)
        Thread.sleep(forTimeInterval: 3)

        // A missing device: 404 naming it; the image camera goes on.
        let missing = try serve.curl("POST", "/camera?device=/dev/video-plumb-missing")
        XCTAssertEqual(missing.status, 404, missing.text)
        XCTAssertTrue(missing.error.contains("/dev/video-plumb-missing"), missing.text)
        XCTAssertEqual(try serve.curl("POST", "/camera").status, 400)
        XCTAssertEqual(try serve.curl("POST", "/camera?device=test&facing=up").status, 400)
        let still = try serve.curl("GET", "/status")
        XCTAssertEqual(try still.json()["device"] as? String, "image:" + red.path, still.text)
        XCTAssertEqual(try still.json()["state"] as? String, "running", still.text)

        let back = try serve.curl("POST", "/camera?device=test")
        XCTAssertEqual(back.status, 200, back.text)
        let seen = viewer.finish(timeout: 40)
        XCTAssertEqual(seen.warnings, "", "the RTSP consumer warned across the switches")
        XCTAssertTrue((270...301).contains(seen.frames), "decoded \(seen.frames) frames in 10 s of 30 fps")
        print("RTSP consumer across two switches: \(seen.frames) frames in 10 s, no warning; restart "
              + "\(try toImage.json()["restartSeconds"] ?? "?") s and \(try back.json()["restartSeconds"] ?? "?") s")

        XCTAssertTrue(waitUntil(10) { events.named("camera-switched").count == 2 }, events.raw)
        XCTAssertEqual(events.named("camera-switched").map { $0.data["to"] as? String },
                       ["image:" + red.path, "test"])

        Thread.sleep(forTimeInterval: 1)
        let stopped = try serve.curl("POST", "/recording/stop")
        XCTAssertEqual(stopped.status, 200, stopped.text)
        let files = try XCTUnwrap(stopped.json()["files"] as? [String], stopped.text)
        XCTAssertEqual(files.count, 1, "the tee's caps did not change: one file \(files)")
        let movie = serve.folder.appendingPathComponent(files[0])
        let decode = try PlumbProcess.run(PlumbProcess.tool("ffmpeg"), ["-v", "warning", "-i", movie.path, "-f", "null", "-"])
        XCTAssertEqual(decode.code, 0, decode.stderr)
        XCTAssertEqual(decode.stderr.trimmingCharacters(in: .whitespacesAndNewlines), "", "the recording does not play cleanly")
        // The red image's frames are in it: count frames whose mean colour is red.
        let rgb = serve.dir.appendingPathComponent("frames.rgb")
        let r = try PlumbProcess.run(PlumbProcess.tool("ffmpeg"), ["-v", "error", "-y", "-i", movie.path, "-vf",
                                                                 "scale=1:1:flags=area", "-f", "rawvideo", "-pix_fmt", "rgb24", rgb.path])
        XCTAssertEqual(r.code, 0, r.stderr)
        let pixels = [UInt8](try Data(contentsOf: rgb))
        let frames = stride(from: 0, to: pixels.count - 2, by: 3).map { Array(pixels[$0..<$0 + 3]) }
        let redFrames = frames.filter { $0[0] > 200 && $0[1] < 60 && $0[2] < 60 }.count
        XCTAssertGreaterThan(redFrames, 60, "the image camera's 3 s are not in the recording")
        XCTAssertGreaterThan(frames.count - redFrames, 60, "the test pattern's frames are not in the recording")
        XCTAssertEqual(serve.stop().code, 0)
    }

    /// `size=` asks the new camera for other caps: the RTSP consumer decodes both cameras
    /// without a warning, the recording goes on in a second file (recording-stopped for the
    /// first, recording-started for the second), both playable at their own sizes; the
    /// switch back at the same size keeps the second file. A bad size is a 400.
    func testASwitchToAnotherSizeGoesOnInASecondFile() throws {
        let red = try TestPictures(self).plain("red")
        let serve = try ServeProcess(self)
        let events = try EventTap(serve, self)
        XCTAssertEqual(try serve.curl("POST", "/camera?device=test&size=641x480").status, 400)
        let started = try serve.curl("POST", "/recording/start")
        XCTAssertEqual(started.status, 200, started.text)
        let viewer = try FFmpegViewer(serve.rtsp, transport: "tcp", seconds: 8)
        Thread.sleep(forTimeInterval: 2)
        let toImage = try serve.curl("POST", "/camera?device=image:\(red.path)&size=480x360")
        XCTAssertEqual(toImage.status, 200, toImage.text)
        Thread.sleep(forTimeInterval: 2)
        let back = try serve.curl("POST", "/camera?device=test")
        XCTAssertEqual(back.status, 200, back.text)
        let seen = viewer.finish(timeout: 40)
        XCTAssertEqual(seen.warnings, "", "the RTSP consumer warned across the switches")
        XCTAssertGreaterThan(seen.frames, 200, "decoded \(seen.frames) frames in 8 s of 30 fps")
        print("RTSP consumer across a switch to 480x360 and back: \(seen.frames) frames, no warning; restart "
              + "\(try toImage.json()["restartSeconds"] ?? "?") s and \(try back.json()["restartSeconds"] ?? "?") s")
        Thread.sleep(forTimeInterval: 1)
        let stopped = try serve.curl("POST", "/recording/stop")
        XCTAssertEqual(stopped.status, 200, stopped.text)
        let files = try XCTUnwrap(stopped.json()["files"] as? [String], stopped.text)
        XCTAssertEqual(files.count, 2, "one file per caps: \(files)")
        XCTAssertTrue(waitUntil(10) { events.named("recording-stopped").count == 2 }, events.raw)
        XCTAssertEqual(events.named("recording-started").compactMap { $0.data["file"] as? String }, files)
        for (file, size) in zip(files, ["320,240", "480,360"]) {
            let movie = serve.folder.appendingPathComponent(file)
            let decode = try PlumbProcess.run(PlumbProcess.tool("ffmpeg"), ["-v", "warning", "-i", movie.path, "-f", "null", "-"])
            XCTAssertEqual(decode.code, 0, decode.stderr)
            XCTAssertEqual(decode.stderr.trimmingCharacters(in: .whitespacesAndNewlines), "", "\(file) does not play cleanly")
            let probe = try PlumbProcess.run(PlumbProcess.tool("ffprobe"), ["-v", "error", "-select_streams", "v:0", "-show_entries",
                                                                          "stream=width,height", "-of", "csv=p=0", movie.path])
            XCTAssertEqual(probe.stdout.trimmingCharacters(in: .whitespacesAndNewlines), size, file)
        }
        XCTAssertEqual(serve.stop().code, 0)
    }
}
