import Foundation
import GStreamer
@testable import Plumb
import PlumbRotation
@testable import PlumbService
import PlumbTestSupport
import Synchronization
import XCTest

/// The daemon's main encoding passing between its own branch and a recording's encoder.
final class MainEncodingTests: XCTestCase {
    /// A recording's encoder that takes over slowly — slower than the wait for it
    /// (`handoverLimit`, here 1 ms; 5 s in the daemon, which a busy machine outlasted) — still
    /// makes the main branch go once it has taken over: one encoder while it records. When the
    /// recording stops, a new main branch takes over from it, and the stream's subscriber (the
    /// preview, WebRTC viewers) goes on without a frame lost or doubled. Before, the branch
    /// stayed attached, let go of by the handover but still thought to feed the stream, and
    /// once the recording stopped nothing fed it: the browser's video froze. (A linger of 10
    /// minutes: the branch must go because the recording took over, not because it idled.)
    func testASlowHandoverToARecordingStillEndsInOneEncoderAndTheStreamGoesOnAfterIt() async throws {
        let dir = try temporaryDirectory(self)
        let session = try await CaptureSession.open(.testPattern(), size: VideoSize(width: 320, height: 240), rate: FrameRate(30))
        addTeardownBlock { await session.close() }
        let lines = ServeDaemonTests.Lines()
        let recorder = try EventRecorder(settings: .init())  // a 5 s ring: the main encoding runs for it
        let encoding = MainEncoding(preview: EncodedStream(), turned: EncodedStream(), recorder: recorder, ringOn: true,
                                    ownPreviewEncoder: false, angle: .degrees0, linger: .seconds(600), handoverLimit: .milliseconds(1),
                                    log: lines.add)
        let times = Mutex<[ClockTime]>([])
        let subscription = encoding.main.subscribe(name: "viewer") { buffer, _ in
            if let pts = buffer.pts { times.withLock { $0.append(pts) } }
        }
        defer { subscription.cancel() }
        func frames(_ more: Int) async {
            let target = times.withLock { $0.count } + more
            await eventually("\(more) more frames in the main encoding", timeout: .seconds(30)) {
                times.withLock { $0.count } >= target
            }
        }
        func encoders(_ expected: [String]) async -> [String] {
            var last: [String] = []
            await eventually("the running encoders to be \(expected)", timeout: .seconds(30), every: .milliseconds(50)) {
                last = await session.runningEncoders.map(\.kind).sorted()
                return last == expected
            }
            return last
        }
        try await encoding.use(session)
        await frames(15)
        let alone = await encoders(["main"])
        XCTAssertEqual(alone, ["main"])

        var options = RecordingOptions()
        options.feeds = encoding.main
        let recording = try await session.startRecording(to: dir.appendingPathComponent("a.mp4"), options: options)
        let id = ObjectIdentifier(recording)
        _ = try await recording.firstFrameTime()
        await encoding.share.feeding(id)
        let recordingAlone = await encoders(["recording"])
        XCTAssertEqual(recordingAlone, ["recording"], "the main branch went once the recording took over: \(lines.all)")
        await frames(30)

        await encoding.share.stopping(id)
        _ = try await recording.stop()
        let mainAgain = await encoders(["main"])
        XCTAssertEqual(mainAgain, ["main"], "\(lines.all)")
        await frames(30)
        await encoding.stop()

        let got = times.withLock { $0 }
        var gaps: [String] = []
        for (a, b) in zip(got, got.dropFirst()) {
            let frames = Double(Int64(b) - Int64(a)) / (Double(ClockTime.second) / 30)
            if abs(frames - 1) > 0.1 { gaps.append(String(format: "%.2f frames at %d", frames, a)) }
        }
        XCTAssertEqual(gaps, [], "\(got.count) frames: none lost, none doubled")
        XCTAssertEqual(encoding.main.statistics.handovers, 2, "main branch -> recording -> main branch: \(encoding.main.statistics)")
    }
}
