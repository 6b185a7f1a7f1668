/// What a `ScanOutput` looks for, where, and how often.
public struct ScanOptions: Sendable, Hashable {
    /// The symbologies read; others are ignored by the decoder itself.
    public var types: Set<Symbology>
    /// The part of the upright picture scanned (AVFoundation's `rectOfInterest`).
    public var region: NormalizedRect
    /// Frames scanned per second at most (the branch drops the others).
    public var rate: Int
    /// The width frames are scaled to before scanning (height kept in proportion).
    public var width: Int
    /// How long a code must have been out of view before it is reported again.
    public var forgetAfter: Duration

    public init(types: Set<Symbology> = Symbology.defaults, region: NormalizedRect = .full, rate: Int = 10,
                width: Int = 640, forgetAfter: Duration = .seconds(1)) {
        self.types = types
        self.region = region
        self.rate = rate
        self.width = width
        self.forgetAfter = forgetAfter
    }
}
