import FoundationEssentials
import Glibc
import PlumbBase
import GStreamer

/// A camera's own zoom (the V4L2 `zoom_absolute` control), which the session uses instead
/// of its digital crop when the camera has one: optical zoom loses no detail. Factors map
/// linearly onto the control's range — 1× at its minimum, the session's maximum zoom at
/// its maximum — since V4L2 leaves the units to the driver.
public struct V4L2ZoomControl: Sendable, Equatable {
    public var range: V4L2ControlRange

    /// How a session zooms a camera: by its control, or by the crop before the tee.
    public enum Method: Sendable, Equatable {
        case control(V4L2ZoomControl)
        case crop
    }

    /// The control first, when there is one that moves at all; otherwise the crop.
    public static func method(for control: V4L2ZoomControl?) -> Method {
        guard let control, control.range.maximum > control.range.minimum else { return .crop }
        return .control(control)
    }

    /// What `device` offers (VIDIOC_QUERYCTRL), nil without a `zoom_absolute` control.
    public static func query(device: String) -> V4L2ZoomControl? {
        V4L2ControlRange.query(V4L2ControlRange.zoomAbsoluteID, of: device).map(V4L2ZoomControl.init(range:))
    }

    /// The control in a `v4l2-ctl --list-ctrls` listing — the words a camera's owner can
    /// paste into a bug report — e.g.
    /// `zoom_absolute 0x009a090d (int)    : min=100 max=500 step=1 default=100 value=100`.
    public static func parse(listing: String) -> V4L2ZoomControl? {
        for raw in listing.split(separator: "\n") {
            let line = raw.trimmed
            guard line.hasPrefix("zoom_absolute "), !line.contains("flags=inactive"),
                  !line.contains("flags=disabled"), let colon = line.firstIndex(of: ":") else { continue }
            var fields: [String: Int] = [:]
            for pair in line[line.index(after: colon)...].split(separator: " ") {
                let kv = pair.split(separator: "=", maxSplits: 1)
                if kv.count == 2, let v = Int(kv[1]) { fields[String(kv[0])] = v }
            }
            guard let minimum = fields["min"], let maximum = fields["max"] else { continue }
            return V4L2ZoomControl(range: V4L2ControlRange(minimum: minimum, maximum: maximum, step: max(1, fields["step"] ?? 1),
                                                           defaultValue: fields["default"] ?? minimum))
        }
        return nil
    }

    /// The control's value for `factor` (1 to `maximum`), on its steps.
    public func value(for factor: Double, maximum: Double) -> Int {
        let share = maximum > 1 ? min(1, max(0, (factor - 1) / (maximum - 1))) : 0
        let span = Double(range.maximum - range.minimum)
        let steps = ((share * span) / Double(range.step)).rounded()
        return min(range.maximum, range.minimum + Int(steps) * range.step)
    }

    /// v4l2src's `extra-controls` for `value` (it applies them to an open device at once).
    static func extraControls(_ value: Int) -> String { "controls,zoom_absolute=\(value)" }
}
