import Synchronization

/// A counter that streaming threads may bump.
public final class Counter: Sendable {
    private let count = Mutex(0)
    public init() {}
    public func increment() { count.withLock { $0 += 1 } }
    public func set(_ value: Int) { count.withLock { $0 = value } }
    /// Keeps the larger of the count and `value` (a peak).
    public func raise(to value: Int) { count.withLock { $0 = max($0, value) } }
    public var value: Int { count.withLock { $0 } }
}
