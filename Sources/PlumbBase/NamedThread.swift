import Glibc

/// Starts `body` on a thread of its own, detached, named `name` (the kernel keeps 15 bytes:
/// ps and /proc/PID/task/*/comm show it). What Foundation's `Thread { }.start()` did, which
/// FoundationEssentials lacks (issue 26).
public func startThread(named name: String, _ body: @escaping @Sendable () -> Void) {
    final class Start: @unchecked Sendable {  // handed to the new thread alone
        let name: String
        let body: @Sendable () -> Void
        init(_ name: String, _ body: @escaping @Sendable () -> Void) { self.name = name; self.body = body }
    }
    let start = Unmanaged.passRetained(Start(name, body)).toOpaque()
    var thread = pthread_t()
    let failed = pthread_create(&thread, nil, { raw in
        let start = Unmanaged<Start>.fromOpaque(raw!).takeRetainedValue()
        // What pthread_setname_np does, which Swift's Glibc does not declare.
        let comm = open("/proc/thread-self/comm", O_WRONLY | O_CLOEXEC)
        if comm >= 0 {
            let bytes = Array(start.name.utf8.prefix(15))
            _ = bytes.withUnsafeBytes { write(comm, $0.baseAddress, $0.count) }
            close(comm)
        }
        start.body()
        return nil
    }, start)
    precondition(failed == 0, "pthread_create failed: \(failed)")
    pthread_detach(thread)
}
