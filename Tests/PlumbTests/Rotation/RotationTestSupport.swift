import Foundation
import PlumbTestSupport
import GStreamer
@testable import Plumb
import Synchronization
import XCTest
import PlumbRotation

/// An accelerometer the test moves by hand: each `turn(to:)` is a sample of a device at rest
/// at that rotation, delivered at once. The stream stays open until `finish()`.
final class HandheldAccelerometer: Accelerometer {
    private struct State {
        var continuation: AsyncStream<AccelerometerEvent>.Continuation?
        var pending: [AccelerometerEvent] = []
        var time: Duration = .zero
    }

    private let state = Mutex(State())

    func events() -> AsyncStream<AccelerometerEvent> {
        let (stream, continuation) = AsyncStream<AccelerometerEvent>.makeStream(bufferingPolicy: .unbounded)
        let pending = state.withLock { s in
            s.continuation = continuation
            defer { s.pending = [] }
            return s.pending
        }
        continuation.yield(.available(description))
        for e in pending { continuation.yield(e) }
        return stream
    }

    /// A device standing at `rotation`, 100 ms after the previous sample.
    func turn(to rotation: RotationAngle) {
        let event = state.withLock { s -> AccelerometerEvent in
            s.time += .milliseconds(100)
            let e = AccelerometerEvent.sample(.resting(rotation, time: s.time))
            if s.continuation == nil { s.pending.append(e) }
            return e
        }
        state.withLock { $0.continuation }?.yield(event)
    }

    func finish() { state.withLock { $0.continuation }?.finish() }

    var description: String { "handheld" }
}

/// Replay lines for a device turned to each of `rotations` in turn, `hold` apart (the first at 0 ms).
func replayFile(_ rotations: [RotationAngle], hold: Duration, in folder: URL, name: String = "motion.txt") throws -> String {
    var lines = ["# t_ms x y z: a device turned by hand"]
    for (i, rotation) in rotations.enumerated() {
        let s = AccelerometerSample.resting(rotation)
        lines.append("\(Int64(i) * hold.milliseconds) \(s.x) \(s.y) \(s.z)")
    }
    let url = folder.appendingPathComponent(name)
    try lines.joined(separator: "\n").write(to: url, atomically: true, encoding: .utf8)
    return url.path
}

/// Records the timestamp of every frame entering the session's tee (the frames the camera
/// captured, which every branch is fed from).
final class TeeFrames: Sendable {
    private let stamps = Mutex<[ClockTime]>([])

    init(_ session: CaptureSession) async throws {
        let found = await session.element(named: "tee")
        let tee = try XCTUnwrap(found)
        let pad = try XCTUnwrap(tee.staticPad("sink"))
        pad.addProbe(.buffer) { [weak self] info in
            if let pts = info.bufferPTS { self?.stamps.withLock { $0.append(pts) } }
            return .ok
        }
    }

    var all: [ClockTime] { stamps.withLock { $0 } }

    /// How many frames the tee got from `first` to `last` inclusive.
    func count(from first: ClockTime, through last: ClockTime) -> Int {
        stamps.withLock { $0.filter { $0 >= first && $0 <= last }.count }
    }

    /// The index of the frame stamped `pts` (within half a millisecond).
    func index(of pts: ClockTime) -> Int? {
        stamps.withLock { $0.firstIndex { abs(Int64($0) - Int64(pts)) < 500_000 } }
    }
}

/// The size at the sink pad of an attached output's branch (its element named `sink`).
func sinkSize(_ session: CaptureSession, _ output: any CaptureOutput) async -> VideoSize? {
    guard let bin = await session.branchBin(for: output), let sink = bin.element(named: "sink"),
          let caps = sink.staticPad("sink")?.currentCaps?.structure(at: 0),
          let w = caps.int("width"), let h = caps.int("height") else { return nil }
    return VideoSize(width: w, height: h)
}

extension Duration {
    var ms: Double { Double(components.seconds) * 1000 + Double(components.attoseconds) / 1e15 }
}

extension RotationAngle {
    /// What ffprobe may print as the displaymatrix rotation for this clockwise angle: it
    /// counts counter-clockwise (90 -> -90, 270 -> 90; a half turn either way).
    var ffprobeRotations: Set<Int> {
        switch self {
        case .degrees0: return [0]
        case .degrees90: return [-90]
        case .degrees180: return [180, -180]
        case .degrees270: return [90]
        }
    }
}

