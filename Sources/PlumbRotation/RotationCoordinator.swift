import FoundationEssentials
import Glibc

/// The two angles Plumb applies: both are clockwise rotations that turn the
/// camera's image upright relative to gravity.
public struct RotationAngles: Sendable, Equatable, CustomStringConvertible {
    /// For stills (EXIF Orientation) and recordings (the MP4 track matrix).
    public var capture: RotationAngle
    /// For the preview (`videoflip`): the capture angle less the display's own rotation.
    public var preview: RotationAngle

    public init(capture: RotationAngle, preview: RotationAngle) {
        self.capture = capture
        self.preview = preview
    }

    public var description: String { "capture \(capture), preview \(preview)" }
}

/// Turns gravity into angles: pure, no clock and no I/O.
///
/// The device's rotation is the clockwise turn from its natural position,
/// read from the in-plane part of gravity: (0, +g, 0) -> 0, (-g, 0, 0) -> 90,
/// (0, -g, 0) -> 180, (+g, 0, 0) -> 270. Then
///
/// - back camera:  capture = mount + device rotation
/// - front camera: capture = mount - device rotation (it looks at the viewer, so it turns the other way)
/// - preview = capture - display rotation (a display that itself turns what it shows by
///   `displayRotation` clockwise; 0 for RTSP and headless devices, where preview = capture)
///
/// Three things keep the angle steady:
/// - **Hysteresis**: the device must turn `hysteresis` degrees past a 45° diagonal before the
///   angle changes (default 20: 0 -> 90 needs 65°, 90 -> 0 needs 25°), so a device held
///   near 45° does not flap.
/// - **Flat device**: when gravity points mostly out of the screen (tilt above `flatTilt`,
///   default 65°) the in-plane direction is noise; the last angle holds.
/// - **Debounce** (optional): a new rotation must persist for `debounce` before it is
///   adopted. Time comes from the samples; `advance(to:)` lets a driver adopt a pending
///   rotation when no further sample arrives.
public struct RotationCoordinator: Sendable {
    public struct Configuration: Sendable, Equatable {
        /// The camera's mount rotation relative to the device (what turns its image upright
        /// when the device is upright).
        public var mount: RotationAngle
        public var facing: CameraFacing
        /// How far the display turns what it shows, clockwise; only the preview angle uses it.
        public var displayRotation: RotationAngle
        /// Degrees past the 45° diagonal needed to change the angle, in 0..<45.
        public var hysteresis: Double
        /// Tilt out of the screen plane, in degrees, above which the device counts as lying flat.
        public var flatTilt: Double
        /// How long a new rotation must persist before it is adopted; zero adopts at once.
        public var debounce: Duration

        public static let defaultHysteresis = 20.0
        public static let defaultFlatTilt = 65.0

        public init(mount: RotationAngle = .degrees0, facing: CameraFacing = .back,
                    displayRotation: RotationAngle = .degrees0,
                    hysteresis: Double = Configuration.defaultHysteresis,
                    flatTilt: Double = Configuration.defaultFlatTilt,
                    debounce: Duration = .zero) {
            self.mount = mount
            self.facing = facing
            self.displayRotation = displayRotation
            self.hysteresis = min(max(hysteresis, 0), 44.9)
            self.flatTilt = min(max(flatTilt, 0), 90)
            self.debounce = max(debounce, .zero)
        }
    }

    public private(set) var configuration: Configuration
    /// The adopted device rotation (before mount and facing).
    public private(set) var deviceRotation: RotationAngle
    /// A rotation seen but not yet adopted (debounce), and since when.
    private var pending: (rotation: RotationAngle, since: Duration)?
    /// Whether any sample has set the rotation yet (the first one skips hysteresis and debounce).
    private var hasReading = false

    /// `initialDeviceRotation` is assumed until the first sample: upright by default.
    public init(configuration: Configuration = Configuration(), initialDeviceRotation: RotationAngle = .degrees0) {
        self.configuration = configuration
        self.deviceRotation = initialDeviceRotation
    }

