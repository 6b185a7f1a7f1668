import FoundationEssentials
import Glibc
import GStreamer
import PlumbDescription
import PlumbMedia
import PlumbRotation
import Synchronization

/// One event clip's file: `appsrc ! mp4mux ! filesink` in a pipeline of its own, fed with
/// already-encoded frames (from the pre-record ring, then live), written under a hidden
/// temporary name and renamed to its real name once finished.
///
/// The muxer writes fragments (`first-moov-then-finalise`, as recordings do), so a power
/// cut leaves a file the start-up repair can save; the temporary name is a hidden one
/// (`.event-tmp-NAME`) that nothing lists, serves or repairs, and
/// `EventRecorder.recoverLeftovers` gives it back its real name before the repair runs.
final class EventClipWriter: Sendable {
    let temporary: URL
    let target: URL
    private let pipeline: Pipeline
    private let source: AppSrc
    private let runner: PipelineRunner
    /// The pipeline followed from `follow(onFailure:)` on, rather than from `finish()`.
    private let running = Mutex<Task<PipelineRunner.Outcome, Never>?>(nil)

    /// `location`: where the clip starts, written into every movie header (nil: none).
    init(temporary: URL, target: URL, codec: VideoCodec, angle: RotationAngle, matrixWriter: (any TrackMatrixWriter)?,
         location: MP4LocationWriter? = nil) throws {
        self.temporary = temporary
        self.target = target
        pipeline = try Pipeline(name: "event-clip")
        source = try AppSrc(name: "frames")
        try source.set("format", EnumNick("time"))
        try source.set("is-live", false)
        try source.set("do-timestamp", false)
        let mux = try Element(factory: "mp4mux", name: "mux")
        try mux.set("fragment-duration", 1000)
        try mux.set("fragment-mode", EnumNick("first-moov-then-finalise"))
        let sink = try Element(factory: "filesink", name: "file")
        try sink.set("location", temporary.path)
        try sink.set("buffer-mode", EnumNick("unbuffered"))
        try sink.set("sync", false)
        try sink.set("async", false)
        // The frames come as the main encoding makes them (byte-stream, `MainEncodingOutput`):
        // the parser makes them what mp4mux takes.
        let parser = try Element(factory: codec == .h264 ? "h264parse" : "h265parse", name: "parse")
        try pipeline.add(source, parser, mux, sink)
        try source.link(to: parser)
        // The caps choose mp4mux's video pad (without them it offers its audio pad first).
        try parser.link(to: mux, filter: try Caps(codec == .h264 ? "video/x-h264,stream-format=avc,alignment=au"
                                                       : "video/x-h265,stream-format=hvc1,alignment=au"))
        try mux.link(to: sink)
        if let matrixWriter, let pad = mux.staticPad("src") {
            // A clip without its matrix is still a clip; the facts carry the angle.
            try? matrixWriter.install(on: pad, angle: angle)
        }
        try location?.install(on: mux)
        runner = PipelineRunner(pipeline: pipeline)
        do {
            try pipeline.setState(.playing)
        } catch {
            _ = try? pipeline.setState(.null)
            unlink(temporary.path)
            throw error
        }
    }

    /// Queues one frame, stamped `time` on the clip's own timeline (0 for its first).
    /// Never blocks: it runs on the capture branch's streaming thread.
    func push(_ buffer: Buffer, caps: Caps?, time: ClockTime) -> Bool {
        (try? source.push(Sample(buffer: buffer.retimed(pts: time, dts: time), caps: caps))) != nil
    }

    /// Follows the pipeline from now on (not only from `finish()`): `onFailure` hears of an
    /// error as it happens (a full disk), on a task of its own.
    func follow(onFailure: @escaping @Sendable () -> Void) {
        let runner = self.runner
        let task = Task {
            let outcome = await runner.run()
            if case .failed = outcome { onFailure() }
            return outcome
        }
        running.withLock { $0 = task }
    }

    /// No more frames: the muxer finishes the file once it has written what it holds.
    func end() { try? source.endOfStream() }

    /// Waits until the file is finished (or failed), stops the pipeline, and moves the file
    /// to its real name — a failed one too when it holds anything (the start-up repair saves
    /// what it can; the listing shows only files with a movie header).
    func finish() async -> PipelineFailure? {
        let followed = running.withLock { $0 }
        let outcome = if let followed { await followed.value } else { await runner.run() }
        let failure: PipelineFailure? = switch outcome {
        case .finished: nil
        case .failed(let error): error
        case .aborted: PipelineFailure(message: "the clip was torn down before it was finished")
        }
        // A fragment header the failure cut short is cut off: readers would find no frame at all.
        if failure != nil { _ = try? MP4File.trimTornFragment(path: temporary.path) }
        var info = stat()
        if stat(temporary.path, &info) == 0, info.st_size > 0 {
            if rename(temporary.path, target.path) != 0 {
                return failure ?? PipelineFailure(message: "cannot rename \(temporary.path) to \(target.path): "
                                                  + String(cString: strerror(errno)))
            }
        } else {
            unlink(temporary.path)
        }
        return failure
    }

    /// Ends the file from outside (a stop), when no frame will come to end it.
    func stop() { runner.stop(reason: "plumb is stopping") }
}
