internal import CGStreamerShim

/// One V4L2 control's range, as VIDIOC_QUERYCTRL reports it (for controls v4l2src has no
/// property for, such as a camera's optical zoom).
public struct V4L2ControlRange: Sendable, Equatable {
    public var minimum: Int
    public var maximum: Int
    public var step: Int
    public var defaultValue: Int

    public init(minimum: Int, maximum: Int, step: Int, defaultValue: Int) {
        self.minimum = minimum
        self.maximum = maximum
        self.step = step
        self.defaultValue = defaultValue
    }

    /// V4L2_CID_ZOOM_ABSOLUTE.
    public static let zoomAbsoluteID: UInt32 = 0x009a_090d

    /// The control `id` of `device`, nil when it lacks it (or cannot be opened).
    public static func query(_ id: UInt32, of device: String) -> V4L2ControlRange? {
        var minimum: Int32 = 0, maximum: Int32 = 0, step: Int32 = 0, fallback: Int32 = 0
        guard plumb_v4l2_query_control(device, id, &minimum, &maximum, &step, &fallback) == 1 else { return nil }
        return V4L2ControlRange(minimum: Int(minimum), maximum: Int(maximum), step: Int(step), defaultValue: Int(fallback))
    }
}
