import Dispatch
import FoundationEssentials
import Glibc
import GStreamer
import Synchronization
import PlumbRotation

/// Turns a preview's pixels upright, live: `videoflip` whose `video-direction` follows the
/// angle, optionally followed by a fixed canvas (letterbox). A preview needs pixels turned
/// because what it feeds — a window, an RTP stream — carries no orientation metadata.
///
/// ```
/// rotate:     videoflip
/// letterbox:  videoflip ! videoscale add-borders=true ! video/x-raw,width=W,height=H,pixel-aspect-ratio=1/1
/// ```
///
/// `videoflip` renegotiates when its direction changes, so the first frame that enters it
/// after `apply(rotation:)` comes out turned. In `rotate` layout a quarter turn swaps the
/// frame's width and height and everything downstream sees new caps (an encoder starts a
/// new stream with a new SPS). In `letterbox` layout `videoscale` fits the turned picture
/// into a fixed canvas with black borders, keeping its aspect ratio, so the caps after the
/// rotator never change — for consumers that cope badly with a new size.
///
/// Used by the local `PreviewOutput` and meant for the encoded (RTSP) preview branch too.
/// It counts the frames entering the flip, so a consumer at the end of the branch (where
/// frames arrive one for one) can tell which frame is the first one turned (`Turn`).
public final class PreviewRotator: Sendable {
    public enum Layout: Sendable, Equatable, CustomStringConvertible {
        /// The frame turns with the picture: a quarter turn swaps width and height.
        case rotate
        /// A fixed canvas the turned picture is fitted into with borders; nil: the size of
        /// the frames coming in (given to `build`).
        case letterbox(VideoSize?)

        public var description: String {
            switch self {
            case .rotate: return "rotate"
            case .letterbox(let size?): return "letterbox \(size)"
            case .letterbox(nil): return "letterbox"
            }
        }
    }

    /// One change of angle, as the flip took it.
    public struct Turn: Sendable, Equatable {
        public var angle: RotationAngle
        /// When `apply(rotation:)` set it: the monotonic clock in nanoseconds (only
        /// differences mean something).
        public var appliedAt: UInt64
        /// The number (counted from 1 at the flip's input since `build`) of the first frame
        /// sure to be turned: the first that entered the flip after the angle was set. The
        /// frame before it may already be turned too (it was entering as the angle changed).
        public var firstFrame: Int
    }

    public let layout: Layout
    /// Put in front of the element names ("preview_" gives `preview_flip`, the role name
    /// pipeline description files use).
    public let namePrefix: String

    private struct State {
        var angle = RotationAngle.degrees0
        var flip: Element?
        var framesIn = 0
        var lastTurn: Turn?
    }

    private let state = Mutex(State())

    public init(layout: Layout = .rotate, namePrefix: String = "") {
        self.layout = layout
        self.namePrefix = namePrefix
    }

    /// The canvas for frames of `frameSize` coming in; nil in `rotate` layout.
    public func canvas(for frameSize: VideoSize?) -> VideoSize? {
        guard case .letterbox(let size) = layout else { return nil }
        return size ?? frameSize
    }

    /// The elements in gst-launch syntax (documentation, error messages).
    public func launchDescription(frameSize: VideoSize? = nil) -> String {
        var parts = ["videoflip name=\(namePrefix)flip video-direction=\(rotation.videoDirection)"]
        if case .letterbox = layout {
            let canvas = canvas(for: frameSize).map { ",width=\($0.width),height=\($0.height)" } ?? ""
            parts += ["videoscale name=\(namePrefix)scale add-borders=true",
                      "capsfilter name=\(namePrefix)canvas caps=video/x-raw\(canvas),pixel-aspect-ratio=1/1"]
        }
        return parts.joined(separator: " ! ")
    }

    /// Adds the elements to `bin` and links them; the caller links into `entry` and out of
    /// `exit`. `frameSize` is the size of the frames coming in (the letterbox canvas when
    /// the layout gives none). The current angle is set before any frame flows.
    public func build(in bin: Bin, frameSize: VideoSize? = nil) throws -> (entry: Element, exit: Element) {
        var chain: [Element] = []
        let flip = try Element(factory: "videoflip", name: "\(namePrefix)flip")
        chain.append(flip)
        if case .letterbox = layout {
            guard let canvas = canvas(for: frameSize) else {
                throw CaptureError.invalidArgument("a letterbox preview needs a canvas size (e.g. 640x480) or the frame size")
            }
            guard canvas.fits420 else {
                throw CaptureError.invalidArgument("preview canvas \(canvas) must have even, positive sides (e.g. 640x480)")
            }
            let scale = try Element(factory: "videoscale", name: "\(namePrefix)scale")
            try scale.set("add-borders", true)
            let box = try Element(factory: "capsfilter", name: "\(namePrefix)canvas")
            try box.set("caps", try Caps("video/x-raw,width=\(canvas.width),height=\(canvas.height),pixel-aspect-ratio=1/1"))
            chain += [scale, box]
        }
        try bin.add(chain)
        for (a, b) in zip(chain, chain.dropFirst()) { try a.link(to: b) }
        let angle = state.withLock { s in
            s.flip = flip
            s.framesIn = 0
            s.lastTurn = nil
            return s.angle
        }
        try flip.set("video-direction", EnumNick(angle.videoDirection))
        // Counts the frames coming in (the streaming thread: only a count under the lock).
        flip.staticPad("sink")!.addProbe(.buffer) { [weak self] _ in
            self?.state.withLock { $0.framesIn += 1 }
            return .ok
        }
        return (flip, chain.last!)
    }

    /// Turns the pixels: `videoflip video-direction`, allowed while playing. Before `build`
    /// the angle is kept for it.
    public func apply(rotation: RotationAngle) {
        let (flip, changed) = state.withLock { s in
            defer { s.angle = rotation }
            return (s.flip, s.angle != rotation)
        }
        guard let flip else { return }
        try? flip.set("video-direction", EnumNick(rotation.videoDirection))
        guard changed else { return }
        // Read the count after setting: every frame counted later entered the flip after it.
        let now = DispatchTime.now().uptimeNanoseconds
        state.withLock { s in
            s.lastTurn = Turn(angle: rotation, appliedAt: now, firstFrame: s.framesIn + 1)
        }
    }

    /// The angle last applied.
    public var rotation: RotationAngle { state.withLock { $0.angle } }

    /// Frames that entered the flip since `build`.
    public var framesIn: Int { state.withLock { $0.framesIn } }

    /// The last change of angle since `build`.
    public var lastTurn: Turn? { state.withLock { $0.lastTurn } }

    /// Lets go of the elements (their branch is gone); the angle is kept.
    public func release() {
        state.withLock { $0.flip = nil }
    }
}
