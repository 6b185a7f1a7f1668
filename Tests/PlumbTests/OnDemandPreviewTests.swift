import Foundation
import GStreamer
@testable import Plumb
import PlumbTestSupport
import XCTest

/// The preview encoder attached to a real capture session only while the stream has a
/// subscriber, with a recording running through every attach and detach.
final class OnDemandPreviewTests: XCTestCase {
    /// A subscriber (`EncodedStreamTests.Consumer`: it decodes) that also keeps the NAL unit
    /// types of the first access unit its appsrc hands on.
    final class Viewer: @unchecked Sendable {  // `first` is only touched under `lock`
        let consumer: EncodedStreamTests.Consumer
        private let lock = NSLock()
        private var first: [Int]?

        init() throws {
            consumer = try EncodedStreamTests.Consumer()
            consumer.pipeline.element(named: "parse")!.staticPad("sink")!.addProbe(.buffer) { [weak self] info in
                let types = info.withBufferBytes { RTSPPackets.nalTypes(in: Array($0)) }
                self?.lock.withLock { if self?.first == nil { self?.first = types } }
                return .ok
            }
        }

        var firstNALTypes: [Int]? { lock.withLock { first } }
    }

    private func open() async throws -> CaptureSession {
        let session = try await CaptureSession.open(.testPattern(), size: VideoSize(width: 320, height: 240),
                                                    rate: FrameRate(30))
        addTeardownBlock { await session.close() }
        return session
    }

    private func hasEncoder(_ session: CaptureSession) async -> Bool {
        await session.element(named: "preview_encoder") != nil
    }

    /// Idle until the first subscriber (no encoder element, no frame encoded), running while
    /// one is subscribed — its first access unit a keyframe with SPS and PPS in front —
    /// and idle again once the last one has been gone for the linger; twice over. The
    /// recording running all along has every frame: no gap across the attaches and detaches.
    func testTheEncoderRunsOnlyWhileSubscribedStartsOnAKeyframeAndTheRecordingLosesNoFrame() async throws {
        let session = try await open()
        let movie = try temporaryDirectory(self).appendingPathComponent("through-attach-and-detach.mp4")
        let recording = try await session.startRecording(to: movie)
        let stream = EncodedStream()
        let preview = OnDemandPreview(stream: stream, linger: .seconds(1))
        await preview.start()
        try await preview.use(session, encoding: PreviewEncoding(keyframeInterval: 3000))
        try await session.waitForFrames(30)
        XCTAssertEqual(preview.state, .idle)
        let encoderAtStart = await hasEncoder(session)
        XCTAssertFalse(encoderAtStart, "an encoder branch with nobody subscribed")
        XCTAssertEqual(stream.statistics.frames, 0)

        for round in 1...2 {
            let viewer = try Viewer()
            try viewer.consumer.play()
            let subscription = try stream.subscribe(viewer.consumer.source, name: "viewer-\(round)")
            await eventually("round \(round): decoded \(viewer.consumer.decodedFrames)", timeout: .seconds(15)) { viewer.consumer.decodedFrames >= 30 }
            XCTAssertEqual(preview.state, .running)
            let encoderWhileWatched = await hasEncoder(session)
            XCTAssertTrue(encoderWhileWatched)
            XCTAssertEqual(viewer.consumer.buffers.first?.keyframe, true)
            let first = try XCTUnwrap(viewer.firstNALTypes)
            let slice = try XCTUnwrap(first.firstIndex(of: 5), "the first access unit holds no IDR slice: \(first)")
            XCTAssertTrue(first[..<slice].contains(7) && first[..<slice].contains(8), "no SPS/PPS in front: \(first)")

            let left = Date()
            subscription.cancel()
            viewer.consumer.stop()
            await eventually("round \(round): still \(preview.state)", timeout: .seconds(15)) { preview.state == .idle }
            XCTAssertGreaterThanOrEqual(Date().timeIntervalSince(left), 0.9, "stopped before the 1 s linger")
            await eventually("round \(round): the encoder element out of the pipeline") { await !hasEncoder(session) }
            XCTAssertEqual(preview.statistics, .init(state: .idle, starts: round, stops: round, failures: 0))
            // Nothing is encoded any more.
            let frames = stream.statistics.frames
            try await session.waitForFrames(15)
            XCTAssertEqual(stream.statistics.frames, frames)
        }

        _ = try await recording.stop()
        await preview.stop()
        let times = try packetTimes(movie.path)
        let duration = (times.last ?? 0) - (times.first ?? 0)
        XCTAssertGreaterThan(duration, 3, "\(times.count) frames")
        XCTAssertEqual(Double(times.count - 1), duration * 30, accuracy: 1, "frames lost or doubled")
        let widest = zip(times, times.dropFirst()).map { $1 - $0 }.max() ?? 0
        print("on-demand preview: recording of \(times.count) frames over \(duration) s, widest gap \(widest) s")
        XCTAssertLessThan(widest, 1.5 / 30, "a frame is missing from the recording")
    }

