/// An accelerometer could not be set up; the message says what to fix.
public struct AccelerometerError: Error, Sendable, Equatable, CustomStringConvertible {
    public var message: String

    public init(_ message: String) { self.message = message }

    public var description: String { message }
}
