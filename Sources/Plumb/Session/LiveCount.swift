import Synchronization

/// A count of live objects (made minus finalized), for tests that prove nothing leaks.
final class LiveCount: Sendable {
    private let count = Atomic<Int>(0)
    func add(_ n: Int) { count.add(n, ordering: .relaxed) }
    var value: Int { count.load(ordering: .relaxed) }
}
