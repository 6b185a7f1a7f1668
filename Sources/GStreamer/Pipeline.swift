internal import CGStreamer
internal import CGStreamerShim
import Dispatch
import FoundationEssentials
import Glibc
import Synchronization
import GLib

/// An owned GstPipeline. Its bus's error messages are also recorded on the
/// posting thread, so a failed state change can throw the error that caused it
/// even while the bus watch delivers the same message to Swift.
public final class Pipeline: Bin, @unchecked Sendable {
    /// Shared by every wrapper of the same GstPipeline (a bus has one sync handler).
    let recorder: ErrorRecorder

    public convenience init(name: String? = nil) throws(GStreamerError) {
        try Gst.initialize()
        self.init(raw: UnsafeMutableRawPointer(gst_pipeline_new(name)!))
    }

    override init(raw: UnsafeMutableRawPointer, retain: Bool = false) {
        recorder = ErrorRecorder.attached(to: raw)
        super.init(raw: raw, retain: retain)
    }

    /// gst_parse_launch_full with fatal errors: a gst-launch description to a pipeline.
    /// A description whose top level is a single element is placed in a new pipeline.
    public static func parse(_ description: String) throws(GStreamerError) -> Pipeline {
        try Gst.initialize()
        var error: UnsafeMutablePointer<GError>?
        let result = gst_parse_launch_full(description, nil, GST_PARSE_FLAG_FATAL_ERRORS, &error)
        guard let result else {
            throw GStreamerError(taking: error, fallback: "could not parse the pipeline description")
        }
        if let error { g_error_free(error) }
        let top = Element.wrap(UnsafeMutableRawPointer(result), retain: false)
        if let pipeline = top as? Pipeline { return pipeline }
        let pipeline = try Pipeline()
        try pipeline.add(top)
        return pipeline
    }

    /// The pipeline's bus messages, delivered from a bus watch attached to
    /// `context` — the pipeline's own GMainContext, iterated by a thread its
    /// owner controls (`MainContextThread`, or the capture session's executor).
    /// A bus has one watch: call this once per pipeline. Ending the stream removes the watch.
    public func messages(on context: MainContext) -> AsyncStream<BusMessage> {
        let (stream, continuation) = AsyncStream<BusMessage>.makeStream(bufferingPolicy: .unbounded)
        let watch = MessageWatch(pipeline: self, context: context) { message in
            continuation.yield(message.typed)
        }
        continuation.onTermination = { _ in watch.cancel() }
        return stream
    }

    /// Sends EOS into the pipeline (to every source); the bus reports EOS once every sink has it.
    public func sendEOS() {
        send(.eos)
    }

    /// The pipeline's clock time minus its base time.
    public var position: ClockTime? {
        var pos: gint64 = 0
        guard gst_element_query_position(element, GST_FORMAT_TIME, &pos) != 0, pos >= 0 else { return nil }
        return ClockTime(pos)
    }
}

/// The first bus error since the last `clear()`, recorded on the posting thread.
///
/// One per GstPipeline, kept as the pipeline's qdata: any number of Swift wrappers
/// of the same pipeline (`element.parent`, `bin.element(named:)`) share it, and the
/// bus's single sync handler is installed once. Both references are released by
/// GLib when the pipeline (qdata) and its bus (sync handler) are finalized.
///
/// The wait is on a semaphore, whose timeout runs on the monotonic clock: a condition's
/// deadline is wall time, which a clock set back by NTP would stretch by as much.
final class ErrorRecorder: Sendable {
    private let error = Mutex<GStreamerError?>(nil)
    /// Signalled once per recorded error.
    private let arrived = DispatchSemaphore(value: 0)

    func clear() { error.withLock { $0 = nil } }

    func record(_ e: GStreamerError?) {
        guard let e else { return }
        error.withLock { if $0 == nil { $0 = e } }
        arrived.signal()
    }

    /// The recorded error, taken away; waits up to `grace` for one to arrive. A bin
    /// aborts its state change as soon as a child's error reaches it, slightly before
    /// the same message is posted on the pipeline's bus (where it is recorded), so a
    /// failure seen by the waiting thread can be ahead of its error.
    func take(waiting grace: Duration = .zero) -> GStreamerError? {
        let nanoseconds = grace.components.seconds * 1_000_000_000 + grace.components.attoseconds / 1_000_000_000
        let deadline = DispatchTime.now() + .nanoseconds(Int(max(0, nanoseconds)))
        while true {
            // Signals left over from errors taken earlier only make this look once more.
            if let taken = error.withLock({ e in defer { e = nil }; return e }) { return taken }
            if arrived.wait(timeout: deadline) == .timedOut {
                return error.withLock { e in defer { e = nil }; return e }
            }
        }
    }

    private static let quark = g_quark_from_string("plumb-error-recorder")
    private static let installLock = Mutex(())

    /// The pipeline's recorder, installing it (qdata + bus sync handler) on first use.
    static func attached(to pipeline: UnsafeMutableRawPointer) -> ErrorRecorder {
        let object: UnsafeMutablePointer<GObject> = cast(pipeline)
        return installLock.withLock { _ in
            if let existing = g_object_get_qdata(object, quark) {
                return Unmanaged<ErrorRecorder>.fromOpaque(existing).takeUnretainedValue()
            }
            let recorder = ErrorRecorder()
            g_object_set_qdata_full(object, quark, Unmanaged.passRetained(recorder).toOpaque()) { userData in
                if let userData { Unmanaged<ErrorRecorder>.fromOpaque(userData).release() }
            }
            let bus = gst_element_get_bus(cast(pipeline))!
            defer { gst_object_unref(UnsafeMutableRawPointer(bus)) }
            // Runs on whichever thread posts; it only copies an error and passes every message on.
            gst_bus_set_sync_handler(bus, { _, message, userData in
                if let message, let userData, message.pointee.type == GST_MESSAGE_ERROR {
                    Unmanaged<ErrorRecorder>.fromOpaque(userData).takeUnretainedValue()
                        .record(Message(retaining: message).error)
                }
                return GST_BUS_PASS
            }, Unmanaged.passRetained(recorder).toOpaque(), { userData in
                if let userData { Unmanaged<ErrorRecorder>.fromOpaque(userData).release() }
            })
            return recorder
        }
    }
}
