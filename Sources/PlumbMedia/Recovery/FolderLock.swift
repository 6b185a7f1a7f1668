import FoundationEssentials
import Glibc

/// An exclusive lock on a recordings folder (`flock` on the folder itself): `plumb serve`
/// holds it while it runs and `plumb repair` while it works, so a repair never rewrites a
/// file a daemon is writing, and two daemons never share a folder. The kernel releases it
/// when the process ends, however it ends; `release()` or deinit before that.
public final class FolderLock: Sendable {
    public let folder: String
    private let fd: Int32

    /// Takes the lock without waiting. nil when the folder's file system has no locks
    /// (some network file systems): there is then nothing to hold.
    /// - Throws: when another process holds it, or the folder cannot be opened.
    public static func acquire(_ folder: String) throws(RepairError) -> FolderLock? {
        let fd = open(folder, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard fd >= 0 else { throw .system("open the folder", folder) }
        guard flock(fd, LOCK_EX | LOCK_NB) == 0 else {
            let code = errno
            close(fd)
            if code == EWOULDBLOCK {
                throw RepairError("\(folder) is in use by another plumb process (a running plumb serve records into it, "
                                  + "or a plumb repair works on it)", isInUse: true)
            }
            if code == ENOLCK || code == EINVAL || code == ENOTSUP { return nil }
            throw .system("lock the folder", folder, errno: code)
        }
        return FolderLock(folder: folder, fd: fd)
    }

    private init(folder: String, fd: Int32) {
        self.folder = folder
        self.fd = fd
    }

    deinit { close(fd) }
}
