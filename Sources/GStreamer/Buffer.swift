internal import CGStreamer
import FoundationEssentials
import Glibc

/// An owned reference to a GstBuffer (a mini object: reference counted, immutable once shared).
public final class Buffer: @unchecked Sendable {  // only read after it is shared; refcounting is atomic
    let pointer: UnsafeMutablePointer<GstBuffer>

    init(retaining pointer: UnsafeMutablePointer<GstBuffer>) {
        gst_mini_object_ref(cast(pointer))
        self.pointer = pointer
    }

    init(taking pointer: UnsafeMutablePointer<GstBuffer>) { self.pointer = pointer }

    deinit { gst_mini_object_unref(cast(pointer)) }

    /// GST_BUFFER_PTS, nil when unset.
    public var pts: ClockTime? { valid(pointer.pointee.pts) }
    /// GST_BUFFER_DTS, nil when unset.
    public var dts: ClockTime? { valid(pointer.pointee.dts) }
    /// GST_BUFFER_DURATION, nil when unset.
    public var duration: ClockTime? { valid(pointer.pointee.duration) }

    /// gst_buffer_get_size.
    public var size: Int { Int(gst_buffer_get_size(pointer)) }

    /// GST_BUFFER_FLAG_DELTA_UNIT clear: a keyframe (or a raw frame, which depends on nothing).
    public var isKeyframe: Bool { pointer.pointee.mini_object.flags & GST_BUFFER_FLAG_DELTA_UNIT.rawValue == 0 }

    /// A copy of the bytes (gst_buffer_map for reading).
    public var data: Data {
        var info = GstMapInfo()
        guard gst_buffer_map(pointer, &info, GST_MAP_READ) != 0 else { return Data() }
        defer { gst_buffer_unmap(pointer, &info) }
        return Data(bytes: info.data, count: Int(info.size))
    }

    private func valid(_ t: GstClockTime) -> ClockTime? { t == ClockTime.none ? nil : ClockTime(t) }
}

extension ProbeInfo {
    /// GST_BUFFER_DURATION of the probe's buffer, nil when unset or not a buffer probe.
    public var bufferDuration: ClockTime? {
        guard let d = buffer?.pointee.duration, d != ClockTime.none else { return nil }
        return ClockTime(d)
    }
}

extension ProbeInfo {
    /// GST_BUFFER_OFFSET of the probe's buffer, nil when unset (GST_BUFFER_OFFSET_NONE) or not
    /// a buffer probe. `v4l2src` puts the driver's frame sequence number there, `videotestsrc`
    /// its frame count.
    public var bufferOffset: UInt64? {
        guard let offset = buffer?.pointee.offset, offset != guint64.max else { return nil }
        return UInt64(offset)
    }
}
