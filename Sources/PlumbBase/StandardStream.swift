import Glibc

/// Standard output or error, written with write(2) at once, unbuffered (FoundationEssentials
/// has no FileHandle): a progress line shows when piped, and nothing waits in a buffer when
/// the process exits.
public struct StandardStream: Sendable {
    public let descriptor: Int32

    public static let output = StandardStream(descriptor: 1)
    public static let error = StandardStream(descriptor: 2)

    public func write(_ text: String) { write(Array(text.utf8)) }

    /// Every byte, across short writes and signals; a closed stream drops the rest.
    public func write(_ bytes: some Collection<UInt8>) {
        let all = Array(bytes)
        var written = 0
        while written < all.count {
            let n = all.withUnsafeBytes { Glibc.write(descriptor, $0.baseAddress! + written, all.count - written) }
            if n > 0 { written += n } else if n < 0 && errno == EINTR { continue } else { return }
        }
    }
}
