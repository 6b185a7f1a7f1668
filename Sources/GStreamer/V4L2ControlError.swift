import FoundationEssentials
import Glibc

/// A driver's refusal of a control request, in words: which ioctl, which control of the
/// batch (the driver's error_idx, when it names one) and its errno.
public struct V4L2ControlError: Error, Sendable, Equatable, CustomStringConvertible {
    public var request: String
    public var errno: Int32
    /// The control the driver blamed; nil when it blamed the batch as a whole.
    public var control: String?

    public init(request: String, errno: Int32, control: String? = nil) {
        self.request = request
        self.errno = errno
        self.control = control
    }

    /// The errno as a reason a camera's user can act on.
    public static func reason(_ errno: Int32) -> String {
        switch errno {
        case EBUSY: "EBUSY: the device is busy (the control cannot change while streaming, or another process holds it)"
        case EIO: "EIO: the device failed to carry it out"
        case EACCES: "EACCES: the control is read-only, write-only or inactive"
        case ERANGE: "ERANGE: the value is out of the control's range"
        case EINVAL: "EINVAL: the device has no such control or refuses the value"
        case ENOTTY: "ENOTTY: the device has no controls (not a V4L2 device?)"
        case ENODEV: "ENODEV: the device is gone"
        default: "errno \(errno): \(String(cString: strerror(errno)))"
        }
    }

    public var description: String {
        "\(request) refused" + (control.map { " for \($0)" } ?? "") + ": " + Self.reason(errno)
    }
}
