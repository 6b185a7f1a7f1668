/// What a `MotionDetector` counts as motion, and how often a `MotionOutput` looks.
public struct MotionOptions: Sendable, Hashable {
    /// Analysis frames per second at most (the branch drops the others).
    public var rate: Int
    /// The width frames are scaled to before analysis (height kept in proportion).
    public var width: Int
    /// 0 to 1: higher finds fainter changes (a lower per-pixel threshold, see `threshold`).
    public var sensitivity: Double
    /// The changed part of the picture (0 to 1) a frame needs to count as a motion frame.
    public var minArea: Double
    /// Consecutive motion frames before motion starts.
    public var minFrames: Int
    /// Seconds without a motion frame before motion ends.
    public var quietSeconds: Double
    /// Rectangles of the upright picture that are ignored (as `ScanOptions.region` is given).
    public var masks: [NormalizedRect]
    /// A frame with at least this part of the picture changed at once is a lighting change
    /// (a light switched on, exposure jumping), not motion: the background re-learns.
    public var lightingFraction: Double

    public init(rate: Int = 5, width: Int = 160, sensitivity: Double = 0.5, minArea: Double = 0.005, minFrames: Int = 2,
                quietSeconds: Double = 2, masks: [NormalizedRect] = [], lightingFraction: Double = 0.5) {
        self.rate = rate
        self.width = width
        self.sensitivity = sensitivity
        self.minArea = minArea
        self.minFrames = minFrames
        self.quietSeconds = quietSeconds
        self.masks = masks
        self.lightingFraction = lightingFraction
    }

    /// The grey-level difference from the background that counts a pixel as changed:
    /// 60 at sensitivity 0, 10 at 1 (camera grain stays below it; specks are removed besides).
    public var threshold: Int { Int((10 + (1 - min(max(sensitivity, 0), 1)) * 50).rounded()) }

    /// Says what is out of range, as `CaptureError.invalidArgument`.
    public func validate() throws(CaptureError) {
        guard (1...30).contains(rate) else { throw .invalidArgument("motion rate \(rate) must be 1 to 30 frames per second") }
        guard (32...1280).contains(width) else { throw .invalidArgument("motion width \(width) must be 32 to 1280 pixels") }
        guard (0...1).contains(sensitivity) else { throw .invalidArgument("motion sensitivity \(sensitivity) must be 0 to 1") }
        guard minArea > 0, minArea <= 1 else { throw .invalidArgument("motion min-area \(minArea) must be above 0 and at most 1") }
        guard (1...100).contains(minFrames) else { throw .invalidArgument("motion min-frames \(minFrames) must be 1 to 100") }
        guard quietSeconds >= 0, quietSeconds <= 3600 else {
            throw .invalidArgument("motion quiet-seconds \(quietSeconds) must be 0 to 3600")
        }
        guard lightingFraction > minArea, lightingFraction <= 1 else {
            throw .invalidArgument("motion lighting fraction \(lightingFraction) must be above min-area and at most 1")
        }
    }
}
