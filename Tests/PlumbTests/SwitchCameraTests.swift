import Foundation
import GLib
import GStreamer
@testable import Plumb
import PlumbTestSupport
import XCTest

/// `switchCamera(to:)`: only the source is rebuilt; a recording running through the switch
/// stays one playable file with both cameras' frames; a camera that cannot open leaves the
/// old one running.
final class SwitchCameraTests: XCTestCase {
    /// The mean red and blue of the frame at `seconds` (ffmpeg decodes it to 1x1 RGB).
    private func colour(_ path: String, at seconds: Double) throws -> [UInt8] {
        let out = try temporaryDirectory(self).appendingPathComponent("px-\(seconds).rgb")
        let r = try PlumbProcess.run(PlumbProcess.tool("ffmpeg"), ["-v", "error", "-y", "-ss", String(seconds), "-i", path,
                                                                 "-frames:v", "1", "-vf", "scale=1:1:flags=area",
                                                                 "-f", "rawvideo", "-pix_fmt", "rgb24", out.path])
        XCTAssertEqual(r.code, 0, r.stderr)
        // A frame ffmpeg could not decode is a failed assertion, not an index out of range.
        let rgb = Array(try Data(contentsOf: out).prefix(3))
        return try XCTUnwrap(rgb.count == 3 ? rgb : nil, "ffmpeg gave no frame at \(seconds) s")
    }

