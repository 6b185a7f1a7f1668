import FoundationEssentials
import Glibc
import PlumbBase
import PlumbCommandLine

/// Where a one-shot command writes its file (`-o`), checked before the camera opens so a
/// bad path costs nothing and leaves nothing behind.
///
/// - no `-o`: a timestamped name in the current folder (`photo-20250102-153000.jpg`);
///   when that exists, `-2`, `-3`... is added: a default name never replaces anything;
/// - `-o FOLDER` (an existing folder): the timestamped name inside it;
/// - `-o FILE`: that file; an existing one is replaced only with `--force`;
/// - `-o -`: standard output, where the command allows it.
struct OutputTarget {
    enum Place: Equatable {
        case file(URL)
        case standardOutput
    }

    var place: Place
    /// The name was made up (timestamped), so a clash moves to the next free name.
    var isDefaultName: Bool
    var force: Bool

    /// The file, or nil for standard output.
    var url: URL? {
        if case .file(let url) = place { return url }
        return nil
    }

    /// Resolves and checks `-o`. Throws what to fix, as a `UsageError`.
    static func resolve(_ option: String?, force: Bool, prefix: String, ext: String, allowStdout: Bool,
                        now: Date = Date()) throws(UsageError) -> OutputTarget {
        let cwd = URL(fileURLWithPath: FileManager.default.currentDirectoryPath, isDirectory: true)
        let defaultName = "\(prefix)-\(timestamp(now)).\(ext)"
        guard let option else {
            return try checked(OutputTarget(place: .file(cwd.appendingPathComponent(defaultName)),
                                            isDefaultName: true, force: false))
        }
        if option == "-" {
            guard allowStdout else {
                throw UsageError("-o -: this command writes a file (an MP4 is finalized by seeking back into it); give a file name")
            }
            return OutputTarget(place: .standardOutput, isDefaultName: false, force: force)
        }
        guard !option.isEmpty else { throw UsageError("-o needs a file name") }
        let url = URL(fileURLWithPath: option, relativeTo: cwd).standardizedFileURL
        var isDirectory: Bool = false
        if FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory), isDirectory {
            return try checked(OutputTarget(place: .file(url.appendingPathComponent(defaultName)),
                                            isDefaultName: true, force: false))
        }
        return try checked(OutputTarget(place: .file(url), isDefaultName: false, force: force))
    }

    /// "20250102-153000", local time.
    static func timestamp(_ date: Date) -> String {
        let t = CivilTime(date, local: true)
        return String(cFormat: "%04d%02d%02d-%02d%02d%02d", t.year, t.month, t.day, t.hour, t.minute, t.second)
    }

    /// The folder must exist and take new files; an existing target must be a regular
    /// file and `--force` given. A taken default name moves on to a free one.
    private static func checked(_ target: OutputTarget) throws(UsageError) -> OutputTarget {
        guard var url = target.url else { return target }
        let folder = url.deletingLastPathComponent()
        var isDirectory: Bool = false
        guard FileManager.default.fileExists(atPath: folder.path, isDirectory: &isDirectory) else {
            throw UsageError("cannot write \(url.path): the folder \(folder.path) does not exist; create it or choose another -o")
        }
        guard isDirectory else {
            throw UsageError("cannot write \(url.path): \(folder.path) is not a folder; choose another -o")
        }
        if let problem = canCreateFiles(in: folder) {
            throw UsageError("cannot write \(url.path): cannot create files in \(folder.path) (\(problem)); choose another -o")
        }
        if target.isDefaultName {
            url = freeName(like: url)
        } else if let kind = existingKind(url) {
            guard kind == .typeRegular else {
                throw UsageError("cannot write \(url.path): it exists and is not a regular file; choose another -o")
            }
            guard target.force else {
                throw UsageError("\(url.path) already exists; add --force to replace it, or choose another -o")
            }
        }
        return OutputTarget(place: .file(url), isDefaultName: target.isDefaultName, force: target.force)
    }

    /// The file type of whatever is at `url` (without following a symlink), nil if nothing.
    private static func existingKind(_ url: URL) -> FileAttributeType? {
        guard let attributes = try? FileManager.default.attributesOfItem(atPath: url.path) else { return nil }
        return attributes[.type] as? FileAttributeType ?? .typeUnknown
    }

    /// Really creates (and removes) a file: permissions, read-only mounts and special
    /// file systems all answer the same way. Nil when it worked, else the system's words.
    private static func canCreateFiles(in folder: URL) -> String? {
        let probe = folder.appendingPathComponent(".plumb-probe-\(getpid())-\(UInt32.random(in: 0...UInt32.max))").path
        let fd = open(probe, O_WRONLY | O_CREAT | O_EXCL, 0o600)
        guard fd >= 0 else { return String(cString: strerror(errno)) }
        close(fd)
        unlink(probe)
        return nil
    }

    /// `name.ext`, or the first of `name-2.ext`, `name-3.ext`... that does not exist.
    static func freeName(like url: URL) -> URL {
        var candidate = url
        var n = 1
        while existingKind(candidate) != nil {
            n += 1
            let base = url.deletingPathExtension().lastPathComponent
            candidate = url.deletingLastPathComponent().appendingPathComponent("\(base)-\(n).\(url.pathExtension)")
        }
        return candidate
    }

    // MARK: Writing a whole file (photos)

    /// Writes `data` so that the target is either absent or complete, never partial: a
    /// hidden temporary file in the same folder, flushed to disk, then moved into place
    /// (without `--force` by a link, which fails instead of replacing a file that appeared
    /// meanwhile). `interrupt`'s abort removes the temporary file. Returns the final URL.
    func write(_ data: Data, interrupt: Interrupt?) throws -> URL {
        guard var url else {
            StandardStream.output.write(data)
            return URL(fileURLWithPath: "/dev/stdout")
        }
        let temporary = url.deletingLastPathComponent()
            .appendingPathComponent(".\(url.lastPathComponent).partial-\(getpid())").path
        interrupt?.setCleanup { unlink(temporary) }
        defer {
            unlink(temporary)
            interrupt?.setCleanup(nil)
        }
        let fd = open(temporary, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        guard fd >= 0 else { throw WriteError(path: url.path, errno: errno) }
        let written = data.withUnsafeBytes { buffer -> Int in
            var offset = 0
            while offset < buffer.count {
                let n = Glibc.write(fd, buffer.baseAddress! + offset, buffer.count - offset)
                if n < 0 {
                    if errno == EINTR { continue }
                    return -1
                }
                offset += n
            }
            return offset
        }
        let writeErrno = errno
        let synced = fsync(fd) == 0
        close(fd)
        guard written == data.count, synced else { throw WriteError(path: url.path, errno: writeErrno) }
        if force {
            guard rename(temporary, url.path) == 0 else { throw WriteError(path: url.path, errno: errno) }
            return url
        }
        while link(temporary, url.path) != 0 {
            let e = errno
            guard e == EEXIST, isDefaultName else { throw WriteError(path: url.path, errno: e) }
            url = Self.freeName(like: url)
        }
        return url
    }

    struct WriteError: Error, CustomStringConvertible {
        var path: String
        var errno: Int32
        var description: String {
            errno == EEXIST ? "\(path) appeared while the photo was taken; nothing was replaced (add --force to replace it)"
                : "cannot write \(path): \(String(cString: strerror(errno)))"
        }
    }
}
