import PlumbBase
import GStreamer

/// A camera that cannot be opened: which device, and why, in words that say what to fix.
public struct CameraError: Error, Sendable, Equatable, CustomStringConvertible {
    public enum Cause: Sendable, Equatable {
        /// Nothing exists at the path.
        case notFound
        /// The path exists but is not a character device (a plain file, a folder).
        case notADevice
        /// A device, but not a V4L2 video capture device (/dev/null, a codec node, a metadata node).
        case notACaptureDevice
        /// Another process is capturing from it.
        case busy
        /// This user may not open it.
        case permissionDenied
        /// None of the formats it offers can be used.
        case noUsableFormat
        /// No mode gives the frame rate asked for (the detail lists the rates it has).
        case rateUnavailable
        /// It opened but sent no frame in time.
        case noFrames
        /// An image camera's file is not a PNG or JPEG image.
        case notAnImage
        /// No camera matches a name.
        case unknownName
        /// It was streaming and then failed: unplugged, or its driver reported an error.
        case lost
        /// Anything else GStreamer reported.
        case failed
    }

    /// The device path or name as given.
    public var device: String
    public var cause: Cause
    /// What GStreamer or the system said, when it adds something.
    public var detail: String?

    public init(device: String, cause: Cause, detail: String? = nil) {
        self.device = device
        self.cause = cause
        self.detail = detail
    }

    public var description: String {
        var text = "camera \(device): "
        switch cause {
        case .notFound:
            text += "no such device; check the path against the cameras found, or use the test pattern"
        case .notADevice:
            text += "this is not a device file; give a video device such as /dev/video0"
        case .notACaptureDevice:
            text += "this device is not a V4L2 video capture device; pick another /dev/video* node among the cameras found"
        case .busy:
            text += "the device is busy: another program is using it; stop that program and try again"
        case .permissionDenied:
            text += "permission denied; add this user to the 'video' group or run with access to the device"
        case .noUsableFormat:
            text += "it offers no format Plumb can use (raw video or MJPEG)"
        case .rateUnavailable:
            text += "it cannot give the frame rate asked for; ask for one of its rates"
        case .noFrames:
            text += "it opened but delivered no frame in time; check the cable, the driver, or another size or rate"
        case .notAnImage:
            text += "this file is not a PNG or JPEG image; give an image file after image:"
        case .unknownName:
            text += "no camera has this name; pick one of the cameras found"
        case .lost:
            text += "lost while streaming: the device went away or its driver stopped with an error"
        case .failed:
            text += "could not be opened"
        }
        if let detail, !detail.isEmpty { text += " (\(detail))" }
        return text
    }

    /// Classifies an error GStreamer's v4l2src reported for `device` while it streamed
    /// (`streaming`) or while it opened. Once frames came, any error is the camera lost;
    /// the detail adds the system's reason from GStreamer's debug text ("poll error 1: No
    /// such device (19)": unplugged; "Failed to dequeue": its driver failed).
    public init(device: String, gstreamer error: GStreamerError, streaming: Bool) {
        guard streaming else {
            self.init(device: device, gstreamer: error)
            return
        }
        let reason = error.debug?.split(separator: "\n").last.map { $0.trimmed }
        self.init(device: device, cause: .lost,
                  detail: [error.message, reason].compactMap { $0 }.filter { !$0.isEmpty }.joined(separator: " "))
    }

    /// Classifies an error GStreamer's v4l2src reported for `device`.
    public init(device: String, gstreamer error: GStreamerError) {
        let message = error.message.lowercased()
        let debug = (error.debug ?? "").lowercased()
        let detail = error.message
        let cause: Cause
        if message.contains("could not find a camera named") {  // libcamerasrc
            cause = .unknownName
        } else if message.contains("could not find any supported camera") {
            cause = .notFound
        } else if message.contains("busy") || debug.contains("device or resource busy") {
            cause = .busy
        } else if debug.contains("permission denied") || message.contains("permission") {
            cause = .permissionDenied
        } else if message.contains("isn't a device") {
            cause = .notADevice
        } else if message.contains("cannot identify device") || debug.contains("no such file") {
            cause = .notFound
        } else if message.contains("not a capture device") || message.contains("isn't a v4l2 driver")
                    || message.contains("not a v4l2") || message.contains("error getting capabilities") {
            cause = .notACaptureDevice
        } else if error.resource == .busy {
            cause = .busy
        } else if error.resource == .notAuthorized {
            cause = .permissionDenied
        } else if let core = error.core, core == .negotiation || core == .caps {
            // The comparison read "GST_CORE_ERROR_NEGOTIATION" but matched 10, which is
            // GST_CORE_ERROR_CAPS; by name, both: no format was agreed on.
            cause = .noUsableFormat
        } else {
            cause = .failed
        }
        self.init(device: device, cause: cause, detail: detail)
    }
}
