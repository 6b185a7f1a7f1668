import Synchronization

/// A closure set after start-up and read on every request (`GET /status`'s providers,
/// the systemd status). `Mutex<(@Sendable () -> T)?>` written with a concrete function type
/// stores the closure at the generic abstraction, and every `withLock { $0 }` passes it
/// `inout` through a reabstraction thunk each way and writes the wrapped closure back: two
/// more thunks per read. Issue 22 saw the daemon die of a stack overflow at the 43 657th
/// `GET /status`, 174 645 thunks deep (an async closure nests the same way, costing memory
/// and time rather than stack). Here the `Mutex` is only touched in generic code, and the
/// closure sits in a struct, so the function value itself is never passed `inout`.
final class ClosureSlot<Closure: Sendable>: Sendable {
    private struct Held: Sendable { let closure: Closure }
    private let held = Mutex<Held?>(nil)

    init(_ closure: Closure? = nil) { held.withLock { $0 = closure.map(Held.init) } }

    /// The closure set last; nil before the first `set` or after `clear`.
    var closure: Closure? { held.withLock { $0?.closure } }

    func set(_ closure: Closure) { held.withLock { $0 = Held(closure: closure) } }

    func clear() { held.withLock { $0 = nil } }
}
