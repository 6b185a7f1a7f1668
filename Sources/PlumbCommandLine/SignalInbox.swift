import CPlumbCLIShim
import FoundationEssentials
import Glibc
import Synchronization

/// The stop signals `plumb` catches from its first instruction (CPlumbCLIShim): each one
/// caught is a byte in a pipe, so a SIGTERM that comes while the program is still starting
/// waits there for the command that handles it instead of killing the process.
package enum SignalInbox {
    /// Read from the pipe before a watch started, kept for it (signal numbers, in order).
    private static let early = Mutex<[Int32]>([])

    /// The pipe's read end, -1 when there is none (the signals kept their default action).
    package static var descriptor: Int32 { plumb_signal_inbox() }

    /// Gives every caught signal but `watched` its default action back; one of them that
    /// already came acts now, as it would have without the handler (it ends the process).
    /// Called by `main` before the command runs.
    package static func release(allBut watched: [Int32]) {
        var caught = plumb_caught_signals()
        let released = (1..<Int32(NSIG)).filter { sigismember(&caught, $0) == 1 && !watched.contains($0) }
        for number in released { signal(number, SIG_DFL) }
        let arrived = read()
        early.withLock { $0 += arrived.filter { watched.contains($0) } }
        for number in arrived where released.contains(number) { raise(number) }
    }

    /// What came so far and no one has taken yet, in order; never waits.
    package static func take() -> [Int32] {
        let arrived = read()
        return early.withLock { list in
            defer { list.removeAll() }
            return list + arrived
        }
    }

    /// Empties the pipe (non-blocking).
    private static func read() -> [Int32] {
        guard descriptor >= 0 else { return [] }
        var numbers: [Int32] = []
        var buffer = [UInt8](repeating: 0, count: 64)
        while true {
            let n = buffer.withUnsafeMutableBytes { Glibc.read(descriptor, $0.baseAddress, $0.count) }
            if n > 0 {
                numbers += buffer[0..<n].map { Int32($0) }
            } else if n < 0 && errno == EINTR {
                continue
            } else {
                return numbers
            }
        }
    }
}
