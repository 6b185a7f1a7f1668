internal import CGStreamer
import GLib
internal import CGStreamerShim

/// An owned GstElement.
public class Element: Object, @unchecked Sendable {
    var element: UnsafeMutablePointer<GstElement> { cast(raw) }

    /// gst_element_factory_make. A missing factory is an error naming it.
    public convenience init(factory: String, name: String? = nil) throws(GStreamerError) {
        try Gst.initialize()
        guard let e = gst_element_factory_make(factory, name) else {
            throw GStreamerError(domain: GStreamerError.coreDomain, code: Int(GST_CORE_ERROR_MISSING_PLUGIN.rawValue),
                                 message: "no element \"\(factory)\": the plugin that provides it is not installed")
        }
        self.init(raw: UnsafeMutableRawPointer(e))
    }

    /// Wraps an element pointer as the most specific Swift class.
    package static func wrap(_ raw: UnsafeMutableRawPointer, retain: Bool) -> Element {
        let type = plumb_object_type(raw)
        if g_type_is_a(type, gst_pipeline_get_type()) != 0 { return Pipeline(raw: raw, retain: retain) }
        if g_type_is_a(type, gst_bin_get_type()) != 0 { return Bin(raw: raw, retain: retain) }
        return Element(raw: raw, retain: retain)
    }

    /// The factory's name ("videotestsrc"), nil for bins made in code.
    public var factoryName: String? {
        guard let f = gst_element_get_factory(element) else { return nil }
        // gst_plugin_feature_get_name is a macro over the object name.
        return takeString(gst_object_get_name(UnsafeMutablePointer<GstObject>(f)))
    }

    /// The bin holding this element.
    public var parent: Element? {
        guard let p = gst_object_get_parent(gstObject) else { return nil }
        return Element.wrap(UnsafeMutableRawPointer(p), retain: false)
    }

    // MARK: State

    /// gst_element_set_state, then waits up to `timeout` for an asynchronous change.
    /// A failure throws the bus error that caused it when there is one (a pipeline's
    /// bus errors are recorded as they are posted); a bus error during the wait ends
    /// the wait with that error; otherwise a time-out throws `GStreamerError.OwnCode.stateChangeTimedOut`.
    /// After a failure or time-out the element is left as GStreamer left it: set it to `.null`.
    public func setState(_ state: State, timeout: Duration = .seconds(10)) throws(GStreamerError) {
        let recorder = errorRecorder
        recorder?.clear()
        let result = gst_element_set_state(element, state.gst)
        if result == GST_STATE_CHANGE_FAILURE {
            throw recorder?.take(waiting: Self.errorGrace)
                ?? GStreamerError(code: GStreamerError.OwnCode.stateChangeFailed.rawValue,
                                  message: "\(name) could not change state to \(state)", source: path)
        }
        guard result == GST_STATE_CHANGE_ASYNC else { return }
        // A bin aborts its pending change (FAILURE below) when a child's error reaches
        // it; waiting in short slices also ends the wait on a recorded error that
        // did not abort it, instead of sitting out the whole time-out.
        let clock = ContinuousClock()
        let deadline = clock.now.advanced(by: timeout)
        while true {
            let remaining = clock.now.duration(to: deadline)
            let slice = min(max(remaining, .zero), .milliseconds(50))
            var current = GST_STATE_VOID_PENDING, pending = GST_STATE_VOID_PENDING
            let waited = gst_element_get_state(element, &current, &pending, GstClockTime(slice.nanoseconds))
            if waited == GST_STATE_CHANGE_FAILURE {
                throw recorder?.take(waiting: Self.errorGrace)
                    ?? GStreamerError(code: GStreamerError.OwnCode.stateChangeFailed.rawValue,
                                      message: "\(name) failed to reach \(state)", source: path)
            }
            if waited != GST_STATE_CHANGE_ASYNC { return }
            if let error = recorder?.take() { throw error }
            if remaining <= .zero {
                throw GStreamerError(code: GStreamerError.OwnCode.stateChangeTimedOut.rawValue,
                                     message: "\(name) did not reach \(state) within \(timeout) "
                                         + "(still \(State(current)), going to \(State(pending)))",
                                     source: path)
            }
        }
    }

