import Dispatch
import FoundationEssentials
import Glibc
import GStreamer
import PlumbRotation
import Synchronization

/// Motion detection as a capture output:
///
/// ```
/// tee -> head queue (leaky, 2 frames) -> videorate drop-only -> videoscale -> videoconvert
///     -> video/x-raw,format=GRAY8,width=W,height=H,framerate=RATE -> appsink -> MotionDetector
/// ```
///
/// As `ScanOutput`: the branch drops frames to `MotionOptions.rate` and scales them to
/// `width` (about 160 pixels: cheap enough to run all the time), and its leaky head queue
/// drops more when the detector falls behind. The capture angle turns masks into the frame
/// and boxes back into the upright picture.
///
/// Attach it once; `events` ends when it is detached.
public final class MotionOutput: CaptureOutput {
    public let kind = "motion"
    public var queueLimit: Int { 2 }

    public let options: MotionOptions
    /// Each start and end of motion, in order; ends when the output is detached.
    public let events: AsyncStream<MotionEvent>
    private let continuation: AsyncStream<MotionEvent>.Continuation
    private let onLighting: (@Sendable () -> Void)?

    private struct State {
        var angle = RotationAngle.degrees0
        var detector: MotionDetector
        var framesAnalysed = 0
        var lastMotion: Sighting?
        var lightingChanges = 0
    }
    private let state: Mutex<State>

    /// - Parameter onLighting: called on the branch's streaming thread when a frame was a
    ///   lighting change (not motion); it should only hand off.
    /// - Throws: `CaptureError.invalidArgument` for options out of range.
    public init(options: MotionOptions = MotionOptions(), onLighting: (@Sendable () -> Void)? = nil) throws {
        try options.validate()
        self.options = options
        self.onLighting = onLighting
        (events, continuation) = AsyncStream.makeStream(of: MotionEvent.self, bufferingPolicy: .bufferingNewest(1024))
        state = Mutex(State(detector: MotionDetector(options: options)))
    }

    deinit {
        continuation.finish()
    }

    /// Frames handed to the detector so far (after the rate and the leaky queue dropped theirs).
    public var framesAnalysed: Int { state.withLock { $0.framesAnalysed } }
    /// Frames found to be a lighting change so far (the background re-learnt from each).
    public var lightingChanges: Int { state.withLock { $0.lightingChanges } }

    /// What the newest motion frame (its changed area at least `minArea`) showed.
    public struct Sighting: Sendable, Hashable {
        /// The changed regions, normalised in the upright picture.
        public var boxes: [NormalizedRect]
        public var fraction: Double
        /// When it was analysed.
        public var date: Date
    }

    /// The newest motion frame's regions: where motion is now while it lasts, else where it
    /// was last; nil before any.
    public var lastMotion: Sighting? { state.withLock { $0.lastMotion } }

    /// The masks (rectangles of the upright picture) from the next analysed frame on,
    /// without restarting anything; `options.masks` stays what the output was made with.
    public func setMasks(_ masks: [NormalizedRect]) {
        state.withLock { $0.detector.setMasks(masks) }
    }

    public func build(in bin: Bin, format: CaptureFormat, camera: CameraSource) throws -> BranchEnds {
        // Width a multiple of 4 (GRAY8 rows are padded to 4 bytes), height in proportion.
        let width = max(16, min(options.width, format.size.width) / 4 * 4)
        let height = max(2, Int((Double(width) * Double(format.size.height) / Double(format.size.width)).rounded()) / 2 * 2)
        let rate = try Element(factory: "videorate", name: "motion-rate")
        try rate.set("drop-only", true)
        let scale = try Element(factory: "videoscale", name: "motion-scale")
        let convert = try Element(factory: "videoconvert", name: "motion-convert")
        let caps = try Element(factory: "capsfilter", name: "motion-caps")
        try caps.set("caps", try Caps("video/x-raw,format=GRAY8,width=\(width),height=\(height),framerate=\(options.rate)/1"))
        let sink = try AppSink.newestFrame(name: "motion-frames") { [weak self] sample in self?.analyze(sample) }
        try bin.add(rate, scale, convert, caps, sink)
        try rate.link(to: scale)
        try scale.link(to: convert)
        try convert.link(to: caps)
        try caps.link(to: sink)
        return BranchEnds(entry: rate, sink: sink)
    }

    public func apply(rotation: RotationAngle) {
        state.withLock { $0.angle = rotation }
    }

    public func didDetach(error: (any Error)?) {
        continuation.finish()
    }

    /// One frame, on the branch's streaming thread.
    private func analyze(_ sample: Sample) {
        guard let (width, height) = sample.videoSize, let buffer = sample.buffer else { return }
        let pixels = buffer.data
        let stride = pixels.count / max(height, 1)
        guard stride >= width else { return }
        // The buffer's time on a steady clock; without one, the monotonic clock.
        let time = buffer.pts.map { Double($0) / 1e9 }
            ?? Double(DispatchTime.now().uptimeNanoseconds) / 1e9
        let (result, frame) = state.withLock { s in
            s.framesAnalysed += 1
            let result = pixels.withUnsafeBytes {
                s.detector.analyze($0, width: width, height: height, stride: stride, time: time, angle: s.angle)
            }
            if result.lighting { s.lightingChanges += 1 }
            if !result.lighting, result.fraction >= s.detector.options.minArea {
                s.lastMotion = Sighting(boxes: result.boxes, fraction: result.fraction, date: Date())
            }
            return (result, s.framesAnalysed)
        }
        if result.lighting { onLighting?() }
        if let change = result.change {
            continuation.yield(MotionEvent(change: change, fraction: result.fraction, boxes: result.boxes,
                                           frameTime: buffer.pts, date: Date(), frame: frame))
        }
    }
}
