/// Notices a camera that stops delivering while the session runs. A camera that fails says
/// so on the bus (the session fails); one that stalls says nothing: a whole `limit` in
/// which no frame at all enters the session counts as stalled (noticed within twice
/// `limit`). A slow camera — long exposures in the dark — is not a stalled one.
/// `plumb record` ends its recording on it, `plumb serve` reopens the camera (`limit` 2 s).
/// The waits run on the monotonic clock: a wall-clock jump is no stall.
public struct StallWatchdog: Sendable {
    public static let defaultLimit: Duration = .seconds(5)

    /// How long a second of frames may take to come.
    public var limit: Duration

    public init(limit: Duration = StallWatchdog.defaultLimit) {
        self.limit = limit
    }

    /// Watches `session` until its camera fails or stalls and returns the error that says
    /// which: what the session failed of (or `CaptureError.closed`), or for a stall
    /// `CaptureError.camera` with cause `.noFrames`. `frames` gets the session's frame count
    /// after each second of frames (as many as the rate says). Returns nil once the calling
    /// task is cancelled.
    public func watch(_ session: CaptureSession, frames: @Sendable (Int) -> Void = { _ in }) async -> CaptureError? {
        let perSecond = max(1, Int(await session.format.rate.perSecond.rounded(.down)))
        while !Task.isCancelled {
            let before = await session.frameCount
            do {
                try await session.waitForFrames(perSecond, timeout: limit)
                frames(await session.frameCount)
            } catch CaptureError.timedOut {
                // Fewer than a second of frames, but some: slow, not stalled.
                // A camera switch's restart is no stall either.
                if await session.frameCount > before { continue }
                if await session.isSwitchingCamera { continue }
                return .camera(CameraError(device: session.camera.identifier, cause: .noFrames,
                                           detail: "it stopped delivering frames for \(limit)"))
            } catch {
                if Task.isCancelled { return nil }
                return await session.failure ?? CaptureError.wrap(error)
            }
        }
        return nil
    }
}
