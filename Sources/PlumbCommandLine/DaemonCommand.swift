import Glibc

/// `plumb serve`, as `plumb` knows it: the daemon is its own executable, `plumb-serve`
/// beside `plumb`, so that the one-shot commands map none of the libraries only the daemon
/// uses (libsoup with its TLS, HTTP/2 and Kerberos libraries; issue 26). `plumb serve ...`
/// replaces itself with `plumb-serve serve ...` (same process, same arguments).
package enum DaemonCommand {
    package static let name = "serve"
    package static let summary = "the recorder daemon: RTSP preview, HTTP control API, recordings"
    package static let executable = "plumb-serve"
    package static var watchedSignals: [Int32] { [SIGINT, SIGTERM, SIGHUP, SIGUSR1, SIGUSR2] }
}
