import Foundation
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
        let parts = text.trimmingCharacters(in: .whitespaces).split(separator: "/")
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

/// One way a camera can deliver frames: an encoding at one size and one rate.
public struct CameraMode: Sendable, Hashable, CustomStringConvertible {
    public enum Encoding: Sendable, Hashable {
        /// Raw video in a GStreamer format ("YUY2", "NV12"); converted, never decoded.
        case raw(String)
        /// Motion JPEG; decoded with `jpegdec`.
        case mjpeg
    }

    public var encoding: Encoding
    public var size: VideoSize
    public var rate: FrameRate

    public init(encoding: Encoding, size: VideoSize, rate: FrameRate) {
        self.encoding = encoding
        self.size = size
        self.rate = rate
    }

    /// The fixed caps to ask the camera for.
    public var caps: String {
        switch encoding {
        case .raw(let format):
            return "video/x-raw,format=\(format),width=\(size.width),height=\(size.height),framerate=\(rate)"
        case .mjpeg:
            return "image/jpeg,width=\(size.width),height=\(size.height),framerate=\(rate)"
        }
    }

    /// "YUY2" or "MJPG", as facts and logs name it.
    public var encodingName: String {
        if case .raw(let f) = encoding { return f } else { return "MJPG" }
    }

    public var description: String { "\(encodingName) \(size)@\(rate)" }

    public var isMJPEG: Bool { encoding == .mjpeg }
}
