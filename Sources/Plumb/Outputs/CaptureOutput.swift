import GStreamer
import PlumbRotation

/// A branch of the session's tee: a still, a recording, a preview.
///
/// The session owns the branch's plumbing — a bin named after `kind`, a leaky head queue
/// linked to a tee request pad, the teardown — and asks the output only for the elements
/// after that queue. Outputs are classes shared between the session's executor and the
/// streaming threads, hence `Sendable`; their callbacks from streaming threads only hand off.
public protocol CaptureOutput: AnyObject, Sendable {
    /// A short name for the branch bin and for errors ("photo", "recording", "preview").
    var kind: String { get }

    /// How many frames the head queue may hold before it drops the oldest. Frames are
    /// dropped in this branch only, never in the others.
    var queueLimit: Int { get }

    /// Builds the branch after the head queue into `bin`. Runs on the session's executor
    /// while the head queue holds the frames back: nothing flows until this returns and
    /// `apply(rotation:)` has been called. Sinks should not be `async` (they would make the
    /// running pipeline wait for a preroll).
    func build(in bin: Bin, format: CaptureFormat, camera: CameraSource) throws -> BranchEnds

    /// Called on the session's executor with the branch's entry (the head queue's sink, where
    /// the tee's frames come in) before it is linked to the tee, so a probe there sees every
    /// frame the branch is given. `numbered`: the frames' offsets are the camera driver's
    /// frame numbers (`CameraSource.numbersItsFrames`). The default does nothing.
    func willReceiveFrames(at entry: Pad, format: CaptureFormat, numbered: Bool)

    /// Sets the rotation. Called before the branch's first frame and whenever the
    /// session's angle changes. The default does nothing.
    func apply(rotation: RotationAngle)

    /// Which of the session's two angles `apply(rotation:)` gets: the preview angle (pixels
    /// shown on a display that may itself be turned) or, by default, the capture angle
    /// (stills and recordings, which carry it as metadata).
    var usesPreviewAngle: Bool { get }

    /// Called on the session's executor once the branch is linked; `requestTime` is the
    /// pipeline's running time when the session took the request.
    func didAttach(requestTime: ClockTime?)

    /// Called on the session's executor after the branch has been drained and removed;
    /// `error` says why when it failed or could not be drained.
    func didDetach(error: (any Error)?)

    /// Called on the session's executor when the branch was built (`build` may have run) but
    /// taken out before any frame passed into it: its build failed, or a file swap did not
    /// come. The output lets go of what its build handed out (an encoded stream's feed). The
    /// default does nothing.
    func didDiscard()
}

/// The two ends of an output's elements.
public struct BranchEnds: Sendable {
    /// Linked from the head queue.
    public var entry: Element
    /// The element whose sink pad sees EOS last: when EOS reaches it, the branch is drained.
    public var sink: Element

    public init(entry: Element, sink: Element) {
        self.entry = entry
        self.sink = sink
    }
}

extension CaptureOutput {
    public var queueLimit: Int { 8 }
    public func willReceiveFrames(at entry: Pad, format: CaptureFormat, numbered: Bool) {}
    public func apply(rotation: RotationAngle) {}
    public var usesPreviewAngle: Bool { false }
    public func didAttach(requestTime: ClockTime?) {}
    public func didDetach(error: (any Error)?) {}
    public func didDiscard() {}
}
