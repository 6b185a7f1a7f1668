import Foundation
import GStreamer
import Synchronization

/// A local preview: `videoflip ! videoconvert ! sink`, the pixels turned upright (a
/// window carries no orientation metadata). It counts its frames and keeps their
/// timestamps, so a test can prove no frame went missing while other branches came
/// and went.
public final class PreviewOutput: CaptureOutput {
    public enum Sink: String, Sendable {
        /// `fakesink`: frames go nowhere (headless machines, tests).
        case fake
        /// `autovideosink`: a window.
        case window
        /// `fpsdisplaysink`: a window with the measured rate drawn on it.
        case fpsDisplay
    }

    public let kind = "preview"
    public let sink: Sink

    /// One frame as the preview's sink received it.
    public struct FrameTiming: Sendable {
        /// The buffer's timestamp (running time when the camera took it).
        public var pts: ClockTime
        /// When it reached the sink, on the monotonic clock (nanoseconds; only differences mean something).
        public var arrival: UInt64
    }

    private struct State {
        var angle = RotationAngle.degrees0
        var flip: Element?
        var frames: [FrameTiming] = []
        var firstFrameSize: VideoSize?
    }

    private let state = Mutex(State())

    public init(sink: Sink = .fake) {
        self.sink = sink
    }

    public func build(in bin: Bin, format: CaptureFormat, camera: CameraSource) throws -> BranchEnds {
        state.withLock {
            $0.frames.removeAll()
            $0.firstFrameSize = nil
        }
        let flip = try Element(factory: "videoflip", name: "flip")
        let convert = try Element(factory: "videoconvert", name: "convert")
        let out: Element
        switch sink {
        case .fake:
            out = try Element(factory: "fakesink", name: "sink")
            try out.set("sync", true)
            try out.set("enable-last-sample", false)
        case .window:
            out = try Element(factory: "autovideosink", name: "sink")
        case .fpsDisplay:
            out = try Element(factory: "fpsdisplaysink", name: "sink")
            try out.set("text-overlay", true)
        }
        try bin.add(flip, convert, out)
        try flip.link(to: convert)
        try convert.link(to: out)
        state.withLock { $0.flip = flip }
        out.staticPad("sink")!.addProbe(.buffer) { [weak self] pad, info in
            guard let self, let pts = info.bufferPTS else { return .ok }
            // The monotonic clock, like GStreamer's system clock: only differences matter.
            let arrival = DispatchTime.now().uptimeNanoseconds
            self.state.withLock { s in
                if s.frames.isEmpty, let caps = pad.currentCaps?.structure(at: 0),
                   let w = caps.int("width"), let h = caps.int("height") {
                    s.firstFrameSize = VideoSize(width: w, height: h)
                }
                s.frames.append(FrameTiming(pts: pts, arrival: arrival))
            }
            return .ok
        }
        return BranchEnds(entry: flip, sink: out)
    }

    /// Turns the pixels: `videoflip video-direction`. Allowed while playing.
    public func apply(rotation: RotationAngle) {
        let flip = state.withLock { s in
            s.angle = rotation
            return s.flip
        }
        try? flip?.set("video-direction", EnumNick(rotation.videoDirection))
    }

    public var rotation: RotationAngle { state.withLock { $0.angle } }

    public func didDetach(error: (any Error)?) {
        state.withLock { $0.flip = nil }  // the branch is gone: let go of its element
    }

    // MARK: Frame statistics

    /// Frames the sink received so far.
    public var frameCount: Int { state.withLock { $0.frames.count } }

    /// Every frame's timing so far, in order.
    public var frames: [FrameTiming] { state.withLock { $0.frames } }

    /// The size of the first frame the sink got (after the flip): shows the rotation was
    /// in place before the first frame.
    public var firstFrameSize: VideoSize? { state.withLock { $0.firstFrameSize } }

    /// Forgets the frames counted so far.
    public func resetFrames() { state.withLock { $0.frames.removeAll() } }
}

extension Array where Element == PreviewOutput.FrameTiming {
    /// The largest step between consecutive timestamps: one frame interval when none is missing.
    public var largestTimestampGap: ClockTime {
        zip(self, dropFirst()).map { $1.pts &- $0.pts }.max() ?? 0
    }

    /// The largest step between consecutive arrivals: how long the branch went without a frame.
    public var largestArrivalGap: UInt64 {
        zip(self, dropFirst()).map { $1.arrival > $0.arrival ? $1.arrival - $0.arrival : 0 }.max() ?? 0
    }
}
