import Synchronization

/// One value for many consumers, each with a stream of its own: what is yielded reaches every
/// stream open at that moment, in the order it was yielded. A consumer that stops reading
/// (its task cancelled, its stream dropped) is removed; `finish()` ends every stream, and any
/// stream asked for afterwards ends at once.
final class StreamFanout<Element: Sendable>: Sendable {
    private struct State {
        var consumers: [(id: Int, continuation: AsyncStream<Element>.Continuation)] = []
        var nextID = 0
        var finished = false
    }

    private let state = Mutex(State())
    private let bufferingPolicy: AsyncStream<Element>.Continuation.BufferingPolicy

    init(bufferingPolicy: AsyncStream<Element>.Continuation.BufferingPolicy) {
        self.bufferingPolicy = bufferingPolicy
    }

    /// A new consumer's stream: everything yielded from now on.
    func stream() -> AsyncStream<Element> {
        let (stream, continuation) = AsyncStream<Element>.makeStream(bufferingPolicy: bufferingPolicy)
        let id: Int? = state.withLock { s in
            guard !s.finished else { return nil }
            s.nextID += 1
            s.consumers.append((s.nextID, continuation))
            return s.nextID
        }
        guard let id else {
            continuation.finish()
            return stream
        }
        continuation.onTermination = { [weak self] _ in
            self?.state.withLock { $0.consumers.removeAll { $0.id == id } }
        }
        return stream
    }

    /// Hands `element` to every open stream. Safe under the caller's own lock: nothing here
    /// calls back (a stream's `onTermination` runs only when it ends).
    func yield(_ element: Element) {
        let consumers = state.withLock { $0.consumers }
        for consumer in consumers { consumer.continuation.yield(element) }
    }

    /// Ends every stream, now and to come. Not under a lock `onTermination` takes: ending a
    /// stream runs it.
    func finish() {
        let consumers = state.withLock { s in
            s.finished = true
            defer { s.consumers = [] }
            return s.consumers
        }
        for consumer in consumers { consumer.continuation.finish() }
    }
}
