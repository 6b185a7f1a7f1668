/// What the session's tee carries: raw I420 frames of one size and rate.
public struct CaptureFormat: Sendable, Hashable, CustomStringConvertible {
    public var size: VideoSize
    public var rate: FrameRate
    /// How the camera delivers them (nil for the test pattern).
    public var cameraMode: CameraMode?

    public init(size: VideoSize, rate: FrameRate, cameraMode: CameraMode? = nil) {
        self.size = size
        self.rate = rate
        self.cameraMode = cameraMode
    }

    /// The raw format on the tee: what jpegenc and the H.264/H.265 encoders take without conversion.
    public static let pixelFormat = "I420"

    /// The fixed caps on the tee.
    public var caps: String {
        "video/x-raw,format=\(Self.pixelFormat),width=\(size.width),height=\(size.height),framerate=\(rate)"
    }

    public var description: String {
        "\(size)@\(rate.perSecond.formatted2)" + (cameraMode.map { " from \($0.encodingName)" } ?? "")
    }
}
