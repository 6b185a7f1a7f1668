import FoundationEssentials
import Glibc
import Plumb
import PlumbCommandLine
import PlumbRotation

/// `--accelerometer SPEC --mount ANGLE --facing back|front --hysteresis DEG --debounce MS`,
/// shared by every command that follows the device's rotation.
struct RotationOptions {
    var spec: AccelerometerSpec?
    var configuration = RotationCoordinator.Configuration()
    var replaySpeed = 1.0

    static let help = """
          --accelerometer SPEC   iio[:PATH|:NAME] | sensor-proxy | replay:FILE | replay:- | fixed:0|90|180|270
          --mount ANGLE          the camera's mount rotation relative to the device: 0, 90, 180, 270 (default 0)
          --facing back|front    a front camera turns the other way (default back)
          --hysteresis DEG       degrees past 45 needed to change the angle (default \(Int(RotationCoordinator.Configuration.defaultHysteresis)))
          --debounce MS          a new angle must hold this long before it is used (default 0)
        """

    /// Consumes the options; nil `spec` when no --accelerometer was given.
    init(_ arguments: inout Arguments) throws(UsageError) {
        if let text = try arguments.option("--accelerometer") {
            do { spec = try AccelerometerSpec(parsing: text) } catch { throw UsageError("--accelerometer: \(error)") }
        }
        if let text = try arguments.option("--mount") {
            guard let angle = RotationAngle(text), Int(text) == angle.degrees else {
                throw UsageError("--mount \(text): expected 0, 90, 180 or 270")
            }
            configuration.mount = angle
        }
        if let text = try arguments.option("--facing") {
            guard let facing = CameraFacing(rawValue: text) else {
                throw UsageError("--facing \(text): expected back or front")
            }
            configuration.facing = facing
        }
        if let text = try arguments.option("--hysteresis") {
            guard let v = Double(text), v >= 0, v < 45 else {
                throw UsageError("--hysteresis \(text): expected degrees from 0 to below 45")
            }
            configuration.hysteresis = v
        }
        if let text = try arguments.option("--debounce") {
            guard let v = Int(text), v >= 0 else { throw UsageError("--debounce \(text): expected milliseconds >= 0") }
            configuration.debounce = .milliseconds(v)
        }
        if let text = try arguments.option("--replay-speed") {
            guard let v = Double(text), v > 0, v.isFinite else {
                throw UsageError("--replay-speed \(text): expected a positive factor")
            }
            replaySpeed = v
        }
    }

    /// Whether anything asks for a rotation: an accelerometer, or a mount other than 0
    /// (a device without a sensor, held upright: `fixed:0` plus the mount).
    var isRequested: Bool { spec != nil || configuration.mount != .degrees0 }

    /// An observer for the options (not started), or nil when nothing asks for a rotation.
    /// A device named but not there (`iio:PATH`, `iio:NAME`) or an unreadable replay throws
    /// `AccelerometerError`. With `fallback`, plain `iio` on a machine without an IIO
    /// accelerometer becomes `fixed:0` and `fallback` is told why (without it, the IIO source
    /// keeps looking and reports itself unavailable).
    func makeObserver(fallback: ((String) -> Void)? = nil) throws -> RotationObserver? {
        guard isRequested else { return nil }
        var source = spec ?? .fixed(.degrees0)
        if let fallback, source == .iio(.any) {
            do throws(AccelerometerError) {
                _ = try IIOAccelerometer(device: .any).locate()
            } catch {
                fallback("--accelerometer iio: \(error); going on with fixed:0 (the device taken as upright)")
                source = .fixed(.degrees0)
            }
        }
        return RotationObserver(accelerometer: try source.makeAccelerometer(replaySpeed: replaySpeed),
                                configuration: configuration)
    }
}
