import Synchronization

/// A value that arrives once, from whichever side comes first: a streaming-thread
/// callback, a bus message, a deadline or the waiter's cancellation. Resolving
/// it again does nothing, so racing sources need no coordination of their own.
/// Resolving before anyone waits is fine: the value is kept.
package final class OneShot<Value: Sendable>: Sendable {
    private enum State {
        case pending([CheckedContinuation<Value, any Error>])
        case done(Result<Value, any Error>)
    }

    private let state = Mutex<State>(.pending([]))

    package init() {}

    /// Delivers the result; false when it was already delivered.
    @discardableResult
    package func resolve(_ result: Result<Value, any Error>) -> Bool {
        let waiters: [CheckedContinuation<Value, any Error>]? = state.withLock { s in
            guard case .pending(let w) = s else { return nil }
            s = .done(result)
            return w
        }
        guard let waiters else { return false }
        for w in waiters { w.resume(with: result) }
        return true
    }

    @discardableResult
    package func succeed(_ value: Value) -> Bool { resolve(.success(value)) }

    @discardableResult
    package func fail(_ error: any Error) -> Bool { resolve(.failure(error)) }

    /// The result when it has arrived, without waiting.
    package var result: Result<Value, any Error>? {
        state.withLock { if case .done(let r) = $0 { return r } else { return nil } }
    }

    /// Waits for the value. With a `timeout`, fails with `CaptureError.timedOut(what, timeout)`
    /// when nothing arrives in time; cancelling the waiting task fails it with CancellationError.
    package func value(timeout: Duration? = nil, what: String = "the operation") async throws -> Value {
        let timer: Task<Void, Never>? = timeout.map { limit in
            Task { [weak self] in
                try? await Task.sleep(for: limit)
                if !Task.isCancelled { self?.fail(CaptureError.timedOut(what, limit)) }
            }
        }
        defer { timer?.cancel() }
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                let ready: Result<Value, any Error>? = state.withLock { s in
                    switch s {
                    case .done(let r):
                        return r
                    case .pending(var w):
                        w.append(continuation)
                        s = .pending(w)
                        return nil
                    }
                }
                if let ready { continuation.resume(with: ready) }
            }
        } onCancel: {
            self.fail(CancellationError())
        }
    }
}
