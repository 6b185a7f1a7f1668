import GStreamer

/// Why a camera's controls could not be set, in words that say what to change.
public enum CameraControlError: Error, Sendable, Equatable, CustomStringConvertible {
    /// `name=value` is not that form.
    case malformed(String)
    /// No plain or driver name matches; `known` lists what the camera has.
    case unknown(name: String, known: [String])
    /// The camera has none of the controls a plain name needs.
    case missing(name: String, needs: String)
    /// The value is refused before the driver sees it; `accepted` says what would do.
    case invalid(name: String, value: String, accepted: String)
    /// Read-only, disabled or inactive in the camera's current mode.
    case notSettable(name: String, reason: String)
    /// The driver refused the batch (nothing of it applied).
    case driver(V4L2ControlError)
    /// The camera has no V4L2 controls (the test camera, a file).
    case noControls(camera: String)

    public var description: String {
        switch self {
        case .malformed(let text): "control '\(text)' is not NAME=VALUE"
        case .unknown(let name, let known): "unknown control '\(name)'; this camera has: \(known.joined(separator: ", "))"
        case .missing(let name, let needs): "this camera has no \(name) control (\(needs))"
        case .invalid(let name, let value, let accepted): "\(name)=\(value) is refused: accepted \(accepted)"
        case .notSettable(let name, let reason): "\(name) cannot be set: \(reason)"
        case .driver(let error): error.description
        case .noControls(let camera): "camera \(camera) has no V4L2 controls (only V4L2 cameras such as /dev/video0 have them)"
        }
    }
}
