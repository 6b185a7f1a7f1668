import GStreamer

/// The start of a branch, made ahead of the request that will use it: a bin holding only
/// a leaky queue, already PLAYING in the pipeline, its source pad blocked, not yet linked
/// to the tee. Taking a request then costs a tee pad and one link, so the branch's first
/// frame is the first one the camera delivers after the request; the output's own
/// elements are built behind the blocked queue while the frames wait there.
final class BranchHead: Sendable {
    let bin: Bin
    /// The leaky queue: gives the branch its own streaming thread and drops frames for
    /// this branch only when it falls behind.
    let queue: Element
    /// The bin's sink ghost pad (target: the queue's sink pad).
    let entry: Pad
    /// The queue's source pad, blocked until the branch is complete.
    let queueSource: Pad
    private let block: UInt

    var name: String { bin.name }

    /// Builds the head inside `pipeline` and brings it to the pipeline's state.
    init(name: String, in pipeline: Pipeline) throws {
        bin = try Bin(name: name)
        queue = try Element(factory: "queue", name: "head")
        try queue.set("leaky", EnumNick("downstream"))
        try queue.set("max-size-bytes", 0)
        try queue.set("max-size-time", 0)
        try bin.add(queue)
        entry = try bin.addGhostPad("sink", target: queue.staticPad("sink")!)
        queueSource = queue.staticPad("src")!
        // BLOCK: data and events wait at the pad, in order, until the probe is removed.
        block = queueSource.addProbe([.block, .buffer, .bufferList, .eventDownstream]) { _ in .ok }
        try pipeline.add(bin)
        do {
            try bin.syncStateWithParent()
        } catch {
            try? bin.setState(.null)
            try? pipeline.remove(bin)
            throw error
        }
    }

    /// How many frames the queue may hold before it drops the oldest.
    func setLimit(_ frames: Int) throws {
        try queue.set("max-size-buffers", max(frames, 1))
    }

    /// Lets the frames go on into the branch.
    func open() {
        queueSource.removeProbe(block)
    }

    /// Takes an unused head out of the pipeline.
    func discard(from pipeline: Pipeline) {
        try? bin.setState(.null)
        try? pipeline.remove(bin)
    }
}
