import Foundation
import GStreamer
@testable import Plumb
import PlumbTestSupport
import Synchronization
import XCTest

/// A branch that fails on purpose after a few frames: `identity error-after=N ! fakesink`.
private final class FailingOutput: CaptureOutput {
    let kind = "failing"
    let detached = OneShot<String>()

    func build(in bin: Bin, format: CaptureFormat, camera: CameraSource) throws -> BranchEnds {
        let identity = try Element(factory: "identity", name: "breaker")
        try identity.set("error-after", 5)
        let sink = try Element(factory: "fakesink", name: "sink")
        try bin.add(identity, sink)
        try identity.link(to: sink)
        return BranchEnds(entry: identity, sink: sink)
    }

    func didDetach(error: (any Error)?) {
        detached.succeed(error.map { "\($0)" } ?? "no error")
    }
}

/// A branch whose sink cannot start: a file in a folder that does not exist.
private final class UnstartableOutput: CaptureOutput {
    let kind = "unstartable"
    func build(in bin: Bin, format: CaptureFormat, camera: CameraSource) throws -> BranchEnds {
        let sink = try Element(factory: "filesink", name: "sink")
        try sink.set("location", "/nonexistent-plumb-folder/out.raw")
        try bin.add(sink)
        return BranchEnds(entry: sink, sink: sink)
    }
}

/// A branch whose build throws.
private final class ThrowingOutput: CaptureOutput {
    let kind = "throwing"
    func build(in bin: Bin, format: CaptureFormat, camera: CameraSource) throws -> BranchEnds {
        _ = try Element(factory: "no-such-element-plumb")
        fatalError("unreachable")
    }
}

final class CaptureSessionTests: XCTestCase {
    private let qvga = VideoSize(width: 320, height: 240)

    func testTheTestPatternRunsAtTheRequestedFormat() async throws {
        let session = try await CaptureSession.open(.testPattern(), size: qvga, rate: FrameRate(30))
        let format = await session.format
        XCTAssertEqual(format.size, qvga)
        XCTAssertEqual(format.rate, FrameRate(30))
        try await session.waitForFrames(10)
        let frames = await session.frameCount
        XCTAssertGreaterThanOrEqual(frames, 10)
        await session.close()
        let running = await session.isRunning
        XCTAssertFalse(running)
        do {
            _ = try await session.takePhoto()
            XCTFail("a closed session took a photo")
        } catch CaptureError.closed {
        }
    }

    /// Attach and detach leave the pipeline as it was; the camera keeps running throughout.
    func testAttachAndDetachLeaveNothingBehind() async throws {
        let session = try await CaptureSession.open(.testPattern(), size: qvga)
        let elements = await session.elementCount
        let pads = await session.teePadCount
        XCTAssertEqual(pads, 1, "only the permanent branch")
        let preview = PreviewOutput()
        try await session.attach(preview)
        let attached = await session.attachedBranches
        XCTAssertEqual(attached.count, 1)
        let padsWithPreview = await session.teePadCount
        XCTAssertEqual(padsWithPreview, 2)
        try await session.waitForFrames(10)
        XCTAssertGreaterThan(preview.frameCount, 0)
        do {
            try await session.attach(preview)
            XCTFail("attached twice")
        } catch CaptureError.alreadyAttached {
        }
        try await session.detach(preview)
        let elementsAfter = await session.elementCount
        let padsAfter = await session.teePadCount
        XCTAssertEqual(elementsAfter, elements)
        XCTAssertEqual(padsAfter, pads)
        let framesBefore = await session.frameCount
        try await session.waitForFrames(5)
        let framesAfter = await session.frameCount
        XCTAssertGreaterThan(framesAfter, framesBefore, "the camera stopped")
        do {
            try await session.detach(preview)
            XCTFail("detached twice")
        } catch CaptureError.notAttached {
        }
        await session.close()
    }

    /// An output attached while the session is turned gets the angle before its first frame:
    /// the preview's very first frame is already upright (width and height swapped).
    func testAnOutputGetsTheCurrentRotationBeforeItsFirstFrame() async throws {
        let session = try await CaptureSession.open(.testPattern(), size: qvga)
        await session.setRotation(.degrees90)
        let preview = PreviewOutput()
        try await session.attach(preview)
        XCTAssertEqual(preview.rotation, .degrees90)
        try await session.waitForFrames(5)
        XCTAssertEqual(preview.firstFrameSize, VideoSize(width: 240, height: 320))
        // And a later change reaches attached outputs.
        await session.setRotation(.degrees180)
        XCTAssertEqual(preview.rotation, .degrees180)
        await session.close()
    }

