import FoundationEssentials
import Glibc
import PlumbBase
import Soup
import Plumb
import PlumbMedia

/// The one folder `plumb serve` writes recordings and stills into, and the only
/// one `GET /recordings` serves from.
///
/// A name is a plain file name: no `/`, no leading `.` (so no `..` and no hidden
/// files), no control characters, at most 255 bytes, ending in .mp4, .jpg or
/// .jpeg. Only regular files are listed or served — never a symlink, so a link
/// planted in the folder cannot expose anything outside it (the server opens
/// files with O_NOFOLLOW as well) — and an .mp4 only once it has a movie header:
/// a file cut in its first second (or in it now) plays nowhere, and what the
/// start-up repair could not save is in `damaged/`, which is not listed.
public struct RecordingsFolder: Sendable {
    /// Absolute path of the folder.
    public let path: String

    /// Extension -> content type of what may be listed and served.
    public static let contentTypes = ["mp4": "video/mp4", "jpg": "image/jpeg", "jpeg": "image/jpeg"]

    /// `folder` as configured; a relative path is taken from the working directory.
    public init(_ folder: String) {
        let url = folder.hasPrefix("/") ? URL(fileURLWithPath: folder)
            : URL(fileURLWithPath: FileManager.default.currentDirectoryPath).appendingPathComponent(folder)
        path = url.standardizedFileURL.path
    }

    /// One file of the folder, as `GET /recordings` lists it.
    public struct Entry: Codable, Sendable, Equatable {
        public var name: String
        public var bytes: Int64
        public var modified: Date
        /// `video`, `event` (an event clip: `event-DATE.mp4`) or `photo`.
        public var kind: String
    }

    /// Creates the folder (and its parents) if missing; says what to fix if it cannot.
    public func create() throws(APIError) {
        if let reason = Path.makeFolders(path) {
            throw .internalError("cannot create the recordings folder \(path): \(reason); "
                                 + "check [recording] folder and its permissions")
        }
    }

    /// The recordings and stills, oldest first.
    public func list() throws(APIError) -> [Entry] {
        let names: [String]
        do {
            names = try FileManager.default.contentsOfDirectory(atPath: path)
        } catch {
            throw .internalError("cannot read the recordings folder \(path): \(Path.whyUnreadable(path, folder: true))")
        }
        var entries: [Entry] = []
        for name in names where (try? validate(name)) != nil {
            var info = stat()
            guard lstat(path + "/" + name, &info) == 0, info.st_mode & S_IFMT == S_IFREG else { continue }
            let ext = RecordingsFolder.fileExtension(name)
            guard ext != "mp4" || MP4File.hasMovieHeader(path: path + "/" + name) else { continue }
            entries.append(Entry(name: name, bytes: Int64(info.st_size),
                                 modified: Date(timeIntervalSince1970: info.st_mtim.seconds),
                                 kind: ext != "mp4" ? "photo" : name.hasPrefix("event-") ? "event" : "video"))
        }
        return entries.sorted { ($0.modified, $0.name) < ($1.modified, $1.name) }
    }

    /// Checks a name from a request; returns its path inside the folder.
    @discardableResult
    public func validate(_ name: String) throws(APIError) -> String {
        let ok = !name.isEmpty && name.utf8.count <= 255 && !name.hasPrefix(".")
            && !name.unicodeScalars.contains { $0 == "/" || $0 == "\\" || $0.value < 0x20 || $0.value == 0x7F }
            && RecordingsFolder.contentTypes[RecordingsFolder.fileExtension(name)] != nil
        guard ok else {
            throw .badRequest("\"\(name)\" is not a recording name: use a name from GET /recordings "
                              + "(a file name ending in .mp4, .jpg or .jpeg, without / and not starting with .)")
        }
        return path + "/" + name
    }

    /// The response for `GET /recordings/NAME`: the file streamed, or 400/404.
    public func download(_ name: String) throws(APIError) -> HTTPResponse {
        let file = try validate(name)
        var info = stat()
        guard lstat(file, &info) == 0, info.st_mode & S_IFMT == S_IFREG else {
            throw .notFound("no recording named \"\(name)\"; GET /recordings lists them")
        }
        guard RecordingsFolder.fileExtension(name) != "mp4" || MP4File.hasMovieHeader(path: file) else {
            throw .notFound("\"\(name)\" is not a playable recording: it has no movie header yet (it was cut, or "
                            + "started, less than a fragment ago); GET /recordings lists the playable ones")
        }
        return .file(file, contentType: RecordingsFolder.contentTypes[RecordingsFolder.fileExtension(name)]!,
                     headers: ["Content-Disposition": "attachment; filename=\"\(name.replacing("\"", with: "_"))\""])
    }

    /// A path for a new file that does not exist yet, named after `date` (UTC,
    /// sortable, no colons): `2026-11-29T21-04-05Z.mp4`, then `...Z-2.mp4`; `prefix`
    /// goes before the date (`clip-2026-...`). A name a file in `damaged/` has is taken too:
    /// a restart within the second of a crash must not give its new file the name the
    /// repair report (and the user) know for the damaged one. So are `avoiding`: names given
    /// before whose files are gone (a recording stopped before its first frame leaves none),
    /// which must not name a second file in the same events.
    public func newFile(extension ext: String, date: Date = Date(), prefix: String = "", avoiding: Set<String> = []) -> String {
        let t = CivilTime(date, local: false)
        let stem = prefix + String(cFormat: "%04d-%02d-%02dT%02d-%02d-%02dZ", t.year, t.month, t.day, t.hour, t.minute, t.second)
        let damaged = "\(path)/\(FolderRepair.damagedFolder)/"
        func taken(_ name: String) -> Bool {
            avoiding.contains(name) || FileManager.default.fileExists(atPath: "\(path)/\(name)")
                || FileManager.default.fileExists(atPath: damaged + name)
        }
        var name = "\(stem).\(ext)"
        var n = 2
        while taken(name) {
            name = "\(stem)-\(n).\(ext)"
            n += 1
        }
        return "\(path)/\(name)"
    }

    /// Bytes available to Plumb on the folder's file system (statvfs), nil if unknown.
    public func freeBytes() -> Int64? {
        var s = statvfs()
        guard statvfs(path, &s) == 0 else { return nil }
        return Int64(s.f_bavail) * Int64(s.f_frsize)
    }

    static func fileExtension(_ name: String) -> String {
        guard let dot = name.lastIndex(of: ".") else { return "" }
        return name[name.index(after: dot)...].lowercased()
    }
}
