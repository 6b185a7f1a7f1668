import Dispatch
import FoundationEssentials
import Glibc
import GStreamer
import Synchronization
import PlumbRotation

/// A local preview: `videoflip [! videoscale ! canvas] ! videoconvert ! sink`, the pixels
/// turned upright by a `PreviewRotator` (a window carries no orientation metadata). It
/// follows the session's *preview* angle. It counts its frames and the largest gaps between
/// them (in constant memory), so a test can prove no frame went missing while other
/// branches came and went, and it notes when the first turned frame reached the sink
/// after each change of angle (the rotation latency).
public final class PreviewOutput: CaptureOutput {
    public enum Sink: String, Sendable {
        /// `fakesink`: frames go nowhere (headless machines, tests).
        case fake
        /// `autovideosink`: a window.
        case window
        /// `fpsdisplaysink`: a window with the measured rate drawn on it.
        case fpsDisplay
    }

    /// A change of angle as the sink saw it.
    public struct ShownTurn: Sendable, Equatable {
        public var turn: PreviewRotator.Turn
        /// When the first frame sure to be turned reached the sink (monotonic nanoseconds,
        /// the clock of `turn.appliedAt`).
        public var shownAt: UInt64
        /// That frame's number at the sink (counted from 1 since the branch was built).
        public var frame: Int
        /// Its size.
        public var size: VideoSize?
    }

    public let kind = "preview"
    public let sink: Sink
    public let rotator: PreviewRotator
    public var usesPreviewAngle: Bool { true }

    private struct State {
        var stats = FrameStats()
        var framesOut = 0
        var firstFrameSize: VideoSize?
        var lastSize: VideoSize?
        var sizeChanges: [(frame: Int, size: VideoSize)] = []
        var shown: ShownTurn?
        /// The size in the sink pad's current caps.
        var capsSize: VideoSize?
    }

    private let state = Mutex(State())

    /// `layout`: `.rotate` turns the frame with the picture (a quarter turn swaps the sink's
    /// width and height); `.letterbox(size)` keeps a fixed canvas (nil: the camera's size).
    public init(sink: Sink = .fake, layout: PreviewRotator.Layout = .rotate) {
        self.sink = sink
        self.rotator = PreviewRotator(layout: layout)
    }

    public func build(in bin: Bin, format: CaptureFormat, camera: CameraSource) throws -> BranchEnds {
        state.withLock { $0 = State() }
        let turn = try rotator.build(in: bin, frameSize: format.size)
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
        try bin.add(convert, out)
        try turn.exit.link(to: convert)
        try convert.link(to: out)
        let rotator = self.rotator
        let sinkPad = out.staticPad("sink")!
        // The frame size is read from the pad's caps only after a caps event (rare), not for
        // every frame. The event is seen here before the sink takes it; by the next buffer
        // the pad's current caps are the new ones.
        let capsChanged = Atomic<Bool>(true)
        sinkPad.addProbe(.eventDownstream) { info in
            if info.isCaps { capsChanged.store(true, ordering: .releasing) }
            return .ok
        }
        sinkPad.addProbe(.buffer) { [weak self] pad, info in
            guard let self, let pts = info.bufferPTS else { return .ok }
            // The monotonic clock, like GStreamer's system clock: only differences matter.
            let arrival = DispatchTime.now().uptimeNanoseconds
            // Every element between the flip and here passes frames one for one, so the
            // sink's frame number is the flip's.
            let turn = rotator.lastTurn
            let newSize: VideoSize?? = capsChanged.exchange(false, ordering: .acquiring)
                ? .some(Self.frameSize(pad.currentCaps)) : .none
            self.state.withLock { s in
                s.framesOut += 1
                if let newSize { s.capsSize = newSize }
                let size = s.capsSize
                if s.stats.count == 0, s.firstFrameSize == nil { s.firstFrameSize = size }
                if let size, size != s.lastSize {
                    s.lastSize = size
                    s.sizeChanges.append((s.framesOut, size))
                    if s.sizeChanges.count > 32 { s.sizeChanges.removeFirst() }
                }
                if let turn, s.framesOut >= turn.firstFrame, s.shown?.turn != turn {
                    s.shown = ShownTurn(turn: turn, shownAt: arrival, frame: s.framesOut, size: size)
                }
                s.stats.add(timestamp: pts, arrival: arrival)
            }
            return .ok
        }
        return BranchEnds(entry: turn.entry, sink: out)
    }

    /// Width and height in raw video caps.
    private static func frameSize(_ caps: Caps?) -> VideoSize? {
        guard let c = caps?.structure(at: 0), let width = c.int("width"), let height = c.int("height") else { return nil }
        return VideoSize(width: width, height: height)
    }

    /// Turns the pixels (see `PreviewRotator`). Allowed while playing.
    public func apply(rotation: RotationAngle) {
        rotator.apply(rotation: rotation)
    }

    public var rotation: RotationAngle { rotator.rotation }

    public func didDetach(error: (any Error)?) {
        rotator.release()  // the branch is gone: let go of its element
    }

    // MARK: Frame statistics

    /// Frames the sink received so far.
    public var frameCount: Int { state.withLock { $0.stats.count } }

    /// Frames received and the largest gaps between them, since attaching or `resetFrames()`.
    public var stats: FrameStats { state.withLock { $0.stats } }

    /// The size of the first frame the sink got (after the flip): shows the rotation was
    /// in place before the first frame.
    public var firstFrameSize: VideoSize? { state.withLock { $0.firstFrameSize } }

    /// The size of the last frame the sink got.
    public var lastFrameSize: VideoSize? { state.withLock { $0.lastSize } }

    /// Where the frame size changed at the sink: (frame number, new size), the last 32.
    public var sizeChanges: [(frame: Int, size: VideoSize)] { state.withLock { $0.sizeChanges } }

    /// The last change of angle whose first turned frame has reached the sink.
    public var lastShownTurn: ShownTurn? { state.withLock { $0.shown } }

    /// Forgets the frames counted so far.
    public func resetFrames() { state.withLock { $0.stats = FrameStats() } }
}