    public var angles: RotationAngles {
        let capture = Self.captureAngle(deviceRotation: deviceRotation, mount: configuration.mount,
                                        facing: configuration.facing)
        return RotationAngles(capture: capture, preview: capture - configuration.displayRotation)
    }

    /// When the pending rotation will be adopted if nothing else arrives (sample time).
    public var pendingDeadline: Duration? {
        pending.map { $0.since + configuration.debounce }
    }

    /// The rotation seen but not yet adopted.
    public var pendingRotation: RotationAngle? { pending?.rotation }

    /// Feeds one sample. Returns the new angles when they changed.
    public mutating func update(with sample: AccelerometerSample) -> RotationAngles? {
        guard let degrees = Self.deviceRotationDegrees(sample, flatTilt: configuration.flatTilt) else {
            // Lying flat: the last angle holds, and a rotation under way is forgotten.
            pending = nil
            return nil
        }
        guard hasReading else {
            // The first reading replaces the assumed rotation at once: no hysteresis, no debounce.
            hasReading = true
            return adopt(RotationAngle(nearest: degrees))
        }
        let candidate = Self.rotation(degrees, from: deviceRotation, hysteresis: configuration.hysteresis)
        if candidate == deviceRotation {
            pending = nil
            return nil
        }
        if configuration.debounce == .zero {
            return adopt(candidate)
        }
        if let p = pending, p.rotation == candidate {
            return sample.time - p.since >= configuration.debounce ? adopt(candidate) : nil
        }
        pending = (candidate, sample.time)
        return nil
    }

    /// Adopts the pending rotation if it has persisted for `debounce` by `time`.
    public mutating func advance(to time: Duration) -> RotationAngles? {
        guard let p = pending, time - p.since >= configuration.debounce else { return nil }
        return adopt(p.rotation)
    }

    /// Changes the display rotation. Returns the new angles when the preview angle changed.
    public mutating func setDisplayRotation(_ rotation: RotationAngle) -> RotationAngles? {
        let before = angles
        configuration.displayRotation = rotation
        return angles == before ? nil : angles
    }

    /// Changes which way the camera faces (a switch to another camera). Returns the new
    /// angles when they changed.
    public mutating func setFacing(_ facing: CameraFacing) -> RotationAngles? {
        let before = angles
        configuration.facing = facing
        return angles == before ? nil : angles
    }

    private mutating func adopt(_ rotation: RotationAngle) -> RotationAngles? {
        pending = nil
        let before = angles
        deviceRotation = rotation
        return angles == before ? nil : angles
    }

    // MARK: The geometry, as functions

    /// The capture angle for a device rotation, a mount and a facing.
    public static func captureAngle(deviceRotation: RotationAngle, mount: RotationAngle,
                                    facing: CameraFacing) -> RotationAngle {
        switch facing {
        case .back: return mount + deviceRotation
        case .front: return mount - deviceRotation
        }
    }

    /// The device's clockwise rotation in [0, 360) degrees, or nil when the device lies
    /// flat (tilt above `flatTilt`) or the sample has no in-plane component.
    public static func deviceRotationDegrees(_ s: AccelerometerSample, flatTilt: Double) -> Double? {
        let planar = (s.x * s.x + s.y * s.y).squareRoot()
        guard planar > 0, planar.isFinite else { return nil }
        let tilt = atan2(abs(s.z), planar) * 180 / .pi
        guard tilt <= flatTilt else { return nil }
        let degrees = atan2(-s.x, s.y) * 180 / .pi
        return degrees < 0 ? degrees + 360 : degrees
    }

    /// The quarter turn for `degrees`, leaving `current` only when `degrees` is within
    /// 45 - hysteresis of another quarter's centre.
    public static func rotation(_ degrees: Double, from current: RotationAngle, hysteresis: Double) -> RotationAngle {
        let nearest = RotationAngle(nearest: degrees)
        guard nearest != current else { return current }
        return distance(degrees, Double(nearest.degrees)) <= 45 - hysteresis ? nearest : current
    }

    /// The shortest angular distance between two angles in degrees.
    static func distance(_ a: Double, _ b: Double) -> Double {
        let d = abs(a - b).truncatingRemainder(dividingBy: 360)
        return d > 180 ? 360 - d : d
    }
}
