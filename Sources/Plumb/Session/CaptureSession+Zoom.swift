import FoundationEssentials
import Glibc
import PlumbRotation

/// What `CaptureSession.zoom` says.
public struct ZoomState: Sendable, Equatable, Encodable {
    /// The factor of the frame entering the tee now.
    public var factor: Double
    /// Where a ramp is going (equal to `factor` when none runs).
    public var target: Double
    /// The centre, normalised in the upright picture.
    public var centerX: Double
    public var centerY: Double
    /// A ramp's doublings per second; nil for a jump.
    public var rate: Double?
    public var maximum: Double

    enum CodingKeys: String, CodingKey {
        case factor, target, rate, maximum
        case centerX = "x", centerY = "y"
    }
}

extension CaptureSession {
    /// The most `setZoom` takes unless `setMaximumZoom` says otherwise.
    public static let defaultMaximumZoom = 8.0

    /// Zooms every output's picture (digital: a crop before the tee, scaled back to the tee's
    /// size, so no output's caps change). `centerX`/`centerY`: the point of the upright
    /// picture to zoom on (normalised; the crop stays inside the frame). `rate`: ramp there
    /// at this many doublings of the factor per second, frame by frame; nil jumps at the next frame.
    public func setZoom(_ factor: Double, centerX: Double = 0.5, centerY: Double = 0.5, rate: Double? = nil) throws {
        guard let zoomCrop else { throw failure ?? CaptureError.closed }
        guard factor.isFinite, factor >= 1, factor <= maximumZoom else {
            throw CaptureError.invalidArgument("zoom factor \(factor) must be from 1 to \(maximumZoom)")
        }
        guard (0...1).contains(centerX), (0...1).contains(centerY) else {
            throw CaptureError.invalidArgument("zoom centre \(centerX),\(centerY) must lie in the picture (0 to 1)")
        }
        if let rate, !(rate > 0 && rate <= 100) {
            throw CaptureError.invalidArgument("zoom rate \(rate) must be above 0 and at most 100 doublings per second")
        }
        // A camera with its own zoom control zooms optically (about its own centre, at once).
        if try zoomByControl(factor) { return }
        // The centre in the frame's own coordinates: upright turned back by the capture angle.
        let point = NormalizedRect(x: centerX, y: centerY, width: 0, height: 0).turned(clockwise: rotation.inverse)
        zoomCrop.set(factor: factor, centerX: point.x, centerY: point.y, rate: rate)
    }

    /// Sets the largest factor `setZoom` accepts (at least 1).
    public func setMaximumZoom(_ maximum: Double) throws {
        guard maximum.isFinite, maximum >= 1, maximum <= 64 else {
            throw CaptureError.invalidArgument("maximum zoom \(maximum) must be from 1 to 64")
        }
        maximumZoom = maximum
    }

    public var zoom: ZoomState {
        let c = zoomCrop?.current ?? (factor: 1, target: 1, centerX: 0.5, centerY: 0.5, rate: nil)
        let upright = NormalizedRect(x: c.centerX, y: c.centerY, width: 0, height: 0).turned(clockwise: rotation)
        if let opticalZoom {
            return ZoomState(factor: opticalZoom, target: opticalZoom, centerX: 0.5, centerY: 0.5, rate: nil, maximum: maximumZoom)
        }
        return ZoomState(factor: c.factor, target: c.target, centerX: upright.x, centerY: upright.y, rate: c.rate,
                         maximum: maximumZoom)
    }

    /// Each recent frame's zoom factor by its timestamp, oldest first (the last 900 frames).
    public var zoomLog: [(pts: UInt64, factor: Double)] { zoomCrop?.log ?? [] }
}
