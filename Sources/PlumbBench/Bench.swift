import Foundation
import Plumb

/// `plumb-bench`: the capture latencies, printed as numbers.
///
/// - still latency: `takePhoto()` called -> JPEG bytes returned, on a running session
///   whose photo branch is attached (the first, cold photo is reported apart);
/// - recording start latency: `startRecording()` called -> the first frame (a keyframe)
///   reaches the muxer, plus where that frame lies on the pipeline clock relative to the
///   request (negative: captured just before the request, still in flight).
/// A preview branch runs throughout; its largest gap between frames is reported too.
enum Bench {
    static func run(size: VideoSize, fps: Int, photos: Int, recordings: Int, folder: URL) async throws {
        let rate = FrameRate(fps)
        let session = try await CaptureSession.open(.testPattern(), size: size, rate: rate)
        let preview = PreviewOutput()
        try await session.attach(preview)

        var clock = ContinuousClock.now
        _ = try await session.takePhoto()
        let coldPhoto = milliseconds(ContinuousClock.now - clock)

        var still: [Double] = []
        for _ in 0..<photos {
            clock = ContinuousClock.now
            _ = try await session.takePhoto()
            still.append(milliseconds(ContinuousClock.now - clock))
            try await Task.sleep(for: .milliseconds(Int.random(in: 5...40)))  // vary the frame phase
        }

        var start: [Double] = []
        var stop: [Double] = []
        var offset: [Double] = []
        for i in 0..<recordings {
            let url = folder.appendingPathComponent("bench-\(i).mp4")
            let before = Date()
            let recording = try await session.startRecording(to: url)
            let first = try await recording.firstFrameTime()
            if let written = recording.output.firstFrameWrittenAt {
                start.append(written.timeIntervalSince(before) * 1000)
            }
            if let request = recording.requestTime {
                offset.append(Double(Int64(first) - Int64(request)) / 1e6)
            }
            try await Task.sleep(for: .milliseconds(200))
            let stopping = ContinuousClock.now
            _ = try await recording.stop()  // returns once the MP4 is finalized
            stop.append(milliseconds(ContinuousClock.now - stopping))
            try? FileManager.default.removeItem(at: url)
            try await Task.sleep(for: .milliseconds(Int.random(in: 5...40)))
        }
        let frames = preview.stats
        await session.close()

        print("capture latency on the test pattern, \(size) at \(fps) fps (frame interval \(fmt(1000 / Double(fps))) ms)")
        print("  still (takePhoto -> JPEG bytes), first photo incl. attaching the branch: \(fmt(coldPhoto)) ms")
        report("  still (takePhoto -> JPEG bytes), n=\(still.count)", still)
        report("  recording start (startRecording -> first keyframe into mp4mux), n=\(start.count)", start)
        report("  first recorded frame's time minus the request's (pipeline clock)", offset)
        report("  recording stop (stop -> MP4 finalized), n=\(stop.count)", stop)
        result("frame_interval_ms", 1000 / Double(fps))
        result("still_latency_ms.p50", percentile(still, 50))
        result("still_latency_ms.p95", percentile(still, 95))
        result("still_latency_ms.p99", percentile(still, 99))
        result("still_latency_ms.samples", samples: still)
        result("record_start_ms.p50", percentile(start, 50))
        result("record_start_ms.p99", percentile(start, 99))
        result("record_start_ms.samples", samples: start)
        result("record_stop_ms.p50", percentile(stop, 50))
        result("record_stop_ms.samples", samples: stop)
        print("  preview while all this ran: \(frames.count) frames, largest arrival gap "
              + "\(fmt(Double(frames.largestArrivalGap) / 1e6)) ms, largest timestamp gap "
              + "\(fmt(Double(frames.largestTimestampGap) / 1e6)) ms")
    }



    private static func report(_ label: String, _ values: [Double]) {
        guard !values.isEmpty else { return print("\(label): no samples") }
        let s = values.sorted()
        func q(_ p: Double) -> Double { percentile(s, p * 100) }
        print("\(label): min \(fmt(s.first!)) / median \(fmt(q(0.5))) / p90 \(fmt(q(0.9))) / max \(fmt(s.last!)) ms")
    }
}
