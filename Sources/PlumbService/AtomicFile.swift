import FoundationEssentials
import Glibc

/// A file written whole or not at all (stills the daemon saves): the bytes go to a hidden
/// `.NAME.tmp` beside it (retention counts such files but never deletes them), are flushed
/// to disk, and the file is renamed into place. Its failures are sentences naming the file
/// (`No space left on device: cannot write /rec/x.jpg`), where Foundation's `Data.write`
/// gives `NSCocoaErrorDomain Code=640 ... UserInfo={...}`.
enum AtomicFile {
    struct Failure: Error, CustomStringConvertible {
        var path: String
        var errno: Int32

        /// `No space left on device: cannot write PATH`.
        var description: String { "\(String(cString: strerror(errno))): cannot write \(path)" }
    }

    static func write(_ data: Data, to path: String) throws(Failure) {
        let url = URL(fileURLWithPath: path)
        let temporary = url.deletingLastPathComponent().appendingPathComponent("." + url.lastPathComponent + ".tmp").path
        let fd = open(temporary, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw Failure(path: path, errno: errno) }
        var failure: Int32 = 0
        data.withUnsafeBytes { buffer in
            var offset = 0
            while offset < buffer.count {
                let n = Glibc.write(fd, buffer.baseAddress! + offset, buffer.count - offset)
                if n < 0 {
                    if errno == EINTR { continue }
                    failure = errno
                    return
                }
                offset += n
            }
        }
        if failure == 0, fsync(fd) != 0 { failure = errno }
        if close(fd) != 0, failure == 0 { failure = errno }
        if failure == 0, rename(temporary, path) != 0 { failure = errno }
        guard failure == 0 else {
            unlink(temporary)
            throw Failure(path: path, errno: failure)
        }
    }
}
