import FoundationEssentials
import Glibc
import GStreamer
import PlumbDescription
import PlumbMedia
import Synchronization
import PlumbRotation

/// Rotation for a user's own pipeline (a description file), through its element roles:
///
/// - every `videoflip` named `preview_flip` (or `preview_flip_...`) turns live with the
///   observer's *preview* angle: the current one at `start()`, then every change, in order;
/// - every `mp4mux`/`qtmux` named `rec_mux` (or `rec_mux_...`) gets the *capture* angle
///   in its file's `tkhd` matrix (an `MP4MatrixWriter.Probe` on its src pad). The angle is
///   latched when the first frame reaches that muxer — the start of its recording — so a
///   sensor read while the pipeline starts up still counts.
///
/// What `plumb run --accelerometer ...` uses. Create it after parsing and call `start()`
/// before the pipeline plays.
public final class RoleRotator: Sendable {
    /// The names of the `preview_flip` elements turned live.
    public let flips: [String]
    /// The names of the `rec_mux` muxers whose matrix is written.
    public let muxers: [String]
    public let observer: RotationObserver

    private let flipElements: [Element]
    private let muxElements: [Element]

    private struct State {
        var started = false
        var follower: RotationFollower?
        var preview: RotationAngle?
        var previewChanges = 0
        var latched: [String: RotationAngle] = [:]
        var writers: [String: MP4MatrixWriter.Probe] = [:]
    }

    private let state = Mutex(State())

    /// Finds the role elements in `pipeline`.
    /// - Throws: an element that carries a role but is not of a factory the role needs
    ///   (a `preview_flip` that is not a `videoflip`, a `rec_mux` that is neither `mp4mux`
    ///   nor `qtmux`): rename it or change the element.
    public init(pipeline: Pipeline, observer: RotationObserver) throws(CaptureError) {
        var flips: [Element] = [], muxers: [Element] = []
        for element in pipeline.allElements {
            let name = element.name
            switch ElementRole.of(elementName: name) {
            case .previewFlip?:
                guard element.factoryName == "videoflip" else {
                    throw .invalidArgument("\(name) has the role preview_flip but is a \(element.factoryName ?? element.typeName), "
                                         + "not a videoflip: rename it or make it a videoflip")
                }
                flips.append(element)
            case .recordingMux?:
                guard let factory = element.factoryName, ["mp4mux", "qtmux"].contains(factory) else {
                    throw .invalidArgument("\(name) has the role rec_mux but is a \(element.factoryName ?? element.typeName), "
                                         + "not an mp4mux or qtmux: rename it or make it one")
                }
                muxers.append(element)
            default:
                continue
            }
        }
        flipElements = flips.sorted { $0.name < $1.name }
        muxElements = muxers.sorted { $0.name < $1.name }
        self.flips = flipElements.map(\.name)
        self.muxers = muxElements.map(\.name)
        self.observer = observer
    }

    deinit {
        state.withLock { $0.follower }?.stop()
    }

    /// Whether the pipeline has anything to rotate.
    public var isEmpty: Bool { flips.isEmpty && muxers.isEmpty }

    /// Applies the current preview angle, arms the muxers, then follows the observer's
    /// preview angles with a `RotationFollower` (starting the observer if needed). Idempotent.
    public func start() {
        let go = state.withLock { s -> Bool in
            defer { s.started = true }
            return !s.started
        }
        guard go else { return }
        for mux in muxElements { arm(mux) }
        guard !flipElements.isEmpty else {
            applyPreview(observer.previewAngle)
            observer.start()
            return
        }
        let follower = RotationFollower(observer, seed: { applyPreview($0.preview) }, capture: nil,
                                        preview: { [weak self] angle in
                                            guard !Task.isCancelled else { return }
                                            self?.applyPreview(angle)
                                        })
        state.withLock { $0.follower = follower }
    }

    /// Stops following the observer; the flips keep their last angle.
    public func stop() {
        state.withLock { s in
            s.follower?.stop()
            s.follower = nil
        }
    }

    /// The preview angle last applied to the flips.
    public var previewRotation: RotationAngle? { state.withLock { $0.preview } }

    /// How many times the preview angle changed after `start()`.
    public var previewChanges: Int { state.withLock { $0.previewChanges } }

    /// The angle each muxer's file got (by muxer name), once its first frame came.
    public var latchedRotations: [String: RotationAngle] { state.withLock { $0.latched } }

    /// What the matrix writer of a muxer did (headers rewritten, failures), once latched.
    public func writerStatistics(mux name: String) -> MP4MatrixWriter.Probe.Statistics? {
        state.withLock { $0.writers[name] }?.statistics
    }

    // MARK: -

    private func applyPreview(_ angle: RotationAngle) {
        let changed = state.withLock { s -> Bool in
            defer { s.preview = angle }
            if let p = s.preview, p != angle { s.previewChanges += 1 }
            return s.preview != angle
        }
        guard changed else { return }
        for flip in flipElements {
            try? flip.set("video-direction", EnumNick(angle.videoDirection))
        }
    }

    /// Latches the capture angle at the first frame into `mux` (any of its sink pads) and
    /// installs the matrix writer for it on the muxer's src pad, before the muxer has
    /// written anything for that frame.
    private func arm(_ mux: Element) {
        guard let source = mux.staticPad("src") else { return }
        let name = mux.name
        let once = Atomic<Bool>(false)
        for pad in mux.pads where pad.direction == .sink {
            pad.addProbe(.buffer) { [weak self] _ in
                // The streaming thread: only adds a probe and records; no state change.
                guard once.compareExchange(expected: false, desired: true, ordering: .acquiringAndReleasing).exchanged,
                      let self else { return .remove }
                let angle = self.observer.captureAngle
                let writer = MP4MatrixWriter.Probe(rotation: angle)
                writer.install(on: source)
                self.state.withLock { s in
                    s.latched[name] = angle
                    s.writers[name] = writer
                }
                return .remove
            }
        }
    }
}
