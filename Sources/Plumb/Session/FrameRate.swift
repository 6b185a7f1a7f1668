import FoundationEssentials
import Glibc
import PlumbBase
import GStreamer

/// A frame rate as GStreamer writes it (30/1, 30000/1001).
public struct FrameRate: Sendable, Hashable, Codable, CustomStringConvertible {
    public var numerator: Int
    public var denominator: Int

    public init(_ numerator: Int, _ denominator: Int = 1) {
        self.numerator = numerator
        self.denominator = max(denominator, 1)
    }

    /// Parses "30/1" or "30".
    public init?(parsing text: String) {
        let parts = text.trimmed.split(separator: "/")
        guard let n = parts.first.flatMap({ Int($0) }) else { return nil }
        let d = parts.count > 1 ? Int(parts[1]) ?? 1 : 1
        guard d > 0 else { return nil }
        self.init(n, d)
    }

    public var perSecond: Double { Double(numerator) / Double(denominator) }
    /// One frame's duration in nanoseconds.
    public var frameDuration: ClockTime { ClockTime(Double(ClockTime.second) / perSecond) }
    public var description: String { "\(numerator)/\(denominator)" }
}
