import Foundation
import Plumb
import Synchronization
import PlumbRotation

/// `plumb-bench rotation-latency`: how long a turn of the device takes to show in the
/// preview, printed as numbers.
///
/// A replayed accelerometer turns the device between 0 and 90 degrees, a few hundred
/// milliseconds apart (the gaps vary, so the turns fall at every phase of the frame
/// interval). The session follows a `RotationObserver` over it, with a `PreviewOutput`
/// attached (fakesink, synced to the clock like a display). For each turn:
///
/// - sample -> applied: from the moment the replay delivered the sample to the moment the
///   preview's `videoflip` got the new angle (observer, coordinator, session task);
/// - applied -> shown: from there to the first turned frame reaching the preview's sink
///   (waiting for the camera's next frame, then the flip and the conversion);
/// - sample -> shown: the whole rotation latency.
///
/// All on the monotonic clock.
enum RotationBench {
    static let usage = "usage: plumb-bench rotation-latency [--size WxH] [--fps N] [--turns N] [--letterbox]"

    static func main(_ arguments: [String]) async -> Never {
        let options = BenchOptions(arguments, usage: usage, valued: ["--size", "--fps", "--turns"], switches: ["--letterbox"])
        let size = options.size("--size", default: VideoSize(width: 640, height: 480))
        let fps = options.int("--fps", default: 30, positive: true)
        let turns = options.int("--turns", default: 20, positive: true)
        let layout: PreviewRotator.Layout = options.isSet("--letterbox") ? .letterbox(nil) : .rotate
        do {
            try await run(size: size, fps: fps, turns: turns, layout: layout)
        } catch {
            fail("\(error)", code: 1)
        }
        exit(0)
    }

    static func run(size: VideoSize, fps: Int, turns: Int, layout: PreviewRotator.Layout) async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("plumb-rotation-bench-\(getpid())")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }

        // Upright first, then alternately turned and upright; 250 to 349 ms apart.
        var lines: [String] = []
        var t = 500
        var angles: [RotationAngle] = []
        for i in 0...turns {
            let angle: RotationAngle = i % 2 == 0 ? .degrees0 : .degrees90
            let s = AccelerometerSample.resting(angle)
            lines.append("\(i == 0 ? 0 : t) \(s.x) \(s.y) \(s.z)")
            if i > 0 {
                angles.append(angle)
                t += 250 + (i * 37) % 100
            }
        }
        let file = folder.appendingPathComponent("turns.txt")
        try lines.joined(separator: "\n").write(to: file, atomically: true, encoding: .utf8)

        let session = try await CaptureSession.open(.testPattern(), size: size, rate: FrameRate(fps))
        let preview = PreviewOutput(layout: layout)
        try await session.attach(preview)
        try await session.waitForFrames(10)
        let timed = TimedAccelerometer(try ReplayAccelerometer(input: .file(file.path)))
        let observer = RotationObserver(accelerometer: timed)
        try await session.follow(observer)

        var toApplied: [Double] = [], toShown: [Double] = [], total: [Double] = []
        for (i, angle) in angles.enumerated() {
            // Sample 0 is the upright start; turn i is sample i + 1.
            guard let sampledAt = try await waitFor(what: "sample \(i + 1)", { timed.stamp(i + 1) }) else { break }
            let shown = try await waitFor(what: "the turn to \(angle)") { () -> PreviewOutput.ShownTurn? in
                guard let s = preview.lastShownTurn, s.turn.angle == angle, s.turn.appliedAt >= sampledAt else { return nil }
                return s
            }
            guard let shown else { break }
            toApplied.append(ms(shown.turn.appliedAt - sampledAt))
            toShown.append(ms(shown.shownAt - shown.turn.appliedAt))
            total.append(ms(shown.shownAt - sampledAt))
        }
        let frames = preview.stats
        observer.stop()
        await session.close()

        print("rotation latency on the test pattern, \(size) at \(fps) fps (frame interval "
              + "\(fmt(1000 / Double(fps))) ms), preview \(layout), \(total.count) turns between 0 and 90")
        report("  sample -> angle applied to the preview's videoflip", toApplied)
        report("  angle applied -> first turned frame at the preview's sink", toShown)
        report("  sample -> first turned frame at the preview's sink (rotation latency)", total)
        if case .rotate = layout {
            result("rotation_latency_ms.p50", percentile(total, 50))
            result("rotation_latency_ms.p99", percentile(total, 99))
            result("rotation_latency_ms.samples", samples: total)
        }
        print("  preview: \(frames.count) frames, largest arrival gap \(fmt(Double(frames.largestArrivalGap) / 1e6)) ms")
    }

    /// Polls every millisecond for up to 5 s.
    private static func waitFor<T>(what: String, _ probe: () -> T?) async throws -> T? {
        let deadline = ContinuousClock.now + .seconds(5)
        while ContinuousClock.now < deadline {
            if let value = probe() { return value }
            try await Task.sleep(for: .milliseconds(1))
        }
        FileHandle.standardError.write(Data("plumb-bench: gave up waiting for \(what)\n".utf8))
        return nil
    }

    private static func ms(_ nanoseconds: UInt64) -> Double { Double(nanoseconds) / 1e6 }


    private static func report(_ label: String, _ values: [Double]) {
        guard !values.isEmpty else { return print("\(label): no samples") }
        let s = values.sorted()
        func q(_ p: Double) -> Double { percentile(s, p * 100) }
        print("\(label), n=\(s.count): min \(fmt(s.first!)) / median \(fmt(q(0.5))) / p90 \(fmt(q(0.9))) / max \(fmt(s.last!)) ms")
    }
}

/// Passes another accelerometer's events on, noting on the monotonic clock when each
/// sample was delivered (the start of the latency being measured).
final class TimedAccelerometer: Accelerometer {
    private let inner: any Accelerometer
    private let stamps = Mutex<[UInt64]>([])

    init(_ inner: any Accelerometer) {
        self.inner = inner
    }

    var description: String { inner.description }

    /// When sample `index` (from 0) was delivered, once it was.
    func stamp(_ index: Int) -> UInt64? {
        stamps.withLock { index < $0.count ? $0[index] : nil }
    }

    func events() -> AsyncStream<AccelerometerEvent> {
        let source = inner.events()
        let (stream, continuation) = AsyncStream<AccelerometerEvent>.makeStream(bufferingPolicy: .unbounded)
        let task = Task { [self] in
            for await event in source {
                if case .sample = event {
                    let now = DispatchTime.now().uptimeNanoseconds
                    self.stamps.withLock { $0.append(now) }
                }
                continuation.yield(event)
            }
            continuation.finish()
        }
        continuation.onTermination = { _ in task.cancel() }
        return stream
    }
}