    func testPatternToImageAndBackWithARecordingRunning() async throws {
        let red = try CameraSource.resolve("image:" + (try TestPictures(self).plain("red")).path)
        let session = try await CaptureSession.open(.testPattern(), size: VideoSize(width: 320, height: 240), rate: FrameRate(30))
        addTeardownBlock { await session.close() }
        let movie = try temporaryDirectory(self).appendingPathComponent("switch.mp4")
        let recording = try await session.startRecording(to: movie)
        let teePads = await session.teePadCount
        try await session.waitForFrames(30, timeout: .seconds(30))
        let toImage = try await session.switchCamera(to: red)
        XCTAssertEqual(toImage.from, "test")
        XCTAssertEqual(session.camera, red)
        try await session.waitForFrames(45, timeout: .seconds(30))
        let back = try await session.switchCamera(to: .testPattern())
        XCTAssertEqual(back.to, "test")
        try await session.waitForFrames(30, timeout: .seconds(30))
        // The outputs were not rebuilt: the same tee pads, the same recording.
        let padsAfter = await session.teePadCount
        XCTAssertEqual(padsAfter, teePads)
        let attached = await session.attachedBranches
        XCTAssertEqual(attached.count, 1)
        _ = try await recording.stop()
        print("camera switch restart times: to image \(toImage.restartSeconds) s, back \(back.restartSeconds) s")

        // One playable file (ffmpeg decodes all of it without a word) holding both cameras.
        let decode = try PlumbProcess.run(PlumbProcess.tool("ffmpeg"), ["-v", "warning", "-i", movie.path, "-f", "null", "-"])
        XCTAssertEqual(decode.code, 0, decode.stderr)
        XCTAssertEqual(decode.stderr.trimmingCharacters(in: .whitespacesAndNewlines), "")
        let times = try IndependentReaders.ffprobeFrameTimes(movie.path)
        XCTAssertGreaterThanOrEqual(times.count, 90)
        let start = try XCTUnwrap(times.first, "ffprobe read no frame"), end = times.last!
        // No frame lost beyond each source's own restart time (plus two frame intervals).
        let gaps = zip(times, times.dropFirst()).map { $1 - $0 }
        let allowed = max(toImage.restartSeconds, back.restartSeconds) + 2.0 / 30
        print("recording through two switches: \(times.count) frames, largest gap \(gaps.max() ?? 0) s")
        XCTAssertLessThanOrEqual(gaps.max() ?? 0, allowed, "largest gap \(gaps.max() ?? 0) s")
        XCTAssertTrue(gaps.allSatisfy { $0 > 0 }, "timestamps go back at a switch")
        // On one frame grid across both switches (a whole number of intervals apart, within
        // the file's 1/3000 s): off it, readers guess 120 or 240 fps and ffmpeg, falling back
        // on the average rate, puts two frames in one slot now and then.
        let offGrid = gaps.filter { abs($0 * 30 - ($0 * 30).rounded()) > 30.0 / 3000 }
        XCTAssertEqual(offGrid, [], "frames off the 30 fps grid after a switch")
        // The red image's frames are in the middle of it; the pattern's at both ends.
        let middle = try colour(movie.path, at: (start + end) / 2)
        XCTAssertGreaterThan(middle[0], 200, "\(middle)")
        XCTAssertLessThan(middle[1], 60, "\(middle)")
        let last = try colour(movie.path, at: end - 0.1)
        XCTAssertFalse(last[0] > 200 && last[1] < 60 && last[2] < 60, "the last frame is still the red image: \(last)")

        // Each camera's first frame in the file is a keyframe (the encoder was asked for one).
        let rgb = try temporaryDirectory(self).appendingPathComponent("frames.rgb")
        let d = try PlumbProcess.run(PlumbProcess.tool("ffmpeg"), ["-v", "error", "-y", "-i", movie.path, "-fps_mode", "passthrough",
                                                                 "-vf", "scale=1:1:flags=area", "-f", "rawvideo", "-pix_fmt", "rgb24", rgb.path])
        XCTAssertEqual(d.code, 0, d.stderr)
        let pixels = [UInt8](try Data(contentsOf: rgb))
        let isRed = stride(from: 0, to: pixels.count - 2, by: 3).map { pixels[$0] > 200 && pixels[$0 + 1] < 60 && pixels[$0 + 2] < 60 }
        let k = try PlumbProcess.run(PlumbProcess.tool("ffprobe"), ["-v", "error", "-select_streams", "v:0",
                                                                  "-show_entries", "frame=key_frame", "-of", "csv=p=0", movie.path])
        let keys = k.stdout.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) == "1" }
        XCTAssertEqual(keys.count, isRed.count)
        let firstRed = try XCTUnwrap(isRed.firstIndex(of: true)), afterRed = try XCTUnwrap(isRed.lastIndex(of: true)) + 1
        XCTAssertTrue(isRed[firstRed..<afterRed].allSatisfy { $0 }, "the image camera's frames are not one run")
        print("keyframes at \(keys.indices.filter { keys[$0] }), the image camera from \(firstRed) to \(afterRed - 1)")
        // Looked up within the frames ffprobe listed: a short or corrupt file fails, never traps.
        let isKey = { (i: Int) in keys.indices.contains(i) && keys[i] }
        XCTAssertTrue(isKey(firstRed), "the image camera's first frame (\(firstRed)) is not a keyframe")
        XCTAssertTrue(isKey(afterRed), "the pattern's first frame after the switch back (\(afterRed)) is not a keyframe")
    }

    /// A switch to a camera of other caps (the image at 480x360 while the session ran at
    /// 320x240) with an RTSP consumer and a recording: the consumer decodes both cameras
    /// without a warning; the recording goes on in a second file from the new camera's
    /// first frame, both files playable, with no frame lost beyond the source's restart.
    /// The switch back to the pattern at the same 480x360 keeps the second file.
    func testASwitchToOtherCapsGoesOnInANewFileAndTheSameCapsInTheSameFile() async throws {
        let red = try CameraSource.resolve("image:" + (try TestPictures(self).plain("red")).path)
        let session = try await CaptureSession.open(.testPattern(), size: VideoSize(width: 320, height: 240), rate: FrameRate(30))
        addTeardownBlock { await session.close() }
        let output = EncodedPreviewOutput(encoding: PreviewEncoding(keyframeInterval: 3000))
        try await session.attach(output)
        let preview = try ServedPreview.start(self, stream: output.stream)
        let movie = try temporaryDirectory(self).appendingPathComponent("switch-caps.mp4")
        let recording = try await session.startRecording(to: movie)
        let viewer = try FFmpegViewer(preview.url, transport: "tcp", seconds: 6)
        try await session.waitForFrames(45, timeout: .seconds(30))
        let larger = VideoSize(width: 480, height: 360)
        let toImage = try await session.switchCamera(to: red, size: larger)
        let switchedSize = await session.format.size
        XCTAssertEqual(switchedSize, larger)
        try await session.waitForFrames(60, timeout: .seconds(30))
        let back = try await session.switchCamera(to: .testPattern(), size: larger)
        try await session.waitForFrames(45, timeout: .seconds(30))
        let seen = viewer.finish(timeout: 40)
        let segments = recording.segments
        let spans = segments.map(\.frameSpan)
        _ = try await recording.stop()
        print("camera switch to other caps: restart \(toImage.restartSeconds) s, back (same caps) \(back.restartSeconds) s; "
              + "RTSP consumer \(seen.frames) frames; files \(recording.urls.map(\.lastPathComponent))")
        XCTAssertEqual(seen.warnings, "", "the RTSP consumer warned across the switches")
        XCTAssertGreaterThan(seen.frames, 120, "decoded \(seen.frames) frames in 6 s of 30 fps")

        // Two files: the pattern's at 320x240, then the image's and the pattern's at 480x360.
        XCTAssertEqual(recording.urls.count, 2, "\(recording.urls)")
        guard recording.urls.count == 2 else { return }
        for (url, size) in zip(recording.urls, [VideoSize(width: 320, height: 240), larger]) {
            let decode = try PlumbProcess.run(PlumbProcess.tool("ffmpeg"), ["-v", "warning", "-i", url.path, "-f", "null", "-"])
            XCTAssertEqual(decode.code, 0, decode.stderr)
            XCTAssertEqual(decode.stderr.trimmingCharacters(in: .whitespacesAndNewlines), "", "\(url.lastPathComponent) does not play cleanly")
            let probe = try PlumbProcess.run(PlumbProcess.tool("ffprobe"), ["-v", "error", "-select_streams", "v:0", "-show_entries",
                                                                          "stream=width,height", "-of", "csv=p=0", url.path])
            XCTAssertEqual(probe.stdout.trimmingCharacters(in: .whitespacesAndNewlines), "\(size.width),\(size.height)")
        }
        let first = try IndependentReaders.ffprobeFrameTimes(recording.urls[0].path), second = try IndependentReaders.ffprobeFrameTimes(recording.urls[1].path)
        XCTAssertGreaterThanOrEqual(first.count, 30)
        XCTAssertGreaterThanOrEqual(second.count, 90)
        // The second file starts with the red image, its end is the pattern again.
        let start = try colour(recording.urls[1].path, at: second.first!)
        XCTAssertTrue(start[0] > 200 && start[1] < 60, "the second file does not start with the image: \(start)")
        let end = try colour(recording.urls[1].path, at: second.last! - 0.1)
        XCTAssertFalse(end[0] > 200 && end[1] < 60 && end[2] < 60, "the last frame is still the red image: \(end)")
        XCTAssertFalse(try colour(recording.urls[0].path, at: first.last!)[0] > 200, "the image is in the first file")

        // No frame lost beyond the restart: within each file, and from the first file's last
        // frame to the second's first (by the frames' running time).
        let interval = 1.0 / 30
        for (name, times, restart) in [("first", first, 0.0), ("second", second, back.restartSeconds)] {
            let widest = zip(times, times.dropFirst()).map { $1 - $0 }.max() ?? 0
            XCTAssertLessThanOrEqual(widest, restart + 2 * interval, "the \(name) file has a gap of \(widest) s")
        }
        let cut = try XCTUnwrap(spans[1]).first - (try XCTUnwrap(spans[0]).last)
        let cutSeconds = Double(cut) / Double(ClockTime.second)
        print("from the first file's last frame to the second's first: \(cutSeconds) s")
        XCTAssertGreaterThan(cutSeconds, 0)
        XCTAssertLessThanOrEqual(cutSeconds, toImage.restartSeconds + 2 * interval)
    }

    /// A switch to other caps asked for while the recording is moving to its next segment
    /// waits for that move, then moves the new segment: each frame in one file, every file
    /// playable at one size.
    func testASwitchDuringASegmentRollWaitsForIt() async throws {
        let red = try CameraSource.resolve("image:" + (try TestPictures(self).plain("red")).path)
        let session = try await CaptureSession.open(.testPattern(), size: VideoSize(width: 320, height: 240), rate: FrameRate(30))
        addTeardownBlock { await session.close() }
        let folder = try temporaryDirectory(self)
        let recording = try await session.startRecording(to: folder.appendingPathComponent("one.mp4"))
        try await session.waitForFrames(15, timeout: .seconds(30))
        // The cut 2 s after the first frame: the roll waits for it while the switch is asked for.
        let roll = Task { try await session.rollOver(recording, to: folder.appendingPathComponent("two.mp4"), fileLength: .seconds(2)) }
        try await Task.sleep(for: .milliseconds(200))  // the switch comes while the roll waits for its cut (nothing shows that wait)
        let larger = VideoSize(width: 480, height: 360)
        _ = try await session.switchCamera(to: red, size: larger)
        let second = try await roll.value
        XCTAssertEqual(second.url.lastPathComponent, "two.mp4")
        try await session.waitForFrames(30, timeout: .seconds(30))
        _ = try await recording.stop()
        let urls = recording.urls
        XCTAssertEqual(urls.map(\.lastPathComponent), ["one.mp4", "two.mp4", "two-2.mp4"])
        var frames = 0
        for (url, size) in zip(urls, ["320,240", "320,240", "480,360"]) {
            let decode = try PlumbProcess.run(PlumbProcess.tool("ffmpeg"), ["-v", "warning", "-i", url.path, "-f", "null", "-"])
            XCTAssertEqual(decode.stderr.trimmingCharacters(in: .whitespacesAndNewlines), "", "\(url.lastPathComponent) does not play cleanly")
            let probe = try PlumbProcess.run(PlumbProcess.tool("ffprobe"), ["-v", "error", "-select_streams", "v:0", "-show_entries",
                                                                          "stream=width,height", "-of", "csv=p=0", url.path])
            XCTAssertEqual(probe.stdout.trimmingCharacters(in: .whitespacesAndNewlines), size, url.lastPathComponent)
            frames += try IndependentReaders.ffprobeFrameTimes(url.path).count
        }
        // The three files' frames follow each other in running time: none in two files.
        let spans = recording.segments.compactMap(\.frameSpan)
        XCTAssertEqual(spans.count, 3)
        for (a, b) in zip(spans, spans.dropFirst()) { XCTAssertLessThan(a.last, b.first, "\(spans)") }
        print("switch during a segment roll: files \(urls.map(\.lastPathComponent)), \(frames) frames")
    }

    func testAMissingDeviceLeavesTheOldCameraRunning() async throws {
        let session = try await CaptureSession.open(.testPattern(), size: VideoSize(width: 320, height: 240), rate: FrameRate(30))
        addTeardownBlock { await session.close() }
        let missing = CameraDevice(path: "/dev/video-plumb-missing", name: "missing")
        do {
            try await session.switchCamera(to: .device(missing))
            XCTFail("a switch to a missing device succeeded")
        } catch let CaptureError.camera(error) {
            XCTAssertEqual(error.device, "/dev/video-plumb-missing")
            XCTAssertEqual(error.cause, .notFound, "\(error)")
        }
        XCTAssertEqual(session.camera, .testPattern())
        let running = await session.isRunning
        XCTAssertTrue(running)
        try await session.waitForFrames(30, timeout: .seconds(30))
    }
}
