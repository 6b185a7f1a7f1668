extension CameraSource {
    /// How long opening waits for the camera's first frame before it is
    /// `CameraError.Cause.noFrames` ("delivered no frame in time ... nothing within N s").
    /// A real camera gets 15 s: a USB webcam settles its exposure, a driver under load or
    /// emulation (the kernel tests' VM) starts late, and a wait that gives up early only
    /// makes `plumb serve` retry. What Plumb makes itself starts at once: 5 s.
    public var firstFrameLimit: Duration {
        switch self {
        case .device, .libcamera: return .seconds(15)
        case .testPattern, .mjpegTestPattern, .image: return .seconds(5)
        }
    }
}
