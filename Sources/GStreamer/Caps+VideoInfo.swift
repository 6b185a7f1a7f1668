internal import CGStreamer

extension Caps {
    /// Fixed raw-video caps with every field GstVideoInfo reads from them written out
    /// (colorimetry, chroma-site, interlace and multiview modes), as gst_video_info_to_caps
    /// gives them; nil for caps that are not one fixed raw video format. Two sources whose
    /// caps differ only in a field one of them leaves implied describe the same frames; pinned
    /// to these caps, another source must give frames an encoder sees as the same.
    public var explicitVideoCaps: Caps? {
        guard isFixed, structure(at: 0)?.name == "video/x-raw",
              let info = gst_video_info_new_from_caps(pointer) else { return nil }
        defer { gst_video_info_free(info) }
        return gst_video_info_to_caps(info).map { Caps(taking: $0) }
    }
}
