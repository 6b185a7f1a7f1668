internal import CGStreamerShim

/// What a V4L2 node can do, asked of the driver before GStreamer opens it.
public enum V4L2Capture {
    /// Whether the open node `fd` captures video (VIDIOC_QUERYCAP: V4L2_CAP_VIDEO_CAPTURE or
    /// its multi-planar form). False for /dev/null, /dev/zero and every other non-V4L2 device,
    /// which answer the ioctl with ENOTTY, and for V4L2 nodes that only output or carry metadata.
    public static func isVideoCapture(fileDescriptor fd: Int32) -> Bool {
        plumb_v4l2_is_video_capture(fd) == 1
    }
}
