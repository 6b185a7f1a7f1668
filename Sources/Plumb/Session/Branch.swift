import GStreamer
import Synchronization

/// One attached output's plumbing in the session's pipeline:
/// `tee.src_N -> [bin "branchN": head queue -> output's elements]`.
final class Branch: Sendable {
    let output: any CaptureOutput
    let head: BranchHead
    /// The tee's request pad feeding the head.
    let teePad: Pad
    /// The element whose sink pad sees EOS last.
    let sink: Element
    /// Keeps this branch's failure away from the tee.
    let flowGuard = FlowGuard()

    init(output: any CaptureOutput, head: BranchHead, teePad: Pad, sink: Element) {
        self.output = output
        self.head = head
        self.teePad = teePad
        self.sink = sink
    }

    var bin: Bin { head.bin }
    /// The bin's sink ghost pad.
    var entry: Pad { head.entry }

    var name: String { bin.name }

    /// Whether the branch stopped its data flow (it failed, or was marked failed).
    var failed: Bool { flowGuard.tripped }

    /// Whether a bus message's source path lies inside this branch.
    func contains(path: String?) -> Bool { Self.path(path, isInBranchNamed: name) }

    /// Whether `path` ("/GstPipeline:plumb-session/GstBin:branch3/GstX264Enc:encoder") is the
    /// branch bin `name` or lies inside it.
    static func path(_ path: String?, isInBranchNamed name: String) -> Bool {
        guard let path else { return false }
        return path.contains(":\(name)/") || path.hasSuffix(":\(name)")
    }
}

/// A tee pushes each frame to its pads in turn and stops at the first pad that returns an
/// error or EOS — and hands that result to the camera's source, which then stops. One
/// broken branch would stop them all. The guard, a buffer probe on the branch's tee pad,
/// drops the frames for a branch once its head queue's last push failed (or once it is
/// marked failed), so the tee sees OK and the other branches keep every frame. The queue
/// records that result before it can hand it back to the tee, so no failure slips through.
final class FlowGuard: Sendable {
    private let state = Atomic<Bool>(false)

    var tripped: Bool { state.load(ordering: .relaxed) }

    func trip() { state.store(true, ordering: .relaxed) }

    /// `queueSource` is the source pad of the queue the tee pad feeds.
    func install(on teePad: Pad, queueSource: Pad) {
        teePad.addProbe(.buffer) { [weak self] _ in
            guard let self else { return .ok }
            if self.tripped { return .drop }
            if queueSource.lastFlowReturn.stopsFlow {
                self.trip()
                return .drop
            }
            return .ok
        }
    }
}