    /// How long a failed change waits for the bus error that explains it
    /// (see `ErrorRecorder.take(waiting:)`); only a failure without any error waits it all.
    static let errorGrace: Duration = .milliseconds(500)

    /// The current state, without waiting.
    public var currentState: State {
        var current = GST_STATE_VOID_PENDING, pending = GST_STATE_VOID_PENDING
        gst_element_get_state(element, &current, &pending, 0)
        return State(current)
    }

    /// gst_element_sync_state_with_parent: brings an element added to a running bin up to its state.
    public func syncStateWithParent() throws(GStreamerError) {
        let recorder = errorRecorder
        recorder?.clear()
        guard gst_element_sync_state_with_parent(element) != 0 else {
            throw recorder?.take(waiting: Self.errorGrace)
                ?? GStreamerError(code: GStreamerError.OwnCode.stateChangeFailed.rawValue,
                                  message: "\(name) could not follow its parent's state", source: path)
        }
    }

    /// The pipeline bus's error recorder, found through the top-level parent.
    var errorRecorder: ErrorRecorder? {
        var top: Element = self
        while let p = top.parent { top = p }
        return (top as? Pipeline)?.recorder
    }

    // MARK: Pads and links

    public func staticPad(_ name: String) -> Pad? {
        gst_element_get_static_pad(element, name).map { Pad(raw: UnsafeMutableRawPointer($0)) }
    }

    /// gst_element_request_pad_simple ("src_%u" on a tee).
    public func requestPad(_ template: String) throws(GStreamerError) -> Pad {
        guard let p = gst_element_request_pad_simple(element, template) else {
            throw GStreamerError(message: "\(name) has no request pad template \"\(template)\"", source: path)
        }
        return Pad(raw: UnsafeMutableRawPointer(p))
    }

    public func releaseRequestPad(_ pad: Pad) {
        gst_element_release_request_pad(element, pad.pad)
    }

    public var pads: [Pad] {
        collect(gst_element_iterate_pads(element)) { Pad(raw: $0, retain: true) }
    }

    /// gst_element_link_filtered; the error says why when the caps cannot meet.
    public func link(to other: Element, filter: Caps? = nil) throws(GStreamerError) {
        if gst_element_link_filtered(element, other.element, filter?.pointer) == 0 {
            throw GStreamerError(domain: GStreamerError.parseDomain, code: ParseErrorCode.link.rawValue,
                                 message: "could not link \(name) to \(other.name)", source: path)
        }
    }

    public func unlink(from other: Element) {
        gst_element_unlink(element, other.element)
    }

    /// gst_element_send_event.
    @discardableResult
    public func send(_ event: Event) -> Bool {
        gst_element_send_event(element, event.make()) != 0
    }

    /// gst_element_get_base_time + clock: the running time now, or nil without a clock.
    public var runningTime: ClockTime? {
        guard let clock = gst_element_get_clock(element) else { return nil }
        defer { gst_object_unref(UnsafeMutableRawPointer(clock)) }
        let now = gst_clock_get_time(clock)
        let base = gst_element_get_base_time(element)
        return ClockTime(now >= base ? now - base : 0)
    }
}

extension Duration {
    /// Whole nanoseconds, for GstClockTime arguments (negative durations give 0).
    public var nanoseconds: UInt64 {
        let (seconds, attoseconds) = components
        guard seconds >= 0 else { return 0 }
        return UInt64(seconds) * 1_000_000_000 + UInt64(attoseconds / 1_000_000_000)
    }
}

/// Walks a GstIterator of objects; the iterator is freed. A resync restarts the walk.
func collect<T>(_ iterator: UnsafeMutablePointer<GstIterator>?, _ make: (UnsafeMutableRawPointer) -> T) -> [T] {
    guard let iterator else { return [] }
    defer { gst_iterator_free(iterator) }
    var result: [T] = []
    var value = GValue()
    var done = false
    while !done {
        switch gst_iterator_next(iterator, &value) {
        case GST_ITERATOR_OK:
            if let object = g_value_get_object(&value) { result.append(make(object)) }
            g_value_reset(&value)
        case GST_ITERATOR_RESYNC:
            result.removeAll()
            gst_iterator_resync(iterator)
        default:
            done = true
        }
    }
    g_value_unset(&value)
    return result
}
