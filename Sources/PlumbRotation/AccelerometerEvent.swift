/// What an accelerometer source reports.
public enum AccelerometerEvent: Sendable, Equatable, CustomStringConvertible {
    /// A valid reading.
    case sample(AccelerometerSample)
    /// A reading that was malformed and dropped; the angle is unchanged.
    case dropped(MalformedSample)
    /// The sensor can no longer be read (unplugged, its service gone); the last angle holds.
    case unavailable(String)
    /// The sensor is (again) readable; the text names it.
    case available(String)

    public var description: String {
        switch self {
        case .sample(let s): return "sample \(s)"
        case .dropped(let why): return "dropped: \(why)"
        case .unavailable(let why): return "sensor unavailable: \(why)"
        case .available(let name): return "sensor available: \(name)"
        }
    }
}

/// A source of accelerometer readings.
public protocol Accelerometer: Sendable, CustomStringConvertible {
    /// Starts reading. Each call opens the sensor anew and returns its events in
    /// order. The stream finishes when the source has nothing more to say (a
    /// replay's end, a fixed angle) or when its consumer stops iterating, which
    /// releases the sensor.
    func events() -> AsyncStream<AccelerometerEvent>
}
