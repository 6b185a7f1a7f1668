/// The `--accelerometer` argument:
/// `iio[:PATH|:NAME] | sensor-proxy[:BUS] | replay:FILE | replay:- | fixed:0|90|180|270`.
public enum AccelerometerSpec: Sendable, Equatable, CustomStringConvertible {
    case iio(IIOAccelerometer.Device)
    case sensorProxy(SensorProxyAccelerometer.Bus)
    case replay(ReplayAccelerometer.Input)
    case fixed(RotationAngle)

    static let usage = "iio[:PATH|:NAME], sensor-proxy, replay:FILE (replay:- for standard input) or fixed:0|90|180|270"

    /// Parses the argument; the error says what is wrong and what is accepted.
    public init(parsing text: String) throws(AccelerometerError) {
        let spec = text.trimmed
        guard !spec.isEmpty else {
            throw AccelerometerError("no accelerometer given: use \(Self.usage)")
        }
        let parts = spec.split(separator: ":", maxSplits: 1, omittingEmptySubsequences: false)
        let kind = parts[0].lowercased()
        let argument = parts.count > 1 ? String(parts[1]) : nil
        switch kind {
        case "iio":
            guard let argument else {
                self = .iio(.any)
                return
            }
            guard !argument.isEmpty else {
                throw AccelerometerError("\"iio:\" needs a device after the colon: a path such as "
                    + "/sys/bus/iio/devices/iio:device0, a device such as iio:device0, or a name such as lis3dh; "
                    + "plain \"iio\" uses the first accelerometer")
            }
            if argument.hasPrefix("/") || argument.hasPrefix("iio:device") {
                self = .iio(.path(argument))
            } else {
                self = .iio(.named(argument))
            }
        case "sensor-proxy", "sensorproxy", "iio-sensor-proxy":
            guard let argument, !argument.isEmpty else {
                self = .sensorProxy(.system)
                return
            }
            switch argument {
            case "system": self = .sensorProxy(.system)
            case "session": self = .sensorProxy(.session)
            default:
                guard argument.contains("=") else {
                    throw AccelerometerError("sensor-proxy takes no argument, or the bus: sensor-proxy:system, "
                        + "sensor-proxy:session or a D-Bus address such as sensor-proxy:unix:path=/run/bus "
                        + "(got \"\(argument)\")")
                }
                self = .sensorProxy(.address(argument))
            }
        case "replay":
            guard let argument, !argument.isEmpty else {
                throw AccelerometerError("replay needs a file of \"t_ms x y z\" lines: replay:FILE, "
                    + "or replay:- for standard input")
            }
            self = .replay(argument == "-" ? .standardInput : .file(argument))
        case "fixed":
            guard let argument, let angle = RotationAngle(argument), Int(argument.trimmed) == angle.degrees else {
                let got = argument.map { " (got \"\($0)\")" } ?? ""
                throw AccelerometerError("fixed needs the device's rotation: fixed:0, fixed:90, fixed:180 or fixed:270\(got)")
            }
            self = .fixed(angle)
        default:
            throw AccelerometerError("unknown accelerometer \"\(spec)\": use \(Self.usage)")
        }
    }

    /// The source this spec names. A replay file and a named IIO device (`iio:PATH`,
    /// `iio:NAME`) are checked now: one that is not there is a typo to fix, not a sensor
    /// that may come later. Plain `iio` and the sensor proxy are looked for when reading
    /// starts (and again while missing).
    public func makeAccelerometer(pollInterval: Duration = .milliseconds(100), replaySpeed: Double = 1,
                                  sysfsRoot: String = "/sys") throws(AccelerometerError) -> any Accelerometer {
        switch self {
        case .iio(let device):
            let iio = IIOAccelerometer(device: device, sysfsRoot: sysfsRoot, pollInterval: pollInterval)
            if device != .any { _ = try iio.locate() }
            return iio
        case .sensorProxy(let bus):
            return SensorProxyAccelerometer(bus: bus)
        case .replay(let input):
            return try ReplayAccelerometer(input: input, speed: replaySpeed)
        case .fixed(let angle):
            return FixedAccelerometer(angle)
        }
    }

    public var description: String {
        switch self {
        case .iio(let device): return device.description
        case .sensorProxy(let bus): return bus == .system ? "sensor-proxy" : "sensor-proxy:\(bus)"
        case .replay(.file(let path)): return "replay:\(path)"
        case .replay(.standardInput): return "replay:-"
        case .fixed(let angle): return "fixed:\(angle.degrees)"
        }
    }
}
