extension CameraSource {
    /// Whether the frames' buffer offsets are the driver's own frame numbers: v4l2src puts
    /// each buffer's V4L2 sequence number there, so a skip in them is a frame the driver
    /// dropped, whatever the frames' times say (`FrameGaps.numbered`).
    var numbersItsFrames: Bool {
        if case .device = self { return true }
        return false
    }
}
