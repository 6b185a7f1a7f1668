import Synchronization
import Plumb

/// The clips of `POST /clip` from request to delivery, so that a stop can cut them short and
/// wait until their clients have them: a clip counts from the moment it is asked for until
/// its answer was handed to the client's connection, or given up.
final class ClipsInFlight: Sendable {
    private struct State {
        var open = 0
        /// Why clips end now (`plumb serve` stopping); nil while running.
        var cut: String?
    }

    private let state = Mutex(State())

    /// A new clip; 503 once the clips are being cut (nothing new starts during a stop).
    func enter() throws(APIError) {
        try state.withLock { s throws(APIError) in
            if let cut = s.cut { throw .cameraUnavailable("\(cut): no new clip is started") }
            s.open += 1
        }
    }

    /// The clip was delivered, kept, or dropped.
    func leave() { state.withLock { $0.open -= 1 } }

    /// Every clip being recorded ends where it stands and is answered; returns how many are open.
    @discardableResult
    func cut(because reason: String) -> Int {
        state.withLock { s in
            s.cut = s.cut ?? reason
            return s.open
        }
    }

    /// Why clips are being cut, once they are.
    var cutReason: String? { state.withLock { $0.cut } }

    var open: Int { state.withLock { $0.open } }

    /// Waits until every clip has left, at most `limit`; false when some are still open.
    func waitUntilDone(limit: Duration) async -> Bool {
        let deadline = ContinuousClock.now + limit
        while open > 0 {
            guard ContinuousClock.now < deadline, !Task.isCancelled else { return false }
            // A stop waits for slow clients: a short poll is simpler than waking waiters.
            try? await Task.sleep(for: .milliseconds(50))
        }
        return true
    }
}
