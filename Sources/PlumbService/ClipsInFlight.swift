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
        /// Waiters for the last clip to leave (`waitUntilDone`).
        var done: [ObjectIdentifier: OneShot<Void>] = [:]
        /// Called once when the clips are cut (`watchCut`).
        var cutWatchers: [Int: @Sendable () -> Void] = [:]
        var nextWatcher = 0
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
    func leave() {
        let waiters = state.withLock { s -> [OneShot<Void>] in
            s.open -= 1
            guard s.open == 0 else { return [] }
            defer { s.done = [:] }
            return Array(s.done.values)
        }
        for waiter in waiters { waiter.succeed(()) }
    }

    /// Every clip being recorded ends where it stands and is answered; returns how many are open.
    @discardableResult
    func cut(because reason: String) -> Int {
        let (open, watchers) = state.withLock { s in
            s.cut = s.cut ?? reason
            defer { s.cutWatchers = [:] }
            return (s.open, Array(s.cutWatchers.values))
        }
        for watcher in watchers { watcher() }
        return open
    }

    /// Calls `watcher` once when the clips are cut (at once when they already are), unless
    /// `unwatchCut(_:)` came first; returns its token.
    func watchCut(_ watcher: @escaping @Sendable () -> Void) -> Int {
        let token: Int? = state.withLock { s in
            guard s.cut == nil else { return nil }
            s.nextWatcher += 1
            s.cutWatchers[s.nextWatcher] = watcher
            return s.nextWatcher
        }
        guard let token else {
            watcher()
            return 0
        }
        return token
    }

    func unwatchCut(_ token: Int) { _ = state.withLock { $0.cutWatchers.removeValue(forKey: token) } }

    /// Why clips are being cut, once they are.
    var cutReason: String? { state.withLock { $0.cut } }

    var open: Int { state.withLock { $0.open } }

    /// Waits until every clip has left, at most `limit`; false when some are still open.
    func waitUntilDone(limit: Duration) async -> Bool {
        let done = OneShot<Void>()
        let waiting = state.withLock { s in
            guard s.open > 0 else { return false }
            s.done[ObjectIdentifier(done)] = done
            return true
        }
        guard waiting else { return true }
        defer { _ = state.withLock { $0.done.removeValue(forKey: ObjectIdentifier(done)) } }
        // Resolved by the last clip's `leave()`; a time-out or cancellation fails it.
        return (try? await done.value(timeout: limit, what: "the clips in flight")) != nil
    }
}
