import GStreamer
import Synchronization

/// What feeds an `EncodedStream` from a capture branch: the appsink of an encoder branch
/// (the main encoding, the preview's own), or a probe on a recording's pad between its
/// encoder and its muxer (`RecordingOptions.feeds`: the recording's encoder runs the main
/// encoding while it records). Its frames are handed to the stream on the branch's
/// streaming thread; keyframe requests go upstream from `pad` to the branch's encoder.
public final class EncodedStreamFeed: Sendable {
    /// The appsink's sink pad, or the tapped pad (a sink pad: an event pushed from it goes
    /// upstream to the encoder).
    let pad: Pad
    let sink: AppSink?
    private let probe = Mutex<UInt?>(nil)

    init(sink: AppSink) throws {
        guard let pad = sink.staticPad("sink") else { throw GStreamerError(message: "appsink without a sink pad") }
        self.pad = pad
        self.sink = sink
    }

    init(tap pad: Pad) {
        self.pad = pad
        sink = nil
    }

    /// Hands each frame to `deliver` from now on; a tapped pad's end of stream (its branch
    /// drained: no frame will follow) to `ended`.
    func start(_ deliver: @escaping @Sendable (EncodedStreamFeed, Buffer, Caps?) -> Void,
               ended: @escaping @Sendable (EncodedStreamFeed) -> Void) throws {
        if let sink {
            try sink.set("sync", false)
            try sink.set("async", false)
            try sink.set("enable-last-sample", false)
            sink.onNewSample { [weak self] sink in
                guard let sample = sink.pull(timeout: .zero), let buffer = sample.buffer, let self else { return }
                deliver(self, self.onRunningTime(buffer), sample.caps)
            }
            return
        }
        let id = pad.addProbe([.buffer, .eventDownstream]) { [weak self] pad, info in
            guard let self else { return .ok }
            if let buffer = info.retainedBuffer {
                deliver(self, self.onRunningTime(buffer), pad.currentCaps)
            } else if info.isEOS {
                ended(self)
            }
            return .ok
        }
        probe.withLock { $0 = id }
    }

    /// No more frames from it.
    func stop() {
        sink?.clearCallbacks()
        if let id = probe.withLock({ p in defer { p = nil }; return p }) { pad.removeProbe(id) }
    }

    /// The frame stamped with its running time (from the segment at the feed), as DTS too
    /// (no B-frames): each encoder puts an offset of its own on its timestamps (x264enc's
    /// depends on its first frame), and the stream's frames must run on one line whichever
    /// encoder made them.
    private func onRunningTime(_ buffer: Buffer) -> Buffer {
        guard let pts = buffer.pts, let time = pad.runningTime(of: pts) else { return buffer }
        return buffer.retimed(pts: time, dts: time)
    }
}
