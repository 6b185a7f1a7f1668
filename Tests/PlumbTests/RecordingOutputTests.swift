import Foundation
import GStreamer
@testable import Plumb
@testable import PlumbLocation
import PlumbTestSupport
import Synchronization
import XCTest
import PlumbRotation

/// Records the calls the rotation work's matrix writer would get.
private final class RecordingMatrixWriter: TrackMatrixWriter {
    let angles = Mutex<[RotationAngle]>([])
    func install(on muxerSource: Pad, angle: RotationAngle) throws {
        XCTAssertEqual(muxerSource.direction, .src)
        angles.withLock { $0.append(angle) }
    }
}

/// Holds the test pattern's frames back while closed.
private final class Gate: Sendable {
    let closed = Mutex(true)
}

/// Recordings on the running session, checked with ffprobe.
final class RecordingOutputTests: XCTestCase {
    private let qvga = VideoSize(width: 320, height: 240)

    func testARecordingIsAValidMP4AndTheSessionKeepsRunning() async throws {
        let dir = try temporaryDirectory(self)
        let session = try await CaptureSession.open(.testPattern(), size: qvga, rate: FrameRate(30))
        let recording = try await session.startRecording(to: dir.appendingPathComponent("one.mp4"))
        _ = try await recording.firstFrameTime()
        let framesBefore = recording.progress.frames
        await eventually("30 more frames recorded (\(recording.progress.frames - framesBefore))") { recording.progress.frames >= framesBefore + 30 }
        let facts = try await recording.stop()
        let framesAtStop = await session.frameCount
        try await session.waitForFrames(5)
        let framesLater = await session.frameCount
        XCTAssertGreaterThan(framesLater, framesAtStop, "the session stopped with the recording")
        await session.close()

        let video = try ProbedVideo(recording.url)
        XCTAssertEqual(video.codec, "h264")
        XCTAssertEqual(video.width, 320)
        XCTAssertEqual(video.height, 240)
        XCTAssertEqual(video.packets, facts.frames)
        XCTAssertTrue(video.firstPacketIsKeyframe)
        XCTAssertEqual(video.seconds, facts.seconds, accuracy: 0.05)
        XCTAssertGreaterThan(facts.seconds, 0.9)
        // A finalized (non-fragmented-only) file: the header knows every frame.
        let probe = try XCTUnwrap(Probe.read(recording.url))
        XCTAssertEqual(probe.frames, facts.frames)
        XCTAssertEqual(probe.duration, facts.seconds, accuracy: 0.05)

        let size = try FileManager.default.attributesOfItem(atPath: recording.url.path)[.size] as? Int
        XCTAssertEqual(facts.bytes, size)
        XCTAssertEqual(facts.codec, "h264")
        XCTAssertEqual(facts.encoder, "x264enc")
        XCTAssertEqual(facts.width, 320)
        XCTAssertEqual(facts.height, 240)
        let json = try JSONSerialization.jsonObject(with: Data(facts.json.utf8)) as? [String: Any]
        for key in ["codec", "width", "height", "seconds", "frames", "bytes", "started_at"] {
            XCTAssertNotNil(json?[key], "facts lack \(key)")
        }
        // The kernel's word on the wall clock when the first frame's date was read (adjtimex).
        XCTAssertEqual(json?["clock_synchronized"] as? Bool, WallClock.isSynchronized())
        // Stopping again gives the same facts.
        let again = try await recording.stop()
        XCTAssertEqual(again, facts)
    }

    func testH265() async throws {
        let dir = try temporaryDirectory(self)
        let session = try await CaptureSession.open(.testPattern(), size: qvga)
        let recording = try await session.startRecording(to: dir.appendingPathComponent("hevc.mp4"), codec: .h265)
        XCTAssertEqual(recording.codec, .h265)
        _ = try await recording.firstFrameTime()
        let framesBefore = recording.progress.frames
        await eventually("15 more frames recorded (\(recording.progress.frames - framesBefore))") { recording.progress.frames >= framesBefore + 15 }
        let facts = try await recording.stop()
        await session.close()
        XCTAssertEqual(facts.codec, "h265")
        let video = try ProbedVideo(recording.url)
        XCTAssertEqual(video.codec, "hevc")
        XCTAssertEqual(video.packets, facts.frames)
        XCTAssertTrue(video.firstPacketIsKeyframe)
    }

