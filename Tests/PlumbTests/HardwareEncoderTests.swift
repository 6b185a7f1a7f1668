import Foundation
import GStreamer
@testable import Plumb
import PlumbTestSupport
import XCTest

/// The encoder choice, the settings mapping, the fallback and the no-copy path, on the
/// hardware stand-ins (`HardwareStandIns`): real pipelines through them, files read by ffprobe.
final class HardwareEncoderTests: XCTestCase {
    private let qvga = VideoSize(width: 320, height: 240)

    override func setUpWithError() throws {
        try HardwareStandIns.register()
    }

    /// Each packet's keyframe flag, as ffprobe reads the file.
    private func keyframeFlags(_ url: URL) throws -> [Bool] {
        try runTool("ffprobe", ["-v", "error", "-select_streams", "v:0", "-show_entries", "packet=flags",
                                "-of", "csv=p=0", url.path])
            .split(separator: "\n").map { $0.hasPrefix("K") }
    }

    private func ffprobeStream(_ url: URL, _ field: String) throws -> String {
        try runTool("ffprobe", ["-v", "error", "-select_streams", "v:0", "-show_entries", "stream=\(field)",
                                "-of", "default=nw=1:nk=1", url.path]).trimmingCharacters(in: .whitespacesAndNewlines)
    }

    private func record(_ name: String, size: VideoSize? = nil, options: RecordingOptions = RecordingOptions(),
                        codec: VideoCodec = .h264, seconds: Double = 1) async throws -> (Recording, RecordingFacts) {
        let dir = try temporaryDirectory(self)
        let session = try await CaptureSession.open(.testPattern(), size: size ?? qvga, rate: FrameRate(30))
        let recording = try await session.startRecording(to: dir.appendingPathComponent(name), codec: codec,
                                                         options: options)
        _ = try await recording.firstFrameTime()
        try await Task.sleep(for: .seconds(seconds))  // a recording of a known length, checked against its file
        let facts = try await recording.stop()
        await session.close()
        return (recording, facts)
    }

    func testTheChoiceGoesBestFirstAndSaysWhyTheOthersWereNotUsed() throws {
        // All unplugged: x264enc, and every better candidate with its reason.
        let software = try EncoderChoice.choose(.h264)
        XCTAssertEqual(software.encoder, "x264enc")
        XCTAssertEqual(software.passedOver.map { String($0.prefix { $0 != ":" }) },
                       ["v4l2h264enc", "vah264enc", "vaapih264enc"])
        XCTAssertTrue(software.passedOver[0].contains("device node \(HardwareStandIns.unplugged) missing"),
                      "\(software.passedOver)")
        XCTAssertTrue(software.passedOver[2].contains("element missing"), "\(software.passedOver)")
        XCTAssertFalse(software.fellBack, "absent hardware is not a fallback")

        try HardwareStandIns.plug("vah264enc", in: self)
        let va = try EncoderChoice.choose(.h264)
        XCTAssertEqual(va.encoder, "vah264enc")
        XCTAssertEqual(va.passedOver.count, 1)

        try HardwareStandIns.plug("v4l2h264enc", in: self)
        let v4l2 = try EncoderChoice.choose(.h264)
        XCTAssertEqual(v4l2.encoder, "v4l2h264enc")
        XCTAssertEqual(v4l2.passedOver, [])

        try HardwareStandIns.plug("v4l2h265enc", in: self)
        XCTAssertEqual(try EncoderChoice.choose(.h265).encoder, "v4l2h265enc")

        // A named encoder is that one, or an error saying why not.
        XCTAssertEqual(try EncoderChoice.choose(.h264, preference: .named("x264enc")).encoder, "x264enc")
        XCTAssertThrowsError(try EncoderChoice.choose(.h264, preference: .named("vaapih264enc"))) { error in
            XCTAssertTrue("\(error)".contains("encoder vaapih264enc cannot be used: element missing"), "\(error)")
        }
        XCTAssertThrowsError(try EncoderPreference(parsing: "nvh264enc")) { error in
            XCTAssertTrue("\(error)".contains("use auto or one of v4l2h264enc"), "\(error)")
        }
    }

