import FoundationEssentials
import Glibc
import GStreamer
import PlumbRotation

/// Where one recording file (`RecordingOutput`) is in its life, as one value: each event is
/// a mutating method that says what to do next, and the output does it. What the file's
/// frames tell lives in the stage that has them (`RecordingProgress`, from the first frame
/// on). Generic over the branch's plumbing (the pads the angle and the keyframe request go
/// to) so that the table is tested without GStreamer.
///
/// | from | event | to | the output then |
/// |---|---|---|---|
/// | made | startBuild | building | makes its elements |
/// | any but made | startBuild | the same | refuses: one file per output |
/// | building | built(plumbing) | built | |
/// | built | latch(angle) | latched | sends the angle to the muxer (or the burn-in) |
/// | keyframed without angle | latch(angle) | keyframed | sends the angle |
/// | any other | latch | the same | nothing: a file has one angle |
/// | built, latched | attached | the same | asks the encoder for a keyframe |
/// | built, latched | encoded(keyframe) | keyframed | lets it through to the muxer |
/// | built, latched | encoded(not a keyframe) | the same | drops it: a file starts decodable |
/// | made, building | encoded | the same | drops it: no branch |
/// | keyframed, recording, ended | encoded | the same | lets it through |
/// | built, latched, keyframed | frame | recording(first frame) | tells the waiters of the first frame |
/// | recording | frame | recording(one more) | |
/// | made, building, ended | frame | the same | nothing: no branch |
/// | any but ended | ended(failure) | ended | lets go of the pads; waiters hear the facts |
enum RecordingStage<Plumbing> {
    /// Made; its branch not built yet.
    case made
    /// Its elements are being made.
    case building
    /// Built; no angle yet.
    case built(Plumbing)
    /// The file's angle is fixed.
    case latched(Plumbing, RotationAngle)
    /// The first keyframe has left the encoder: from it on every frame goes to the muxer.
    case keyframed(Plumbing, RotationAngle?)
    /// The muxer has the file's first frame.
    case recording(Plumbing, RotationAngle?, RecordingProgress)
    /// The branch is gone; `failure`: the facts of a file whose branch failed.
    case ended(RotationAngle?, RecordingProgress?, failure: RecordingFacts?)

    /// What a frame reaching the muxer comes to.
    enum FrameAction: Equatable {
        /// The file's first frame, at this running time: its waiters hear it.
        case first(ClockTime)
        /// One more frame.
        case counted
        /// No branch to count it for.
        case ignored
    }

    /// `build`: false when the output was built before (it writes one file).
    mutating func startBuild() -> Bool {
        guard case .made = self else { return false }
        self = .building
        return true
    }

    /// The elements are made and linked: their pads.
    mutating func built(_ plumbing: Plumbing) {
        guard case .building = self else { return }
        self = .built(plumbing)
    }

    /// The first angle the file gets: the plumbing to give it to; nil when the file has its
    /// angle already (or has no branch).
    mutating func latch(_ angle: RotationAngle) -> Plumbing? {
        switch self {
        case .built(let plumbing):
            self = .latched(plumbing, angle)
            return plumbing
        case .keyframed(let plumbing, nil):
            self = .keyframed(plumbing, angle)
            return plumbing
        case .made, .building, .latched, .keyframed, .recording, .ended:
            return nil
        }
    }

    /// The branch is attached: the plumbing to ask for the first keyframe through (none once
    /// a keyframe has left the encoder).
    func attached() -> Plumbing? {
        switch self {
        case .built(let plumbing), .latched(let plumbing, _): plumbing
        case .made, .building, .keyframed, .recording, .ended: nil
        }
    }

    /// A frame left the encoder: whether it goes on to the muxer. Nothing before the first
    /// keyframe does (a recording must start decodable).
    mutating func encoded(keyframe: Bool) -> Bool {
        switch self {
        case .built(let plumbing) where keyframe:
            self = .keyframed(plumbing, nil)
            return true
        case .latched(let plumbing, let angle) where keyframe:
            self = .keyframed(plumbing, angle)
            return true
        case .made, .building, .built, .latched:
            return false
        case .keyframed, .recording, .ended:
            return true
        }
    }

    /// A frame from `pts` to `end` reached the muxer. `now`: the wall clock and the kernel's
    /// word on it, read for the first frame only; `counts`: the tee's counts at the frame,
    /// read while it is among the branch's recent entries.
    mutating func frame(pts: ClockTime, end: ClockTime, now: () -> (Date, synchronized: Bool?),
                        counts: () -> RecordingProgress.Counts?) -> FrameAction {
        switch self {
        case .built(let plumbing):
            self = .recording(plumbing, nil, Self.first(pts: pts, end: end, now: now, counts: counts))
        case .latched(let plumbing, let angle):
            self = .recording(plumbing, angle, Self.first(pts: pts, end: end, now: now, counts: counts))
        case .keyframed(let plumbing, let angle):
            self = .recording(plumbing, angle, Self.first(pts: pts, end: end, now: now, counts: counts))
        case .recording(let plumbing, let angle, var progress):
            progress.add(pts: pts, end: end, counts: counts)
            self = .recording(plumbing, angle, progress)
            return .counted
        case .made, .building, .ended:
            return .ignored
        }
        return .first(pts)
    }

    private static func first(pts: ClockTime, end: ClockTime, now: () -> (Date, synchronized: Bool?),
                              counts: () -> RecordingProgress.Counts?) -> RecordingProgress {
        let (date, synchronized) = now()
        return RecordingProgress(first: pts, end: end, at: date, clockSynchronized: synchronized, counts: counts())
    }

    /// The branch is gone. False when it had ended already.
    mutating func ended(failure: RecordingFacts?) -> Bool {
        if case .ended = self { return false }
        self = .ended(angle, progress, failure: failure)
        return true
    }

    /// The file's angle, once latched.
    var angle: RotationAngle? {
        switch self {
        case .latched(_, let angle): angle
        case .keyframed(_, let angle), .recording(_, let angle, _), .ended(let angle, _, _): angle
        case .made, .building, .built: nil
        }
    }

    /// What the file's frames told, once it has its first.
    var progress: RecordingProgress? {
        switch self {
        case .recording(_, _, let progress): progress
        case .ended(_, let progress, _): progress
        case .made, .building, .built, .latched, .keyframed: nil
        }
    }

    /// The facts of a file whose branch failed, once it has ended.
    var failure: RecordingFacts? {
        if case .ended(_, _, let failure) = self { return failure }
        return nil
    }
}

extension RecordingStage: Sendable where Plumbing: Sendable {}
