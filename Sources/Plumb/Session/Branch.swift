import GStreamer
import Synchronization

/// One attached output's plumbing in the session's pipeline:
/// `tee.src_N -> [bin: head queue -> output's elements]`.
final class Branch: Sendable {
    let output: any CaptureOutput
    let bin: Bin
    /// The leaky queue at the head: holds frames back while the branch is being built,
    /// gives the branch its own streaming thread, and drops frames for this branch only.
    let head: Element
    /// The bin's sink ghost pad (target: the head queue's sink pad).
    let entry: Pad
    /// The tee's request pad feeding `entry`.
    let teePad: Pad
    /// The element whose sink pad sees EOS last.
    let sink: Element
    /// Set once the branch has stopped the data flow (an error or EOS came back up):
    /// from then on its tee pad drops frames so the other branches keep theirs.
    let failed = Atomic<Bool>(false)

    init(output: any CaptureOutput, bin: Bin, head: Element, entry: Pad, teePad: Pad, sink: Element) {
        self.output = output
        self.bin = bin
        self.head = head
        self.entry = entry
        self.teePad = teePad
        self.sink = sink
    }

    var name: String { bin.name }

    /// Whether a bus message's source path lies inside this branch.
    func contains(path: String?) -> Bool {
        guard let path else { return false }
        return path.contains(":\(name)/") || path.hasSuffix(":\(name)")
    }
}
