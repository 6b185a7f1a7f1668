import Glibc

/// A file path's parts, as NSString's path methods give them (FoundationEssentials has
/// them on URL only): "/a/b.mp4" → folder "/a", name "b.mp4", stem "/a/b", extension "mp4".
public enum Path {
    /// The last component: "b.mp4" for "/a/b.mp4" and for "/a/b.mp4/".
    public static func name(_ path: String) -> String {
        let trimmed = path.count > 1 && path.hasSuffix("/") ? String(path.dropLast()) : path
        guard let slash = trimmed.lastIndex(of: "/"), trimmed != "/" else { return trimmed }
        return String(trimmed[trimmed.index(after: slash)...])
    }

    /// The folder the last component is in: "/a" for "/a/b.mp4", "/" for "/b", "" for "b".
    public static func folder(_ path: String) -> String {
        let trimmed = path.count > 1 && path.hasSuffix("/") ? String(path.dropLast()) : path
        guard let slash = trimmed.lastIndex(of: "/") else { return "" }
        return slash == trimmed.startIndex ? "/" : String(trimmed[..<slash])
    }

    /// The last component's extension without its dot: "mp4"; "" when it has none (".hidden" has none).
    public static func `extension`(_ path: String) -> String {
        let last = name(path)
        guard let dot = last.lastIndex(of: "."), dot != last.startIndex else { return "" }
        return String(last[last.index(after: dot)...])
    }

    /// The path without the last component's extension and its dot: "/a/b" for "/a/b.mp4" and "/a/b.".
    public static func deletingExtension(_ path: String) -> String {
        let trimmed = path.count > 1 && path.hasSuffix("/") ? String(path.dropLast()) : path
        let last = name(trimmed)
        guard let dot = last.lastIndex(of: "."), dot != last.startIndex else { return trimmed }
        return String(trimmed.dropLast(last.distance(from: dot, to: last.endIndex)))
    }
}

extension Path {
    /// The size in bytes of the file at `path` (stat), nil when there is none.
    public static func size(_ path: String) -> Int? {
        var info = stat()
        return stat(path, &info) == 0 ? Int(info.st_size) : nil
    }
}

extension Path {
    /// Why `path` cannot be opened for reading (as a folder when `folder`), in the system's
    /// words ("Permission denied", "Not a directory"); what Foundation's `localizedDescription`
    /// of a failed read said. "it could not be read" when it opens after all.
    public static func whyUnreadable(_ path: String, folder: Bool = false) -> String {
        let file = open(path, O_RDONLY | O_CLOEXEC | (folder ? O_DIRECTORY : 0))
        guard file >= 0 else { return String(cString: strerror(errno)) }
        defer { close(file) }
        var byte: UInt8 = 0
        return !folder && read(file, &byte, 1) < 0 ? String(cString: strerror(errno)) : "it could not be read"
    }

    /// Makes the folder and the parents it lacks (mode 0755 less the umask); nil when it
    /// exists or was made, else why not, in the system's words.
    public static func makeFolders(_ path: String) -> String? {
        var info = stat()
        if stat(path, &info) == 0 { return info.st_mode & S_IFMT == S_IFDIR ? nil : String(cString: strerror(ENOTDIR)) }
        let parent = folder(path)
        if !parent.isEmpty, parent != path, let failure = makeFolders(parent) { return failure }
        guard mkdir(path, 0o755) == 0 || errno == EEXIST else { return String(cString: strerror(errno)) }
        return nil
    }
}
