internal import CGio

/// A lock with a condition to wait on: GLib's GMutex and GCond (what Foundation's
/// NSCondition is on Linux, without linking Foundation: issue 26, bench/README.md "Memory").
/// Both live on the heap, where they never move.
/// `@unchecked Sendable`: GMutex and GCond are made to be shared between threads.
public final class Condition: @unchecked Sendable {
    private let mutex = UnsafeMutablePointer<GMutex>.allocate(capacity: 1)
    private let cond = UnsafeMutablePointer<GCond>.allocate(capacity: 1)

    public init() {
        g_mutex_init(mutex)
        g_cond_init(cond)
    }

    deinit {
        g_cond_clear(cond)
        g_mutex_clear(mutex)
        cond.deallocate()
        mutex.deallocate()
    }

    public func lock() { g_mutex_lock(mutex) }
    public func unlock() { g_mutex_unlock(mutex) }

    /// g_cond_wait: releases the lock while it waits; the caller holds it. May wake without a
    /// broadcast, as every condition variable may: wait in a loop on the state.
    public func wait() { g_cond_wait(cond, mutex) }
    public func signal() { g_cond_signal(cond) }
    public func broadcast() { g_cond_broadcast(cond) }

    public func withLock<T, E: Error>(_ body: () throws(E) -> T) throws(E) -> T {
        lock()
        defer { unlock() }
        return try body()
    }
}
