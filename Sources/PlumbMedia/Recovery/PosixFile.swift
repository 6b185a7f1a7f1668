import FoundationEssentials
import Glibc

/// A file descriptor for the few system calls a repair needs (exclusive create, positioned
/// writes, fsync, the owner and times kept); closed on deinit.
final class PosixFile {
    let fd: Int32
    let path: String

    init(path: String, flags: Int32, mode: mode_t = 0o600) throws(RepairError) {
        self.path = path
        fd = open(path, flags | O_CLOEXEC, mode)
        guard fd >= 0 else { throw .system("open", path) }
    }

    deinit { close(fd) }

    /// All of `bytes` at `offset` (retrying short writes and interruptions).
    func write(_ bytes: UnsafeRawBufferPointer, at offset: Int) throws(RepairError) {
        var done = 0
        while done < bytes.count {
            let n = pwrite(fd, bytes.baseAddress! + done, bytes.count - done, off_t(offset + done))
            if n < 0 && errno == EINTR { continue }
            guard n > 0 else { throw .system("write to", path) }
            done += n
        }
    }

    func write(_ bytes: [UInt8], at offset: Int) throws(RepairError) {
        try bytes.withUnsafeBytes { raw in capture { () throws(RepairError) in try write(raw, at: offset) } }.get()
    }

    /// Copies the first `count` bytes of `source` to the same place here.
    func copy(_ count: Int, from source: PosixFile) throws(RepairError) {
        var buffer = [UInt8](repeating: 0, count: 1 << 20)
        var offset = 0
        while offset < count {
            let n = buffer.withUnsafeMutableBytes { pread(source.fd, $0.baseAddress!, min($0.count, count - offset), off_t(offset)) }
            if n < 0 && errno == EINTR { continue }
            guard n > 0 else { throw n == 0 ? RepairError("\(source.path) ended at \(offset) bytes, before \(count)") : .system("read", source.path) }
            try buffer.withUnsafeBytes { raw in
                capture { () throws(RepairError) in try write(UnsafeRawBufferPointer(rebasing: raw[..<n]), at: offset) }
            }.get()
            offset += n
        }
    }

    /// The original's permissions, owner (when allowed) and times, so that the folder's
    /// order by date and the service's access stay as they were.
    func take(attributesOf info: stat) throws(RepairError) {
        _ = fchown(fd, info.st_uid, info.st_gid)  // only root may give a file away; then it stays ours
        guard fchmod(fd, info.st_mode & 0o7777) == 0 else { throw .system("set the permissions of", path) }
        let times = [info.st_atim, info.st_mtim]
        guard futimens(fd, times) == 0 else { throw .system("set the times of", path) }
    }

    func sync() throws(RepairError) {
        guard fsync(fd) == 0 else { throw .system("sync", path) }
    }

    /// A typed error through the standard library's untyped `withUnsafeBytes`.
    private func capture(_ body: () throws(RepairError) -> Void) -> Result<Void, RepairError> {
        do throws(RepairError) { try body(); return .success(()) } catch { return .failure(error) }
    }

    /// Syncs a folder, so that a rename or a new entry in it survives a power cut.
    static func syncFolder(_ path: String) {
        guard let folder = try? PosixFile(path: path, flags: O_RDONLY | O_DIRECTORY) else { return }
        _ = fsync(folder.fd)
    }
}
