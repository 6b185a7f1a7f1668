/// `fixed:ANGLE`: a device without a sensor, standing at one rotation.
///
/// It reports once what a sensor at rest would read for `deviceRotation`, then
/// ends; the observer keeps that angle. The camera's mount still applies.
public struct FixedAccelerometer: Accelerometer {
    public let deviceRotation: RotationAngle

    public init(_ deviceRotation: RotationAngle) {
        self.deviceRotation = deviceRotation
    }

    public func events() -> AsyncStream<AccelerometerEvent> {
        AsyncStream { continuation in
            continuation.yield(.available(description))
            continuation.yield(.sample(.resting(deviceRotation)))
            continuation.finish()
        }
    }

    public var description: String { "fixed:\(deviceRotation.degrees)" }
}