    /// A machine without x265enc still records, in H.264, and says so.
    func testAMissingEncoderFallsBackAndTheFactsSaySo() async throws {
        let dir = try temporaryDirectory(self)
        var options = RecordingOptions()
        options.isAvailable = { $0 != "x265enc" && Gst.hasElement($0) }
        let session = try await CaptureSession.open(.testPattern(), size: qvga)
        let recording = try await session.startRecording(to: dir.appendingPathComponent("fallback.mp4"),
                                                         codec: .h265, options: options)
        XCTAssertEqual(recording.codec, .h264)
        _ = try await recording.firstFrameTime()
        let facts = try await recording.stop()
        await session.close()
        XCTAssertEqual(facts.codec, "h264")
        XCTAssertEqual(try ProbedVideo(recording.url).codec, "h264")

        XCTAssertEqual(try EncoderChoice.choose(.h264, available: { $0 == "openh264enc" || $0 == "h264parse" }).encoder,
                       "openh264enc")
        XCTAssertThrowsError(try EncoderChoice.choose(.h264, available: { _ in false })) { error in
            XCTAssertTrue("\(error)".contains("no H.264 or H.265 encoder"), "\(error)")
        }
    }

    func testAnUnwritableTargetIsRefusedAndLeavesNoFile() async throws {
        let dir = try temporaryDirectory(self)
        let session = try await CaptureSession.open(.testPattern(), size: qvga)
        let missingFolder = dir.appendingPathComponent("no/such/folder/x.mp4")
        for target in [missingFolder, dir] {
            do {
                _ = try await session.startRecording(to: target)
                XCTFail("\(target.path) accepted")
            } catch CaptureError.unwritable(let path, let reason) {
                XCTAssertEqual(path, target.path)
                XCTAssertFalse(reason.isEmpty)
            }
        }
        let branches = await session.attachedBranches
        XCTAssertEqual(branches, [])
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: dir.path), [])
        await session.close()
    }

    /// The file starts at the request: its first frame is within one frame interval of it
    /// (measured on the pipeline clock: the request's running time against the first
    /// recorded frame's).
    func testTheFirstFrameIsWithinOneFrameIntervalOfTheRequest() async throws {
        let dir = try temporaryDirectory(self)
        let rate = FrameRate(30)
        let session = try await CaptureSession.open(.testPattern(), size: qvga, rate: rate)
        for i in 0..<5 {
            try await Task.sleep(for: .milliseconds(50 + 37 * i))  // the thing tested: requests at varying phases of the frame clock
            let recording = try await session.startRecording(to: dir.appendingPathComponent("start\(i).mp4"))
            let first = try await recording.firstFrameTime()
            let request = try XCTUnwrap(recording.requestTime)
            let delta = Double(Int64(first) - Int64(request)) / 1e6
            XCTAssertLessThanOrEqual(abs(delta), Double(rate.frameDuration) / 1e6,
                                     "recording \(i): first frame \(delta) ms from the request")
            _ = try await recording.stop()
            XCTAssertTrue(try ProbedVideo(recording.url).firstPacketIsKeyframe)
        }
        await session.close()
    }

    /// The angle at the start is latched for the whole file and handed to the matrix hook.
    func testTheAngleIsLatchedAtTheStart() async throws {
        let dir = try temporaryDirectory(self)
        let writer = RecordingMatrixWriter()
        var options = RecordingOptions()
        options.matrixWriter = writer
        let session = try await CaptureSession.open(.testPattern(), size: qvga)
        await session.setRotation(.degrees90)
        let recording = try await session.startRecording(to: dir.appendingPathComponent("turned.mp4"), options: options)
        _ = try await recording.firstFrameTime()
        await session.setRotation(.degrees180)
        let facts = try await recording.stop()
        await session.close()
        XCTAssertEqual(facts.orientation, 90)
        XCTAssertEqual(writer.angles.withLock { $0 }, [.degrees90])
        // Pixels are not turned: the stream keeps the camera's size.
        let video = try ProbedVideo(recording.url)
        XCTAssertEqual(video.width, 320)
        XCTAssertEqual(video.height, 240)
    }

    /// Closing the session finalizes a recording still running.
    func testClosingTheSessionFinalizesARecording() async throws {
        let dir = try temporaryDirectory(self)
        let session = try await CaptureSession.open(.testPattern(), size: qvga)
        let recording = try await session.startRecording(to: dir.appendingPathComponent("closed.mp4"))
        _ = try await recording.firstFrameTime()
        let framesBefore = recording.progress.frames
        await eventually("12 more frames recorded (\(recording.progress.frames - framesBefore))") { recording.progress.frames >= framesBefore + 12 }
        await session.close()
        let facts = try await recording.stop()
        let probe = try XCTUnwrap(Probe.read(recording.url))
        XCTAssertEqual(probe.frames, facts.frames)
        XCTAssertGreaterThan(facts.frames, 5)
    }

    /// A recording stopped before any frame reached it leaves no file: mp4mux's header alone
    /// (an empty track: ffprobe cannot open it, "invalid STSD entries 0") would be a file no
    /// reader plays, moved to damaged/ by the daemon's next start-up repair. The frames are
    /// held back at the tee, so no frame can come between the start and the stop; a recording
    /// after them keeps its file.
    func testARecordingStoppedBeforeItsFirstFrameLeavesNoFile() async throws {
        let dir = try temporaryDirectory(self)
        let session = try await CaptureSession.open(.testPattern(), size: qvga)
        let tee = await session.element(named: "tee")
        let teeInput = try XCTUnwrap(tee?.staticPad("sink"))
        let gate = Gate()
        let probe = teeInput.addProbe(.buffer) { _ in gate.closed.withLock { $0 } ? .drop : .ok }
        let empty = dir.appendingPathComponent("empty.mp4")
        let recording = try await session.startRecording(to: empty)
        let facts = try await recording.stop()
        XCTAssertEqual(facts.frames, 0)
        XCTAssertFalse(FileManager.default.fileExists(atPath: empty.path), "a header without a frame is no recording")

        gate.closed.withLock { $0 = false }
        teeInput.removeProbe(probe)
        let kept = dir.appendingPathComponent("kept.mp4")
        let second = try await session.startRecording(to: kept)
        _ = try await second.firstFrameTime()
        let secondFacts = try await second.stop()
        await session.close()
        XCTAssertGreaterThan(secondFacts.frames, 0)
        XCTAssertEqual(try IndependentReaders.ffprobeFrameCount(kept.path), secondFacts.frames)
    }

    /// A file whose branch failed is counted by reading it back. One with bytes no reader can
    /// count says why in its facts' error (it was a silent 0 frames); one never written holds
    /// no frame and says only the cause.
    func testAFailedFileThatCannotBeCountedSaysWhy() throws {
        let dir = try temporaryDirectory(self)
        let url = dir.appendingPathComponent("broken.mp4")
        let output = try RecordingOutput(url: url)
        // A movie header whose only child box runs past it.
        var bytes = Data([0, 0, 0, 16]) + Data("moov".utf8) + Data([0, 0, 0x10, 0]) + Data("trak".utf8)
        bytes += Data(repeating: 0, count: 8)
        try bytes.write(to: url)
        output.didDetach(error: CaptureError.closed)
        let facts = try XCTUnwrap(output.factsAfterFailure)
        XCTAssertEqual(facts.frames, 0)
        XCTAssertTrue(facts.error?.hasPrefix("\(CaptureError.closed)") == true, facts.error ?? "nil")
        XCTAssertTrue(facts.error?.contains("its frames could not be counted") == true, facts.error ?? "nil")

        let never = try RecordingOutput(url: dir.appendingPathComponent("never.mp4"))
        never.didDetach(error: CaptureError.closed)
        XCTAssertEqual(never.factsAfterFailure?.error, "\(CaptureError.closed)")
        XCTAssertEqual(never.factsAfterFailure?.frames, 0)
    }
}