    /// The V4L2 encoders get the description as `extra-controls`; a recording through the
    /// stand-in has the keyframe interval and profile asked for, and starts on a keyframe.
    func testV4L2ControlsCarryTheDescriptionIntoTheFile() async throws {
        try HardwareStandIns.plug("v4l2h264enc", in: self)
        let settings = EncodingSettings(bitrate: 600, keyframeInterval: 10, profile: .main, level: "3.1")
        let element = try Element(factory: "v4l2h264enc")
        try settings.apply(to: element, as: try XCTUnwrap(EncoderCandidate.named("v4l2h264enc")))
        guard case .string(let text?) = try element.value(of: "extra-controls") else {
            return XCTFail("no extra-controls")
        }
        // gst_value_serialize gives a structure as a quoted, escaped string.
        let controls = try Structure(text.trimmingCharacters(in: CharacterSet(charactersIn: "\"")).replacingOccurrences(of: "\\", with: ""))
        XCTAssertEqual(controls.int("video_bitrate"), 600_000)
        XCTAssertEqual(controls.int("h264_i_frame_period"), 10)
        XCTAssertEqual(controls.int("h264_profile"), 2)  // V4L2_MPEG_VIDEO_H264_PROFILE_MAIN
        XCTAssertEqual(controls.int("h264_level"), 9)  // V4L2_MPEG_VIDEO_H264_LEVEL_3_1
        XCTAssertEqual(controls.bool("repeat_sequence_header"), true)

        var options = RecordingOptions()
        options.keyframeInterval = 10
        options.bitrate = 600
        options.profile = .main
        let (recording, facts) = try await record("v4l2.mp4", options: options, seconds: 1.5)
        XCTAssertEqual(facts.encoder, "v4l2h264enc")
        XCTAssertNil(facts.encoderPassedOver)
        let keys = try keyframeFlags(recording.url)
        XCTAssertGreaterThan(keys.count, 30)
        XCTAssertTrue(keys[0], "the recording starts on the keyframe forced at its start")
        XCTAssertEqual(keys.indices.filter { keys[$0] }.prefix(3), [0, 10, 20])
        XCTAssertEqual(try ffprobeStream(recording.url, "profile"), "Main")
    }

    /// VA encoders get it through their own properties, and the preview picks the board's
    /// encoder with the zero-latency settings.
    func testVAPropertiesCarryTheDescriptionAndThePreviewUsesTheEncoder() throws {
        try HardwareStandIns.plug("vah264enc", in: self)
        let bin = try Bin(name: "preview")
        let branch = try PreviewEncoding(bitrate: 700, keyframeInterval: 20).build(in: bin)
        XCTAssertEqual(branch.choice.encoder, "vah264enc")
        XCTAssertEqual(try branch.encoder.get("bitrate", as: UInt32.self), 700)
        XCTAssertEqual(try branch.encoder.get("key-int-max", as: UInt32.self), 20)
        XCTAssertEqual(try branch.encoder.get("b-frames", as: UInt32.self), 0)
        XCTAssertEqual(try branch.encoder.get("target-usage", as: UInt32.self), 7)
        XCTAssertEqual(bin.element(named: "preview_profile").flatMap { try? $0.value(of: "caps").description },
                       "video/x-h264, profile=(string)constrained-baseline")
    }

    /// A preview consumer that joins late starts on a keyframe the join asked the stand-in for.
    func testAJoiningConsumerGetsAKeyframeFromTheBoardEncoder() throws {
        try HardwareStandIns.plug("v4l2h264enc", in: self)
        let source = try PreviewTestSource(encoding: PreviewEncoding(keyframeInterval: 3000))
        addTeardownBlock { source.stop() }
        XCTAssertEqual(source.branch.choice.encoder, "v4l2h264enc")
        try source.start()
        eventually("source.frameCount >= 45", timeout: .seconds(10)) { source.frameCount >= 45 }
        let consumer = try EncodedStreamTests.Consumer()
        defer { consumer.stop() }
        try consumer.play()
        try source.stream.subscribe(consumer.source, name: "late")
        eventually("decoded \(consumer.decodedFrames)", timeout: .seconds(15)) { consumer.decodedFrames >= 10 }
        XCTAssertEqual(consumer.buffers.first?.keyframe, true, "the join did not start on a keyframe")
    }

