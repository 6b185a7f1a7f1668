import Foundation
import GStreamer
@testable import Plumb
import PlumbTestSupport
import XCTest

/// Frames lost before the tee (the camera) and in a recording's branch (a slow encoder) are
/// counted in the facts exactly as ffprobe finds them missing from the file.
final class FrameLossTests: XCTestCase {
    private let qvga = VideoSize(width: 320, height: 240)

    /// ffprobe's frames in the file, and the frame slots at `fps` that hold none: between its
    /// first and last frame, or over `length` seconds from its first frame.
    private func probed(_ url: URL, fps: Double, length: Double? = nil) throws -> (frames: Int, missing: Int) {
        // Each frame's time is the line's first field (the first frame's line has a second, empty one).
        let times = try runTool("ffprobe", ["-v", "error", "-select_streams", "v:0", "-show_entries", "frame=pts_time",
                                            "-of", "csv=p=0", url.path])
            .split(separator: "\n").compactMap { $0.split(separator: ",").first.flatMap { Double($0) } }.sorted()
        guard let first = times.first, let last = times.last else { return (0, 0) }
        let slots = length.map { Int(($0 * fps).rounded()) } ?? Int(((last - first) * fps).rounded()) + 1
        return (times.count, slots - times.count)
    }

    func testACleanRecordingReportsNoLoss() async throws {
        let dir = try temporaryDirectory(self)
        let session = try await CaptureSession.open(.testPattern(), size: qvga, rate: FrameRate(30))
        var options = RecordingOptions()
        options.length = .seconds(2)
        let recording = try await session.startRecording(to: dir.appendingPathComponent("clean.mp4"), options: options)
        try await recording.lengthReached()
        let facts = try await recording.stop()
        let lostAtTee = session.framesLost
        await session.close()

        let file = try probed(recording.url, fps: 30, length: 2)
        XCTAssertEqual(file.frames, facts.frames)
        XCTAssertEqual(file.missing, 0, "the test pattern drops nothing")
        XCTAssertEqual(facts.framesLost, 0)
        XCTAssertEqual(facts.framesLostByCamera, 0)
        XCTAssertEqual(facts.framesLostByEncoder, 0)
        XCTAssertEqual(lostAtTee, 0)
        let json = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(facts.json.utf8)) as? [String: Any])
        XCTAssertEqual(json["frames_lost"] as? Int, 0)
        XCTAssertEqual(json["frames_lost_by_camera"] as? Int, 0)
        XCTAssertEqual(json["frames_lost_by_encoder"] as? Int, 0)
        XCTAssertNil(facts.lossSummary)
    }

    func testFramesTheCameraDropsAreCountedAsTheFileMissesThem() async throws {
        let dir = try temporaryDirectory(self)
        let session = try await CaptureSession.open(.testPattern(), size: qvga, rate: FrameRate(30))
        // The camera drops every fourth frame: gone at its own pad, before anything of Plumb's.
        let source = await session.element(named: "src")
        let src = try XCTUnwrap(source?.staticPad("src"))
        let seen = Counter()
        let dropped = Counter()
        let probe = src.addProbe(.buffer) { _ in
            seen.increment()
            guard seen.value % 4 == 0 else { return .ok }
            dropped.increment()
            return .drop
        }
        var options = RecordingOptions()
        options.length = .seconds(2)
        let recording = try await session.startRecording(to: dir.appendingPathComponent("dropped.mp4"), options: options)
        try await recording.lengthReached()
        let facts = try await recording.stop()
        src.removeProbe(probe)
        let lostAtTee = session.framesLost
        await session.close()

        let file = try probed(recording.url, fps: 30, length: 2)
        XCTAssertEqual(file.frames, facts.frames)
        XCTAssertGreaterThan(file.missing, 10, "every fourth frame of 2 s is missing")
        XCTAssertEqual(facts.framesLost, file.missing, "the facts count what ffprobe finds missing")
        XCTAssertEqual(facts.framesLostByCamera + facts.framesLostByEncoder, facts.framesLost)
        // About a third as many as are in the file; an encoder behind on a busy machine may add its own.
        XCTAssertEqual(Double(facts.framesLostByCamera), Double(facts.frames + facts.framesLostByEncoder) / 3, accuracy: 2)
        XCTAssertGreaterThanOrEqual(lostAtTee, facts.framesLostByCamera)
        XCTAssertLessThanOrEqual(lostAtTee, dropped.value)
        let summary = try XCTUnwrap(facts.lossSummary)
        XCTAssertTrue(summary.contains("the camera dropped \(facts.framesLostByCamera)"), summary)
    }

    func testFramesASlowEncoderLosesAreCountedAsTheFileMissesThem() async throws {
        let dir = try temporaryDirectory(self)
        let session = try await CaptureSession.open(.testPattern(), size: qvga, rate: FrameRate(30))
        let recording = try await session.startRecording(to: dir.appendingPathComponent("slow.mp4"))
        // An encoder taking 100 ms a frame at 30 fps: the branch's leaky queue overflows.
        let branch = await session.branchBin(for: recording.output)
        let bin = try XCTUnwrap(branch)
        let encoderInput = try XCTUnwrap(bin.element(named: "encoder")?.staticPad("sink"))
        let slow = Counter()
        slow.set(1)
        let probe = encoderInput.addProbe(.buffer) { _ in
            if slow.value == 1 { usleep(100_000) }  // the slow encoder under test: 100 ms a frame
            return .ok
        }
        _ = try await recording.firstFrameTime()
        // Until the queue has surely overflowed: 30 frames held, 3 come for each one encoded.
        try await session.waitForFrames(90, timeout: .seconds(30))
        slow.set(0)
        let facts = try await recording.stop()
        encoderInput.removeProbe(probe)
        await session.close()

        let file = try probed(recording.url, fps: 30)
        XCTAssertEqual(file.frames, facts.frames)
        XCTAssertGreaterThan(file.missing, 10, "the queue dropped frames behind the slow encoder")
        XCTAssertEqual(facts.framesLost, file.missing, "the facts count what ffprobe finds missing")
        XCTAssertEqual(facts.framesLostByEncoder, file.missing)
        XCTAssertEqual(facts.framesLostByCamera, 0)
        let summary = try XCTUnwrap(facts.lossSummary)
        XCTAssertTrue(summary.hasPrefix("lost \(facts.framesLost) of \(facts.frames + facts.framesLost) frames"), summary)
    }

    func testGapsCountBySequenceNumbersAndElseByTime() {
        let interval = FrameRate(30).frameDuration
        var gaps = FrameGaps(rate: FrameRate(30))
        // Sequence numbers 0, 1, 4: two missing, whatever the times say about jitter.
        XCTAssertEqual(gaps.add(offset: 0, time: 0), 0)
        XCTAssertEqual(gaps.add(offset: 1, time: interval), 0)
        XCTAssertEqual(gaps.add(offset: 4, time: 4 * interval + interval / 3), 2)
        // Contiguous numbers from a camera slowed down in low light: frames further apart, none lost.
        XCTAssertEqual(gaps.add(offset: 5, time: 6 * interval), 0)
        // An offset that is no frame number (it jumps by thousands while the times step by one).
        XCTAssertEqual(gaps.add(offset: 5000, time: 7 * interval), 0)
        // No offset: the times alone, rounded (jitter of 0.4 intervals is no loss).
        XCTAssertEqual(gaps.add(offset: nil, time: 8 * interval + interval * 2 / 5), 0)
        XCTAssertEqual(gaps.add(offset: nil, time: 12 * interval), 3)
        // A new source numbers from 0 again: the times count.
        XCTAssertEqual(gaps.add(offset: 0, time: 14 * interval), 1)
        XCTAssertEqual(gaps.lost, 6)
        gaps.restart(rate: FrameRate(30))
        XCTAssertEqual(gaps.add(offset: 0, time: 100 * interval), 0, "the step to a restarted source is no loss")
        XCTAssertEqual(gaps.lost, 6)
    }

    /// A V4L2 camera's offsets are its driver's sequence numbers: they alone count, for
    /// v4l2src's times may be its clock at dequeue (it drops driver timestamps it cannot
    /// correlate, as on vivid under emulation) and their jitter would hide skipped numbers.
    func testADriversSequenceNumbersCountWhateverTheTimesSay() {
        let interval = FrameRate(15).frameDuration
        var gaps = FrameGaps(rate: FrameRate(15), numbered: true)
        XCTAssertEqual(gaps.add(offset: 10, time: 0), 0)
        // Number 12 after 10 (one skipped) dequeued only 1.4 intervals later.
        XCTAssertEqual(gaps.add(offset: 12, time: interval * 7 / 5), 1)
        // Three skipped, dequeued 2.4 intervals later.
        XCTAssertEqual(gaps.add(offset: 16, time: interval * 19 / 5), 3)
        // A number repeated (the driver catching up) and a late contiguous one: nothing lost.
        XCTAssertEqual(gaps.add(offset: 16, time: interval * 4), 0)
        XCTAssertEqual(gaps.add(offset: 17, time: interval * 7), 0)
        XCTAssertEqual(gaps.lost, 4)
        // Unnumbered (the default), the same frames count the smaller of the two.
        var plain = FrameGaps(rate: FrameRate(15))
        for (offset, time) in [(10, 0), (12, interval * 7 / 5), (16, interval * 19 / 5)] as [(UInt64, ClockTime)] {
            plain.add(offset: offset, time: time)
        }
        XCTAssertEqual(plain.lost, 1)
    }

    func testARateTheCameraLacksIsRefusedNamingItsRates() throws {
        let caps = try Caps("video/x-raw,format=YUY2,width=1280,height=720,framerate={ (fraction)10/1, (fraction)5/1 }; "
            + "image/jpeg,width=1280,height=720,framerate={ (fraction)30/1, (fraction)15/1 }; "
            + "video/x-raw,format=YUY2,width=640,height=480,framerate=30/1")
        let size = VideoSize(width: 1280, height: 720)
        let modes = ModeChooser.modes(in: caps, requested: size, rate: FrameRate(60))
        let chosen = try XCTUnwrap(ModeChooser.choose(from: modes, size: size, rate: FrameRate(60)))
        let problem = try XCTUnwrap(ModeChooser.rateProblem(chosen: chosen, offered: caps, rate: FrameRate(60)))
        XCTAssertEqual(problem, "60 fps asked for; it gives 1280x720 at 10, 5 fps (YUY2); 30, 15 fps (MJPG)")
        // A rate it has, and 30000/1001 for 30, pass.
        let thirty = try XCTUnwrap(ModeChooser.choose(from: modes, size: size, rate: FrameRate(30)))
        XCTAssertNil(ModeChooser.rateProblem(chosen: thirty, offered: caps, rate: FrameRate(30)))
        XCTAssertNil(ModeChooser.rateProblem(chosen: thirty, offered: caps, rate: FrameRate(30000, 1001)))
    }

    /// On the libcamera stand-in (the same negotiation as a V4L2 camera; it offers 1 to 120
    /// fps): 200 fps asked for is refused naming its rates, or met as near as it can be.
    func testARateTheCameraLacksIsRefusedWhenItMustBeMet() async throws {
        try HardwareStandIns.connectLibcameras(["/base/soc/i2c0mux/i2c@1/imx708@1a"], in: self)
        let source = CameraSource.libcamera("/base/soc/i2c0mux/i2c@1/imx708@1a")
        let vga = VideoSize(width: 640, height: 480)
        do {
            let session = try await CaptureSession.open(source, size: vga, rate: FrameRate(200), exactRate: true)
            await session.close()
            XCTFail("opened at a rate the camera lacks")
        } catch CaptureError.camera(let error) {
            XCTAssertEqual(error.cause, .rateUnavailable)
            XCTAssertTrue(error.description.contains("it cannot give the frame rate asked for"), error.description)
            XCTAssertTrue(error.description.contains("200 fps asked for; it gives 640x480 at 1 to 120 fps (NV12, I420, YUY2)"),
                          error.description)
        }
        let nearest = try await CaptureSession.open(source, size: vga, rate: FrameRate(200))
        let format = await nearest.format
        await nearest.close()
        XCTAssertEqual(format.rate, FrameRate(120))
    }
}