    /// A branch that fails while running is taken down alone: the camera and the other
    /// branches keep every frame.
    func testAFailingBranchDoesNotStopTheSession() async throws {
        // A high rate, so the tee pushes again before the session could react to the bus:
        // only the tee-pad guard keeps the failure from reaching the camera.
        let rate = FrameRate(500)
        let session = try await CaptureSession.open(.testPattern(), size: VideoSize(width: 64, height: 48), rate: rate)
        let preview = PreviewOutput()
        try await session.attach(preview)
        let failing = FailingOutput()
        try await session.attach(failing)
        let reason = try await failing.detached.value(timeout: .seconds(10), what: "the failing branch to go")
        XCTAssertTrue(reason.contains("failing failed"), reason)
        try await session.waitForFrames(100)
        let running = await session.isRunning
        XCTAssertTrue(running)
        let branches = await session.attachedBranches
        XCTAssertEqual(branches.count, 1, "\(branches)")
        let frames = preview.stats
        XCTAssertGreaterThan(frames.count, 15)
        XCTAssertLessThanOrEqual(frames.largestTimestampGap, 2 * rate.frameDuration,
                                 "the preview lost frames when the other branch failed")
        let photo = try await session.takePhoto()
        XCTAssertGreaterThan(photo.jpeg.count, 0)
        await session.close()
    }

    /// The camera failing (as when it is unplugged) ends the session, but a recording in
    /// progress is still finalized, and everyone waiting hears why.
    func testACameraFailureFinalizesRecordingsAndSaysWhy() async throws {
        let dir = try temporaryDirectory(self)
        let session = try await CaptureSession.open(.testPattern(), size: qvga)
        let recording = try await session.startRecording(to: dir.appendingPathComponent("cut.mp4"))
        _ = try await recording.firstFrameTime()
        let framesBefore = recording.progress.frames
        await eventually("12 more frames recorded (\(recording.progress.frames - framesBefore))") { recording.progress.frames >= framesBefore + 12 }
        let found = await session.element(named: "src")
        let src = try XCTUnwrap(found)
        src.postResourceError("Could not read from resource.", debug: "system error: No such device")
        do {
            _ = try await recording.stop()
            XCTFail("the recording did not report the camera failure")
        } catch CaptureError.camera(let error) {
            XCTAssertEqual(error.device, "test")
        }
        let failure = await session.failure
        guard case .camera(let cameraError)? = failure else { return XCTFail("failure: \(String(describing: failure))") }
        XCTAssertEqual(cameraError.device, "test")
        do {
            _ = try await session.takePhoto()
            XCTFail("a failed session took a photo")
        } catch CaptureError.camera {
        }
        await session.close()
        // Finalized: the header lists every frame, and they decode.
        let probe = try XCTUnwrap(Probe.read(recording.url))
        let video = try ProbedVideo(recording.url)
        XCTAssertGreaterThan(video.packets, 8)
        XCTAssertEqual(probe.frames, video.packets)
        XCTAssertGreaterThan(probe.duration, 0.25)
    }

    /// An output that cannot be built or started is refused, and leaves the session as it was.
    func testAFailedAttachLeavesNothingBehind() async throws {
        let session = try await CaptureSession.open(.testPattern(), size: qvga)
        let elements = await session.elementCount
        let pads = await session.teePadCount
        do {
            try await session.attach(UnstartableOutput())
            XCTFail("a sink that cannot open its file was attached")
        } catch CaptureError.pipeline(let error) {
            XCTAssertTrue(error.description.contains("nonexistent-plumb-folder"), error.description)
        }
        do {
            try await session.attach(ThrowingOutput())
            XCTFail("an output whose build throws was attached")
        } catch CaptureError.pipeline(let error) {
            XCTAssertTrue(error.description.contains("no-such-element-plumb"), error.description)
        }
        let elementsAfter = await session.elementCount
        let padsAfter = await session.teePadCount
        XCTAssertEqual(elementsAfter, elements)
        XCTAssertEqual(padsAfter, pads)
        let before = await session.frameCount
        try await session.waitForFrames(5)
        let after = await session.frameCount
        XCTAssertGreaterThan(after, before)
        let running = await session.isRunning
        XCTAssertTrue(running)
        await session.close()
    }
}
