internal import CGStreamer
internal import CGStreamerShim

/// The events Plumb sends; made into a GstEvent at the moment of sending.
public enum Event: Sendable {
    case eos
    /// An upstream force-key-unit request (gst_video_event_new_upstream_force_key_unit):
    /// the encoder makes the next frame a keyframe, with headers when `allHeaders`.
    case forceKeyUnit(allHeaders: Bool, count: UInt32)
    /// The same request for the first frame at or after `runningTime`.
    case forceKeyUnitAt(runningTime: ClockTime, allHeaders: Bool, count: UInt32)
    /// Its downstream twin, for elements below the encoder.
    case forceKeyUnitDownstream(runningTime: ClockTime, allHeaders: Bool, count: UInt32)
    /// A stream-scope tag event (gst_event_new_tag): downstream metadata for the stream,
    /// e.g. `image-orientation` into a muxer's pad.
    case tag(TagList)

    func make() -> UnsafeMutablePointer<GstEvent> {
        switch self {
        case .eos:
            return gst_event_new_eos()
        case let .forceKeyUnit(allHeaders, count):
            return gst_video_event_new_upstream_force_key_unit(GstClockTime(ClockTime.none), allHeaders ? 1 : 0, count)
        case let .forceKeyUnitAt(runningTime, allHeaders, count):
            return gst_video_event_new_upstream_force_key_unit(GstClockTime(runningTime), allHeaders ? 1 : 0, count)
        case let .forceKeyUnitDownstream(runningTime, allHeaders, count):
            return gst_video_event_new_downstream_force_key_unit(GstClockTime(ClockTime.none), GstClockTime(ClockTime.none),
                                                                  GstClockTime(runningTime),
                                                                  allHeaders ? 1 : 0, count)
        case let .tag(list):
            // The event takes its own copy: the TagList value stays immutable.
            return gst_event_new_tag(gst_tag_list_copy(list.pointer))
        }
    }
}
