import Foundation
import GStreamer
@testable import Plumb
import PlumbTestSupport
import Synchronization
import XCTest

/// A recording's encoder running the main encoding (`RecordingOptions.feeds`): the stream
/// goes from the main branch's encoder to the recording's, from segment to segment at each
/// cut, and back to a main branch, without a frame lost or doubled, and decodes throughout.
final class RecordingFeedsStreamTests: XCTestCase {
    private let qvga = VideoSize(width: 320, height: 240)

    /// What a subscriber of the stream got: each access unit's timestamp and kind, and the
    /// bytes (Annex B) for an outside decoder.
    private final class Collector: Sendable {
        struct Frame: Sendable {
            let pts: ClockTime
            let keyframe: Bool
        }
        let frames = Mutex<[Frame]>([])
        let bytes = Mutex(Data())
        var count: Int { frames.withLock { $0.count } }
    }

    func testTheStreamPassesFromEncoderToEncoderWithoutAFrameLostOrDoubled() async throws {
        let dir = try temporaryDirectory(self)
        let session = try await CaptureSession.open(.testPattern(), size: qvga, rate: FrameRate(30))
        addTeardownBlock { await session.close() }
        let choice = try EncoderChoice.choose(.h264, preference: .auto)
        let stream = EncodedStream()
        let collector = Collector()
        let subscription = stream.subscribe(name: "collector") { buffer, _ in
            guard let pts = buffer.pts else { return }
            collector.frames.withLock { $0.append(.init(pts: pts, keyframe: buffer.isKeyframe)) }
            collector.bytes.withLock { $0.append(buffer.data) }
        }
        defer { subscription.cancel() }
        func mainBranch() -> MainEncodingOutput {
            MainEncodingOutput(choice: choice, stream: stream, onAngle: { _ in }, onDetach: { _ in })
        }
        func frames(_ more: Int) async {
            let target = collector.count + more
            await eventually("\(more) more frames in the stream (\(collector.count) of \(target))", timeout: .seconds(30)) {
                collector.count >= target
            }
        }
        func handedOver() async {
            await eventually("the handover to end", timeout: .seconds(30)) { !stream.isHandingOver }
        }

        // 1. The main branch's encoder feeds the stream.
        let main = mainBranch()
        try await session.attach(main)
        await frames(15)

        // 2. A recording takes over; the main branch goes: one encoder.
        var options = RecordingOptions()
        options.feeds = stream
        let recording = try await session.startRecording(to: dir.appendingPathComponent("a.mp4"), options: options)
        _ = try await recording.firstFrameTime()
        await handedOver()
        try await session.detach(main)
        let encoders = await session.runningEncoders
        XCTAssertEqual(encoders.map(\.kind), ["recording"], "the recording's encoder alone runs: \(encoders)")
        await frames(15)

        // 3. Its next segment takes over at the cut.
        try await session.rollOver(recording, to: dir.appendingPathComponent("b.mp4"))
        await handedOver()
        await frames(15)

        // 4. A main branch takes over again before the recording stops.
        let again = mainBranch()
        try await session.attach(again)
        await handedOver()
        let facts = try await recording.stop()
        await frames(15)
        try await session.detach(again)

        let statistics = stream.statistics
        print("stream: \(statistics.handovers) handovers, \(statistics.handoverKeyframesTooEarly) keyframes too early, "
              + "\(statistics.keyframes) keyframes of \(statistics.frames) frames")
        XCTAssertEqual(statistics.handovers, 3, "main branch -> recording -> its next segment -> main branch")
        let got = collector.frames.withLock { $0 }
        XCTAssertEqual(got.first?.keyframe, true, "the stream starts on a keyframe")
        // One frame every 1/30 s from the first to the last: none lost, none doubled.
        let interval = Double(ClockTime.second) / 30
        var gaps: [String] = []
        for (a, b) in zip(got, got.dropFirst()) {
            let frames = (Double(Int64(b.pts) - Int64(a.pts)) / interval)
            if abs(frames - 1) > 0.1 { gaps.append(String(format: "%.2f frames at %d", frames, a.pts)) }
        }
        XCTAssertEqual(gaps, [], "\(got.count) frames in the stream")
        // The handovers start on keyframes (the recording's first frame, the cut, the main branch's).
        XCTAssertGreaterThanOrEqual(got.filter(\.keyframe).count, 4)

        // The recording's files hold exactly the frames the stream had while it ran.
        let segments = facts.segments ?? [facts]
        XCTAssertEqual(segments.count, 2, "\(facts)")
        var recorded = 0
        for segment in segments { recorded += try IndependentReaders.ffprobeFrameCount(segment.file) }
        XCTAssertEqual(recorded, segments.map(\.frames).reduce(0, +))
        XCTAssertGreaterThan(recorded, 30)

        // An outside decoder reads the whole stream, every frame, without an error.
        let file = dir.appendingPathComponent("stream.h264")
        try collector.bytes.withLock { $0 }.write(to: file)
        let decoded = try PlumbProcess.run(PlumbProcess.tool("ffmpeg"), ["-v", "error", "-f", "h264", "-i", file.path,
                                                                          "-f", "null", "-"])
        XCTAssertEqual(decoded.stderr, "", "ffmpeg's errors decoding the stream")
        XCTAssertEqual(try IndependentReaders.ffprobeFrameCount(file.path), got.count)
    }
}
