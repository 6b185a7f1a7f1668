import FoundationEssentials
import Glibc
import PlumbBase
import Synchronization

/// Lines of a file descriptor as an AsyncStream, read by a thread of its own so
/// a blocking read (standard input, a pipe) never holds a task executor thread.
///
/// The stream finishes at end of file or on a read error. When the consumer
/// stops, the thread ends at its next read (for a terminal or pipe, when the
/// next input arrives or the writer closes it).
enum LineReader {
    /// Reads `descriptor` to the end; closes it afterwards when `closeWhenDone`.
    static func lines(of descriptor: Int32, closeWhenDone: Bool) -> AsyncStream<String> {
        let (stream, continuation) = AsyncStream<String>.makeStream(bufferingPolicy: .unbounded)
        let stopped = StopFlag()
        continuation.onTermination = { _ in stopped.set() }
        startThread(named: "plumb.line-reader") {
            defer { if closeWhenDone { close(descriptor) } }
            var pending = [UInt8]()
            var chunk = [UInt8](repeating: 0, count: 4096)
            while !stopped.isSet {
                let count = chunk.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
                if count < 0 && errno == EINTR { continue }
                if count <= 0 { break }
                pending.append(contentsOf: chunk[0..<count])
                while let newline = pending.firstIndex(of: UInt8(ascii: "\n")) {
                    continuation.yield(String(decoding: pending[..<newline], as: UTF8.self))
                    pending.removeSubrange(...newline)
                }
            }
            if !pending.isEmpty { continuation.yield(String(decoding: pending, as: UTF8.self)) }
            continuation.finish()
        }
        return stream
    }
}

/// A flag set once from any thread.
final class StopFlag: Sendable {
    private let flag = Mutex(false)
    func set() { flag.withLock { $0 = true } }
    var isSet: Bool { flag.withLock { $0 } }
}
