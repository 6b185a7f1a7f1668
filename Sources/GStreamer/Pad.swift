internal import CGStreamer
import FoundationEssentials
import Glibc
import GLib

/// An owned GstPad.
public final class Pad: Object, @unchecked Sendable {
    var pad: UnsafeMutablePointer<GstPad> { cast(raw) }

    public enum Direction: Sendable { case unknown, src, sink }

    public var direction: Direction {
        switch gst_pad_get_direction(pad) {
        case GST_PAD_SRC: return .src
        case GST_PAD_SINK: return .sink
        default: return .unknown
        }
    }

    /// The negotiated caps, nil before negotiation.
    public var currentCaps: Caps? { Pad.currentCaps(of: pad) }

    static func currentCaps(of pad: UnsafeMutablePointer<GstPad>) -> Caps? {
        gst_pad_get_current_caps(pad).map { Caps(taking: $0) }
    }

    /// gst_pad_query_caps: what the pad could accept or produce now.
    public func queryCaps(filter: Caps? = nil) -> Caps {
        Caps(taking: gst_pad_query_caps(pad, filter?.pointer))
    }

    public var peer: Pad? {
        gst_pad_get_peer(pad).map { Pad(raw: UnsafeMutableRawPointer($0)) }
    }

    /// gst_pad_link; the error names the result (wrong hierarchy, caps that do not meet ...).
    public func link(to sink: Pad) throws(GStreamerError) {
        let result = gst_pad_link(pad, sink.pad)
        guard result == GST_PAD_LINK_OK else {
            let reason = borrowString(gst_pad_link_get_name(result)) ?? "failed"
            throw GStreamerError(domain: GStreamerError.parseDomain, code: ParseErrorCode.link.rawValue,
                                 message: "could not link \(path) to \(sink.path): \(reason)")
        }
    }

    @discardableResult
    public func unlink(_ sink: Pad) -> Bool {
        gst_pad_unlink(pad, sink.pad) != 0
    }

    /// gst_pad_send_event (into this pad: downstream on a sink pad, upstream on a src pad).
    @discardableResult
    public func send(_ event: Event) -> Bool {
        gst_pad_send_event(pad, event.make()) != 0
    }

    /// gst_pad_push_event (out of this pad to its peer).
    @discardableResult
    public func push(_ event: Event) -> Bool {
        gst_pad_push_event(pad, event.make()) != 0
    }

    // MARK: Probes

    /// Adds a probe; `callback` runs on the streaming thread (or the caller's for
    /// IDLE on an idle pad) and must only hand work off. Returns the probe id.
    @discardableResult
    public func addProbe(_ kinds: ProbeKinds, _ callback: @escaping @Sendable (ProbeInfo) -> ProbeResult) -> UInt {
        addRawProbe(kinds) { _, info in callback(ProbeInfo(info)).gst }
    }

    /// gst_pad_add_probe with `body` boxed as its user data; GStreamer releases the box
    /// when the probe is removed (or the pad finalized).
    func addRawProbe(_ kinds: ProbeKinds, _ body: @escaping RawProbe) -> UInt {
        let box = Unmanaged.passRetained(Box(body)).toOpaque()
        return UInt(gst_pad_add_probe(pad, GstPadProbeType(rawValue: kinds.rawValue), { pad, info, userData in
            guard let pad, let info, let userData else { return GST_PAD_PROBE_OK }
            return Unmanaged<Box<RawProbe>>.fromOpaque(userData).takeUnretainedValue().value(pad, info)
        }, box, { userData in
            if let userData { Unmanaged<Box<RawProbe>>.fromOpaque(userData).release() }
        }))
    }

    typealias RawProbe = @Sendable (UnsafeMutablePointer<GstPad>, UnsafeMutablePointer<GstPadProbeInfo>) -> GstPadProbeReturn

    public func removeProbe(_ id: UInt) {
        gst_pad_remove_probe(pad, gulong(id))
    }
}

