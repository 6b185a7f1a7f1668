import Dispatch
import FoundationEssentials
import Glibc
import PlumbBase
import PlumbCommandLine
import Synchronization

/// What libraries print on stderr while `body` runs, kept instead of printed: GLib's default
/// log handler, and libwayland's "error: XDG_RUNTIME_DIR is invalid or not set" when a video
/// sink looks for a display at READY. Their "error:" is not Plumb's verdict, so the caller
/// passes these lines on as warnings. fd 2 points into a pipe meanwhile, drained by a thread
/// (a full pipe would block the library that prints).
enum StandardErrorCapture {
    static func capture<T>(_ body: () -> T) -> (result: T, printed: [String]) {
        // GST_DEBUG asks for GStreamer's own log on stderr: leave it there, as it is.
        guard ProcessInfo.processInfo.environment["GST_DEBUG"] == nil else { return (body(), []) }
        var ends: [Int32] = [-1, -1]
        guard pipe(&ends) == 0 else { return (body(), []) }
        for end in ends { _ = fcntl(end, F_SETFD, FD_CLOEXEC) }
        fflush(nil)
        let saved = dup(2)
        guard saved >= 0, dup2(ends[1], 2) >= 0 else {
            if saved >= 0 { close(saved) }
            close(ends[0]); close(ends[1])
            return (body(), [])
        }
        close(ends[1])
        let drained = Drain(ends[0])
        let result = body()
        fflush(nil)
        dup2(saved, 2)  // closes the last write end: the drain reads to the end and stops
        close(saved)
        let bytes = drained.wait()
        close(ends[0])
        let lines = String(decoding: bytes, as: UTF8.self).split(separator: "\n").map(String.init)
        return (result, lines.filter { !$0.trimmed.isEmpty })
    }

    /// Reads a pipe to its end on a thread of its own.
    private final class Drain: @unchecked Sendable {
        private let bytes = Mutex<[UInt8]>([])
        private let done = DispatchSemaphore(value: 0)

        init(_ fd: Int32) {
            startThread(named: "plumb.stderr") { [self] in
                var chunk = [UInt8](repeating: 0, count: 4096)
                while true {
                    let n = read(fd, &chunk, chunk.count)
                    if n > 0 { bytes.withLock { $0 += chunk[0..<n] }; continue }
                    if n < 0, errno == EINTR { continue }
                    break
                }
                done.signal()
            }
        }

        /// Once the pipe's write ends are all closed; what came so far if a process an element
        /// started still holds one after 10 s.
        func wait() -> [UInt8] {
            _ = done.wait(timeout: .now() + 10)
            return bytes.withLock { $0 }
        }
    }
}
