import FoundationEssentials
import Glibc
import GStreamer
import Synchronization

/// Digital zoom before the tee (AVFoundation's `videoZoomFactor`): `videocrop ! videoscale !
/// tee caps`. The crop changes live, frame by frame; videoscale brings every frame back to
/// the tee's fixed caps, so no output renegotiates and the preview, stills and recordings
/// all see the same picture. At 1× both elements pass frames through untouched.
///
/// A ramp moves the factor toward its target at `rate` doublings per second of the frames'
/// own clock: each frame's factor is computed from its timestamp in a probe just before the
/// crop, so the steps follow the frames, not a timer.
final class ZoomCrop: Sendable {
    let crop: Element
    let scale: Element
    let caps: Element
    /// The tee's format: changed only by a camera switch to other caps (`reformat`).
    private let teeFormat: Mutex<CaptureFormat>
    var format: CaptureFormat { teeFormat.withLock { $0 } }

    struct State {
        var factor = 1.0
        var target = 1.0
        /// The crop's centre in the frame's own coordinates (normalised).
        var centerX = 0.5
        var centerY = 0.5
        /// Doublings per second; nil jumps to the target at the next frame.
        var rate: Double?
        var lastPTS: UInt64?
        var applied: (left: Int, top: Int, right: Int, bottom: Int) = (0, 0, 0, 0)
        /// The factor of each recent frame, by its timestamp (for tests and facts).
        var log: [(pts: UInt64, factor: Double)] = []
    }
    private let state = Mutex(State())

    /// Makes the three elements; `format` is the tee's.
    init(format: CaptureFormat) throws {
        teeFormat = Mutex(format)
        crop = try Element(factory: "videocrop", name: "zoom-crop")
        scale = try Element(factory: "videoscale", name: "zoom-scale")
        caps = try Element(factory: "capsfilter", name: "zoom-caps")
        // The pixel aspect ratio fixed too: a crop rounded to even pixels is not exactly the
        // frame's shape, and videoscale would otherwise change the ratio (new caps downstream).
        try caps.set("caps", try Caps(format.caps + ",pixel-aspect-ratio=1/1"))
        crop.staticPad("sink")!.addProbe(.buffer) { [weak self] info in
            if let self, let pts = info.bufferPTS { self.frame(at: pts) }
            return .ok
        }
    }

    /// Before each frame enters the crop (its streaming thread): the factor for its time,
    /// and new edges when they change — videocrop takes them before this frame.
    private func frame(at pts: UInt64) {
        let size = format.size
        let edges: (Int, Int, Int, Int)? = state.withLock { s in
            Self.step(&s, at: pts)
            let e = Self.edges(factor: s.factor, centerX: s.centerX, centerY: s.centerY, size: size)
            s.log.append((pts, s.factor))
            if s.log.count > 900 { s.log.removeFirst(s.log.count - 900) }
            guard e != s.applied else { return nil }
            s.applied = e
            return e
        }
        if let (l, t, r, b) = edges {
            try? crop.set("left", l)
            try? crop.set("top", t)
            try? crop.set("right", r)
            try? crop.set("bottom", b)
        }
    }

    /// Gives the tee `format` from the next frame on (a switch to a camera of other caps, before
    /// the new source starts): the crop's edges are computed anew for its size.
    func reformat(_ format: CaptureFormat) throws {
        try caps.set("caps", try Caps(format.caps + ",pixel-aspect-ratio=1/1"))
        teeFormat.withLock { $0 = format }
        state.withLock { $0.applied = (-1, -1, -1, -1) }
    }

    /// Moves the factor for a frame at `pts`.
    private static func step(_ s: inout State, at pts: UInt64) {
        defer { s.lastPTS = pts }
        guard s.factor != s.target else { return }
        guard let rate = s.rate, let last = s.lastPTS, pts > last else {
            if s.rate == nil { s.factor = s.target }
            return
        }
        let change = pow(2, rate * Double(pts - last) / 1e9)
        s.factor = s.target > s.factor ? min(s.target, s.factor * change) : max(s.target, s.factor / change)
    }

    /// The pixels cut from each edge for `factor` about the centre, even (I420), the crop kept inside the frame.
    static func edges(factor: Double, centerX: Double, centerY: Double, size: VideoSize) -> (Int, Int, Int, Int) {
        func axis(_ length: Int, _ center: Double) -> (Int, Int) {
            let kept = min(length, max(2, Int((Double(length) / factor).rounded()) / 2 * 2))
            let start = min(max(0, Int((center * Double(length) - Double(kept) / 2).rounded()) / 2 * 2), length - kept)
            return (start, length - kept - start)
        }
        let (l, r) = axis(size.width, centerX)
        let (t, b) = axis(size.height, centerY)
        return (l, t, r, b)
    }

    /// Sets the target (and, for a ramp, the rate in doublings per second).
    func set(factor: Double, centerX: Double, centerY: Double, rate: Double?) {
        state.withLock { s in
            s.target = factor
            s.centerX = centerX
            s.centerY = centerY
            s.rate = rate
        }
    }

    var current: (factor: Double, target: Double, centerX: Double, centerY: Double, rate: Double?) {
        state.withLock { ($0.factor, $0.target, $0.centerX, $0.centerY, $0.rate) }
    }

    /// The factor the frame stamped `pts` got, while it is among the recent ones.
    func factor(at pts: UInt64) -> Double? {
        state.withLock { s in s.log.last { $0.pts == pts }?.factor }
    }

    /// Each recent frame's factor, by timestamp.
    var log: [(pts: UInt64, factor: Double)] { state.withLock { $0.log } }
}
