import PlumbRotation

/// Where one recording file (`RecordingOutput`) is in its life, as one value: each event is
/// a mutating method that says what to do next, and the output does it. Generic over the
/// branch's plumbing (the pads the angle and the keyframe request go to) so that the table
/// is tested without GStreamer.
///
/// | from | event | to | the output then |
/// |---|---|---|---|
/// | made | startBuild | building | makes its elements |
/// | building, built, latched, ended | startBuild | the same | refuses: one file per output |
/// | building | built(plumbing) | built | |
/// | built | latch(angle) | latched | sends the angle to the muxer (or the burn-in) |
/// | made, building, latched, ended | latch | the same | nothing: a file has one angle |
/// | built, latched | attached | the same | asks the encoder for a keyframe |
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
    /// The branch is gone; `failure`: the facts of a file whose branch failed.
    case ended(RotationAngle?, failure: RecordingFacts?)

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
        guard case .built(let plumbing) = self else { return nil }
        self = .latched(plumbing, angle)
        return plumbing
    }

    /// The branch is attached: the plumbing to ask for the first keyframe through.
    func attached() -> Plumbing? {
        switch self {
        case .built(let plumbing), .latched(let plumbing, _): plumbing
        case .made, .building, .ended: nil
        }
    }

    /// The branch is gone. False when it had ended already.
    mutating func ended(failure: RecordingFacts?) -> Bool {
        if case .ended = self { return false }
        self = .ended(angle, failure: failure)
        return true
    }

    /// The file's angle, once latched.
    var angle: RotationAngle? {
        switch self {
        case .latched(_, let angle): angle
        case .ended(let angle, _): angle
        case .made, .building, .built: nil
        }
    }

    /// The facts of a file whose branch failed, once it has ended.
    var failure: RecordingFacts? {
        if case .ended(_, let failure) = self { return failure }
        return nil
    }
}

extension RecordingStage: Sendable where Plumbing: Sendable {}