    /// A split on rotation: each file (a fresh branch on the board encoder, asked for a
    /// keyframe before its first frame) starts on a keyframe and has no other — its keyframe
    /// interval is far longer than the test.
    func testASplitGetsAKeyframeFromTheBoardEncoder() async throws {
        try HardwareStandIns.plug("v4l2h264enc", in: self)
        let dir = try temporaryDirectory(self)
        let session = try await CaptureSession.open(.testPattern(), size: qvga, rate: FrameRate(30))
        var options = RecordingOptions()
        options.splitOnRotation = true
        options.keyframeInterval = 3000
        let recording = try await session.startRecording(to: dir.appendingPathComponent("split.mp4"), options: options)
        _ = try await recording.firstFrameTime()
        await eventually("15 frames recorded before the turn") { recording.progress.frames >= 15 }
        await session.setRotation(.degrees90)
        await eventually("a second file after the turn") { recording.segments.count == 2 }
        let framesAtSplit = recording.progress.frames
        await eventually("24 frames recorded after the turn") { recording.progress.frames >= framesAtSplit + 24 }
        let facts = try await recording.stop()
        await session.close()
        XCTAssertEqual(facts.encoder, "v4l2h264enc")
        let files = recording.segments
        XCTAssertEqual(files.count, 2, "\(facts)")
        for file in files {
            XCTAssertEqual(file.choice.encoder, "v4l2h264enc")
            let keys = try keyframeFlags(file.url)
            XCTAssertGreaterThan(keys.count, 5, file.url.lastPathComponent)
            // The first frame is a keyframe; the forced request, sent before it, may land a frame
            // late on a loaded machine (a second keyframe at once), but none comes later.
            let keyframes = keys.indices.filter { keys[$0] }
            XCTAssertEqual(keyframes.first, 0, "\(file.url.lastPathComponent): starts on a keyframe")
            XCTAssertTrue(keyframes.allSatisfy { $0 <= 2 }, "\(file.url.lastPathComponent): keyframes at \(keyframes), only the forced first")
        }
    }

    /// A board encoder that fails at start (its device cannot be opened) is passed over for
    /// the next candidate, and the facts say which one runs and why.
    func testAnEncoderThatFailsAtStartFallsBackAndTheFactsSayWhy() async throws {
        try HardwareStandIns.plug("v4l2h264enc", in: self)
        HardwareStandIns.failAtStart(["v4l2h264enc"], in: self)
        let (recording, facts) = try await record("fallback.mp4")
        XCTAssertEqual(facts.encoder, "x264enc")
        XCTAssertEqual(facts.encoderFallback, true)
        let why = try XCTUnwrap(facts.encoderPassedOver?.first)
        XCTAssertTrue(why.hasPrefix("v4l2h264enc: failed to start"), why)
        XCTAssertTrue(why.contains("Could not open device"), why)
        let json = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(facts.json.utf8)) as? [String: Any])
        XCTAssertEqual(json["encoder_fallback"] as? Bool, true)
        XCTAssertNotNil(json["encoder_passed_over"])
        let video = try ProbedVideo(recording.url)
        XCTAssertEqual(video.codec, "h264")
        XCTAssertEqual(video.packets, facts.frames)
    }

    /// The tee carries I420: an encoder that takes I420 gets the very buffers (no copy); one
    /// that takes only NV12 gets converted copies, and the facts say so.
    func testNoCopyWhenTheEncoderTakesTheFormatAndACountedOneWhenNot() async throws {
        try HardwareStandIns.plug("v4l2h264enc", in: self)
        let (direct, directFacts) = try await record("direct.mp4")
        XCTAssertEqual(directFacts.encoder, "v4l2h264enc")
        XCTAssertGreaterThan(directFacts.frames, 20)
        XCTAssertEqual(direct.output.copiedFrames, 0, "videoconvert copied frames the encoder takes as they are")
        XCTAssertNil(directFacts.pixelConversion)

        try HardwareStandIns.plug("vah264enc", in: self)
        var options = RecordingOptions()
        options.encoder = .named("vah264enc")
        let (converted, convertedFacts) = try await record("nv12.mp4", options: options)
        XCTAssertEqual(convertedFacts.encoder, "vah264enc")
        XCTAssertGreaterThanOrEqual(converted.output.copiedFrames, convertedFacts.frames)
        XCTAssertEqual(convertedFacts.pixelConversion, "I420 -> NV12")
        XCTAssertEqual(try ProbedVideo(converted.url).packets, convertedFacts.frames)
    }

    /// A size the hardware cannot take (sides not multiples of 16) ends that recording with
    /// an error naming the size and the rule; the camera keeps running.
    func testAMisalignedSizeIsReportedAndTheSessionGoesOn() async throws {
        try HardwareStandIns.plug("v4l2h264enc", in: self)
        let dir = try temporaryDirectory(self)
        let session = try await CaptureSession.open(.testPattern(), size: VideoSize(width: 328, height: 200),
                                                    rate: FrameRate(30))
        let recording = try await session.startRecording(to: dir.appendingPathComponent("odd.mp4"))
        do {
            _ = try await recording.firstFrameTime()
            XCTFail("a 328x200 recording started on an encoder that needs multiples of 16")
        } catch {
            XCTAssertTrue("\(error)".contains("328x200 is not supported: width and height must be multiples of 16"),
                          "\(error)")
        }
        try await session.waitForFrames(5)
        await session.close()
    }
}

