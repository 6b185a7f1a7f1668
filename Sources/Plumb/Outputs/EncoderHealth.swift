import FoundationEssentials
import Glibc
import GStreamer
import Synchronization

/// Encoders that failed while running, in this process: after `limit` failures `auto`
/// passes an encoder over (saying why), so the branch built next — the next recording,
/// segment or preview — runs on the next candidate instead of failing the same way.
public enum EncoderHealth {
    /// Failures while running before an encoder is passed over.
    public static let limit = 2

    private static let failures = Mutex<[String: (count: Int, last: String)]>([:])

    /// A branch whose encoder `name` failed with `error` (an error from another element of
    /// the branch — the file, the muxer — does not count).
    static func branchFailed(encoder name: String, element: String, error: any Error) {
        guard case CaptureError.outputFailed(_, let failure) = error,
              let source = failure.element,
              // "/pipeline/branch3/encoder", or with types: ".../PlumbX:encoder"
              source.split(separator: "/").last?.split(separator: ":").last.map(String.init) == element else { return }
        failures.withLock { f in
            let count = (f[name]?.count ?? 0) + 1
            f[name] = (count, failure.message)
        }
    }

    /// Why `name` is passed over, or nil while it has failed fewer than `limit` times.
    static func problem(with name: String) -> String? {
        failures.withLock { f in
            guard let entry = f[name], entry.count >= limit else { return nil }
            return "failed \(entry.count) times while running (last: \(entry.last))"
        }
    }

    /// Forgets every failure (a new device, or a test).
    public static func reset() {
        failures.withLock { $0.removeAll() }
    }
}
