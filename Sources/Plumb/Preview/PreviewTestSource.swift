import Dispatch
import FoundationEssentials
import Glibc
import GStreamer
import Synchronization
import GLib
import PlumbRotation

/// A stand-in for the capture session, for developing and measuring the preview on its
/// own: a live test pattern through a tee to a "recording" branch (a clock-synced
/// fakesink whose every frame is logged) and to the encoded preview branch
/// (`PreviewEncoding`), whose appsink feeds `stream`.
///
/// ```
/// videotestsrc is-live=true ! video/x-raw,WxH,rate ! tee
///     tee. ! queue ! fakesink sync=true                                  (frames logged here)
///     tee. ! queue leaky=downstream max-size-buffers=2 ! <PreviewEncoding branch> ! appsink
/// ```
///
/// The log shows whether anything downstream of the preview ever stopped or stalled the
/// source: its timestamps must advance one frame at a time and its arrivals stay regular.
public final class PreviewTestSource: Sendable {
    /// One frame that reached the "recording" branch.
    public struct Frame: Sendable {
        /// Its timestamp.
        public var pts: ClockTime
        /// When it arrived, on the monotonic clock (ns; only differences mean anything).
        public var arrival: UInt64
    }

    public let size: VideoSize
    public let rate: Int
    public let stream: EncodedStream
    public let branch: EncodedPreviewBranch

    private let pipeline: Pipeline
    private let loop: MainContextThread
    private let watch: BusSubscription
    private let log = Log()

    /// Shared with the probe and the bus handler, which must not hold the source itself.
    private final class Log: Sendable {
        let state = Mutex<(frames: [Frame], errors: [GStreamerError])>(([], []))
    }

    /// `pattern` is a videotestsrc pattern: "ball" (little to encode), "snow" (noise: the
    /// encoder runs at its bitrate cap, like a grainy camera).
    public init(size: VideoSize = VideoSize(width: 320, height: 240), rate: Int = 30, pattern: String = "ball",
                encoding: PreviewEncoding = PreviewEncoding(), stream: EncodedStream = EncodedStream()) throws {
        self.size = size
        self.rate = rate
        self.stream = stream
        let pipeline = try Pipeline.parse("""
            videotestsrc is-live=true pattern=\(pattern) ! video/x-raw,format=I420,width=\(size.width),height=\(size.height),\
            framerate=\(rate)/1 ! tee name=tee \
            tee. ! queue name=record_queue ! fakesink name=record sync=true enable-last-sample=false \
            tee. ! queue name=preview_queue leaky=downstream max-size-buffers=2 max-size-bytes=0 max-size-time=0
            """)
        self.pipeline = pipeline
        branch = try encoding.build(in: pipeline)
        try pipeline.element(named: "preview_queue")!.link(to: branch.entry)
        try stream.attach(to: branch.sink)
        loop = MainContextThread(name: "plumb.preview-test-source")
        let log = self.log
        watch = pipeline.watchBus(on: loop.context) { message in
            if case .error(let e) = message { log.state.withLock { $0.errors.append(e) } }
        }
        pipeline.element(named: "record")!.staticPad("sink")!.addProbe(.buffer) { info in
            guard let pts = info.bufferPTS else { return .ok }
            let arrival = DispatchTime.now().uptimeNanoseconds
            log.state.withLock { $0.frames.append(Frame(pts: pts, arrival: arrival)) }
            return .ok
        }
    }

    deinit { stop() }

    /// Starts the pattern; returns once it plays.
    public func start() throws {
        try pipeline.setState(.playing)
    }

    /// Stops it (end of stream for the subscribers of `stream` is their owners' business).
    public func stop() {
        stream.detach()
        try? pipeline.setState(.null)
        watch.cancel()
        loop.stop()
    }

    /// Frames the "recording" branch received so far.
    public var frames: [Frame] { log.state.withLock { $0.frames } }

    public var frameCount: Int { log.state.withLock { $0.frames.count } }

    /// Errors the pipeline's bus reported.
    public var errors: [GStreamerError] { log.state.withLock { $0.errors } }

    /// One frame interval in nanoseconds.
    public var frameInterval: UInt64 { 1_000_000_000 / UInt64(rate) }

    /// Turns the preview (not the recording branch).
    public func apply(rotation: RotationAngle) throws { try branch.apply(rotation: rotation) }
}

extension Array where Element == PreviewTestSource.Frame {
    /// The largest step between consecutive timestamps: one frame interval when none is missing.
    public var largestTimestampGap: UInt64 {
        zip(self, dropFirst()).map { $1.pts &- $0.pts }.max() ?? 0
    }

    /// The largest time between consecutive arrivals: how long the source went without a frame.
    public var largestArrivalGap: UInt64 {
        zip(self, dropFirst()).map { $1.arrival > $0.arrival ? $1.arrival - $0.arrival : 0 }.max() ?? 0
    }
}
