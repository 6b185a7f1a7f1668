import FoundationEssentials
import Glibc
import PlumbBase
import PlumbRotation

/// A rectangle in normalised coordinates (0...1, origin top left), like AVFoundation's
/// `rectOfInterest` and `metadataOutputRectConverted`: of the upright picture unless said.
public struct NormalizedRect: Sendable, Hashable, Codable, CustomStringConvertible {
    public var x: Double
    public var y: Double
    public var width: Double
    public var height: Double

    public init(x: Double, y: Double, width: Double, height: Double) {
        self.x = x
        self.y = y
        self.width = width
        self.height = height
    }

    /// The whole picture.
    public static let full = NormalizedRect(x: 0, y: 0, width: 1, height: 1)

    /// "x,y,w,h" (as `--region` and `[scan] region` take it), inside the picture and not empty.
    public static func parse(_ text: String) throws(CaptureError) -> NormalizedRect {
        let parts = text.split(separator: ",").map { Double($0.trimmed) }
        guard parts.count == 4, let x = parts[0], let y = parts[1], let w = parts[2], let h = parts[3] else {
            throw .invalidArgument("region \"\(text)\" must be x,y,width,height in 0...1 (e.g. 0.25,0.25,0.5,0.5)")
        }
        let r = NormalizedRect(x: x, y: y, width: w, height: h)
        guard x >= 0, y >= 0, w > 0, h > 0, x + w <= 1.000001, y + h <= 1.000001 else {
            throw .invalidArgument("region \"\(text)\" must lie inside the picture: x,y >= 0, width,height > 0, x+width and y+height <= 1")
        }
        return r
    }

    public var description: String { "\(x),\(y),\(width),\(height)" }

    /// This rectangle of a frame in the picture after the frame is turned clockwise by
    /// `angle` (a frame's rectangle to the upright picture's, with the capture angle).
    public func turned(clockwise angle: RotationAngle) -> NormalizedRect {
        switch angle {
        case .degrees0: return self
        // Clockwise 90°: a frame point (x, y) lands at (1 - y, x).
        case .degrees90: return NormalizedRect(x: 1 - (y + height), y: x, width: height, height: width)
        case .degrees180: return NormalizedRect(x: 1 - (x + width), y: 1 - (y + height), width: width, height: height)
        // Clockwise 270°: (x, y) lands at (y, 1 - x).
        case .degrees270: return NormalizedRect(x: y, y: 1 - (x + width), width: height, height: width)
        }
    }

    /// The smallest rectangle holding `points` (normalised), clamped to the picture.
    static func bounding(_ points: [(Double, Double)]) -> NormalizedRect {
        let xs = points.map { min(max($0.0, 0), 1) }, ys = points.map { min(max($0.1, 0), 1) }
        let x0 = xs.min() ?? 0, y0 = ys.min() ?? 0
        return NormalizedRect(x: x0, y: y0, width: (xs.max() ?? 0) - x0, height: (ys.max() ?? 0) - y0)
    }
}
