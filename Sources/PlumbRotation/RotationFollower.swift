/// The one loop that follows a `RotationObserver` for whatever applies its angles — a
/// `CaptureSession` (`follow(_:)`), a description file's `RoleRotator` — the AVCam way:
///
/// - the current angles go to `seed` at once, before `init` returns: the streams report
///   only changes, and the frames flowing now must already be upright;
/// - then one task hands every later change to `capture` and `preview`, each in the order
///   the observer made them, the newest only (a handler still busy when several changes
///   come gets the last of them next);
/// - the observer is started if it was not.
///
/// Each follower is one more consumer of the observer's streams: any number may follow the
/// same observer. The handlers should hold what they apply to weakly (the observer can
/// outlive it). `stop()`, or the observer stopping, ends the task.
public struct RotationFollower: Sendable {
    private let task: Task<Void, Never>

    /// - Parameters:
    ///   - seed: the angles as they are now, called synchronously on the caller's thread.
    ///   - capture: each later capture angle; nil follows only the preview angle.
    ///   - preview: each later preview angle; nil follows only the capture angle.
    public init(_ observer: RotationObserver,
                seed: (RotationAngles) -> Void,
                capture: (@Sendable (RotationAngle) async -> Void)?,
                preview: (@Sendable (RotationAngle) async -> Void)?) {
        // The streams first, then the angles: a change in between is in both, none is lost.
        let captureAngles = capture.map { _ in observer.captureAngles() }
        let previewAngles = preview.map { _ in observer.previewAngles() }
        seed(observer.angles)
        task = Task {
            await withDiscardingTaskGroup { group in
                if let capture, let captureAngles {
                    group.addTask {
                        for await angle in captureAngles where !Task.isCancelled { await capture(angle) }
                    }
                }
                if let preview, let previewAngles {
                    group.addTask {
                        for await angle in previewAngles where !Task.isCancelled { await preview(angle) }
                    }
                }
            }
        }
        observer.start()
    }

    /// Stops following: no handler is called for a change from now on; one already under way
    /// sees `Task.isCancelled` (and should then not apply). The last angles stay applied.
    public func stop() { task.cancel() }

    /// Returns once the task has ended (`stop()`, or the observer stopped).
    public func finished() async { await task.value }
}