/// GstPadProbeType flags.
public struct ProbeKinds: OptionSet, Sendable {
    public let rawValue: UInt32
    public init(rawValue: UInt32) { self.rawValue = rawValue }
    public static let idle = ProbeKinds(rawValue: GST_PAD_PROBE_TYPE_IDLE.rawValue)
    public static let block = ProbeKinds(rawValue: GST_PAD_PROBE_TYPE_BLOCK.rawValue)
    public static let buffer = ProbeKinds(rawValue: GST_PAD_PROBE_TYPE_BUFFER.rawValue)
    public static let bufferList = ProbeKinds(rawValue: GST_PAD_PROBE_TYPE_BUFFER_LIST.rawValue)
    public static let eventDownstream = ProbeKinds(rawValue: GST_PAD_PROBE_TYPE_EVENT_DOWNSTREAM.rawValue)
    public static let eventUpstream = ProbeKinds(rawValue: GST_PAD_PROBE_TYPE_EVENT_UPSTREAM.rawValue)
    public static let queryDownstream = ProbeKinds(rawValue: GST_PAD_PROBE_TYPE_QUERY_DOWNSTREAM.rawValue)
}

/// GstPadProbeReturn.
public enum ProbeResult: Sendable {
    case ok, drop, remove, pass, handled
    var gst: GstPadProbeReturn {
        switch self {
        case .ok: return GST_PAD_PROBE_OK
        case .drop: return GST_PAD_PROBE_DROP
        case .remove: return GST_PAD_PROBE_REMOVE
        case .pass: return GST_PAD_PROBE_PASS
        case .handled: return GST_PAD_PROBE_HANDLED
        }
    }
}

/// What a probe sees; valid only during the callback.
public struct ProbeInfo {
    let info: UnsafeMutablePointer<GstPadProbeInfo>

    init(_ info: UnsafeMutablePointer<GstPadProbeInfo>) { self.info = info }

    var buffer: UnsafeMutablePointer<GstBuffer>? {
        guard info.pointee.type.rawValue & GST_PAD_PROBE_TYPE_BUFFER.rawValue != 0, let data = info.pointee.data
        else { return nil }
        return data.assumingMemoryBound(to: GstBuffer.self)
    }

    var event: UnsafeMutablePointer<GstEvent>? {
        let eventMask = GST_PAD_PROBE_TYPE_EVENT_DOWNSTREAM.rawValue | GST_PAD_PROBE_TYPE_EVENT_UPSTREAM.rawValue
            | GST_PAD_PROBE_TYPE_EVENT_FLUSH.rawValue
        guard info.pointee.type.rawValue & eventMask != 0, let data = info.pointee.data else { return nil }
        return data.assumingMemoryBound(to: GstEvent.self)
    }

    /// The buffer's presentation timestamp, if the probe carries a buffer with one.
    public var bufferPTS: ClockTime? {
        guard let pts = buffer?.pointee.pts, pts != ClockTime.none else { return nil }
        return ClockTime(pts)
    }

    /// The buffer's decoding timestamp, if the probe carries a buffer with one.
    public var bufferDTS: ClockTime? {
        guard let dts = buffer?.pointee.dts, dts != ClockTime.none else { return nil }
        return ClockTime(dts)
    }

    public var hasBuffer: Bool { buffer != nil }

    /// GST_BUFFER_FLAG_DELTA_UNIT clear: a keyframe.
    public var isKeyframe: Bool {
        guard let buffer else { return false }
        return buffer.pointee.mini_object.flags & GST_BUFFER_FLAG_DELTA_UNIT.rawValue == 0
    }

    public var bufferSize: Int {
        buffer.map { Int(gst_buffer_get_size($0)) } ?? 0
    }

    public var isEOS: Bool { event?.pointee.type == GST_EVENT_EOS }

    /// A CAPS event: the caps of the buffers that follow change.
    public var isCaps: Bool { event?.pointee.type == GST_EVENT_CAPS }
}