/// An MJPEG camera's frames are decoded by the board's V4L2 JPEG decoder when it is there.
final class JPEGDecoderChoiceTests: XCTestCase {
    func testTheBoardDecoderWhenPresentElseJpegdec() throws {
        try HardwareStandIns.register()
        let absent = JPEGDecoderChoice.choose()
        XCTAssertEqual(absent.decoder, "jpegdec")
        XCTAssertEqual(absent.passedOver, ["v4l2jpegdec: device node \(HardwareStandIns.unplugged) missing"])

        try HardwareStandIns.plug("v4l2jpegdec", in: self)
        let board = JPEGDecoderChoice.choose()
        XCTAssertEqual(board.decoder, "v4l2jpegdec")
        XCTAssertEqual(board.passedOver, [])
        // It decodes: ten JPEG frames in, ten raw frames out.
        let pipeline = try Pipeline.parse("videotestsrc num-buffers=10 ! video/x-raw,width=320,height=240 ! jpegenc "
            + "! \(board.decoder) name=decode ! video/x-raw ! fakesink name=out")
        addTeardownBlock { try? pipeline.setState(.null) }
        let frames = Counter()
        _ = pipeline.element(named: "out")!.staticPad("sink")!.addProbe(.buffer) { _ in
            frames.increment()
            return .ok
        }
        try pipeline.setState(.playing)
        eventually("decoded \(frames.value)", timeout: .seconds(10)) { frames.value == 10 }
    }
}

/// An encoder that keeps failing while running is passed over for the next candidate.
final class EncoderRunningFailureTests: XCTestCase {
    func testAfterRepeatedFailuresTheNextRecordingRunsOnTheNextEncoder() async throws {
        try HardwareStandIns.plug("v4l2h264enc", in: self)
        HardwareStandIns.failWhileRunning(["v4l2h264enc"], in: self)
        let dir = try temporaryDirectory(self)
        let session = try await CaptureSession.open(.testPattern(), size: VideoSize(width: 320, height: 240),
                                                    rate: FrameRate(30))
        addTeardownBlock { await session.close() }
        for n in 1...EncoderHealth.limit {
            let recording = try await session.startRecording(to: dir.appendingPathComponent("fail-\(n).mp4"))
            XCTAssertEqual(recording.output.choice.encoder, "v4l2h264enc", "attempt \(n)")
            do {
                // It fails by itself a few frames in (nothing stops it here).
                _ = try await recording.output.finished.value(timeout: .seconds(10), what: "the failing recording")
                XCTFail("recording \(n) on the failing encoder did not fail")
            } catch {
                XCTAssertTrue("\(error)".contains("Failed to process frame"), "\(error)")
            }
            XCTAssertTrue(recording.output.factsAfterFailure?.error?.contains("Failed to process frame") == true,
                          "\(String(describing: recording.output.factsAfterFailure))")
        }
        try await session.waitForFrames(5)  // the camera kept running
        let next = try await session.startRecording(to: dir.appendingPathComponent("next.mp4"))
        _ = try await next.firstFrameTime()
        await eventually("15 frames recorded") { next.progress.frames >= 15 }
        let facts = try await next.stop()
        XCTAssertEqual(facts.encoder, "x264enc")
        XCTAssertEqual(facts.encoderFallback, true)
        let why = try XCTUnwrap(facts.encoderPassedOver?.first)
        XCTAssertTrue(why.hasPrefix("v4l2h264enc: failed 2 times while running (last: Failed to process frame."), why)
        XCTAssertEqual(try ProbedVideo(next.url).packets, facts.frames)
    }
}