    /// A subscriber that comes back within the linger finds the encoder still running: no
    /// second start.
    func testAConsumerBackWithinTheLingerFindsTheEncoderRunning() async throws {
        let session = try await open()
        let stream = EncodedStream()
        let preview = OnDemandPreview(stream: stream, linger: .seconds(4))
        await preview.start()
        try await preview.use(session, encoding: PreviewEncoding())
        let first = try Viewer()
        try first.consumer.play()
        let subscription = try stream.subscribe(first.consumer.source, name: "first")
        await eventually("first.consumer.decodedFrames >= 10", timeout: .seconds(15)) { first.consumer.decodedFrames >= 10 }
        subscription.cancel()
        first.consumer.stop()
        try await Task.sleep(for: .seconds(1))  // the thing tested: a return a while into the linger
        let again = try Viewer()
        try again.consumer.play()
        let back = try stream.subscribe(again.consumer.source, name: "again")
        defer {
            back.cancel()
            again.consumer.stop()
        }
        await eventually("again.consumer.decodedFrames >= 10", timeout: .seconds(15)) { again.consumer.decodedFrames >= 10 }
        XCTAssertEqual(again.consumer.buffers.first?.keyframe, true, "a returning subscriber starts on a keyframe too")
        // Past the first linger's end: still running, started once.
        try await Task.sleep(for: .seconds(4))  // the thing tested: nothing stops it over the first linger's end
        XCTAssertEqual(preview.statistics, .init(state: .running, starts: 1, stops: 0, failures: 0))
        await preview.stop()
    }

    /// `alwaysOn`: the branch is attached with nobody subscribed, as before on-demand.
    func testAlwaysOnEncodesWithNobodySubscribed() async throws {
        let session = try await open()
        let stream = EncodedStream()
        let preview = OnDemandPreview(stream: stream, linger: .seconds(1), alwaysOn: true)
        await preview.start()
        try await preview.use(session, encoding: PreviewEncoding())
        XCTAssertEqual(preview.state, .running)
        await eventually("stream.statistics.frames >= 30", timeout: .seconds(10)) { stream.statistics.frames >= 30 }
        try await Task.sleep(for: .milliseconds(1500))  // the thing tested: it stays running with nobody subscribed
        XCTAssertEqual(preview.statistics, .init(state: .running, starts: 1, stops: 0, failures: 0))
        await preview.stop()
    }

    /// The timestamps of a file's video packets, in order.
    private func packetTimes(_ path: String) throws -> [Double] {
        let r = try PlumbProcess.run(PlumbProcess.tool("ffprobe"), ["-v", "error", "-select_streams", "v:0",
                                                                  "-show_entries", "packet=pts_time", "-of", "csv=p=0", path])
        return r.stdout.split(separator: "\n").compactMap { Double($0.trimmingCharacters(in: .punctuationCharacters)) }
            .sorted()
    }
}
