import FoundationEssentials
import Glibc
import Plumb

/// `[camera] image-folder`: where `POST /camera?device=image:FILE` may take pictures from.
/// Without it the API would show any picture the daemon can read in `/photo` answers and
/// the preview. Both paths are resolved to real paths (symlinks, `..`) before the file is
/// checked to be inside, so neither a traversal nor a symlink out of the folder passes.
struct ImageFolder: Sendable {
    /// The folder as configured; nil: the API shows no image camera.
    let path: String?

    /// The real path of the picture `given` names (relative: inside the folder).
    /// - Throws: 403 when no folder is set or the file lies outside it, 404 when the folder
    ///   holds no such file. Nothing is said about files outside the folder.
    func resolve(_ given: String) throws(APIError) -> String {
        guard let path else {
            throw .forbidden("POST /camera shows no image: file unless [camera] image-folder names the folder of "
                             + "the pictures it may show; it is not set")
        }
        guard let folder = Self.realPath(path) else {
            throw .forbidden("[camera] image-folder \(path) cannot be read; create it or fix the setting")
        }
        let candidate = given.hasPrefix("/") ? given : path + "/" + given
        guard let real = Self.realPath(candidate) else {
            let missing = errno == ENOENT
            // Only a name the folder would hold is said to be missing; anything else is refused alike.
            let lexical = URL(fileURLWithPath: candidate).standardizedFileURL.path
            if missing, lexical.hasPrefix(folder + "/") || lexical.hasPrefix(path + "/") {
                throw .notFound("image:\(given): no such file in [camera] image-folder \(path)")
            }
            throw Self.outside(given, path)
        }
        guard real.hasPrefix(folder == "/" ? "/" : folder + "/") else { throw Self.outside(given, path) }
        return real
    }

    private static func outside(_ given: String, _ folder: String) -> APIError {
        .forbidden("image:\(given) is not a file in [camera] image-folder \(folder) (symlinks resolved); "
                   + "put the picture there")
    }

    /// realpath(3): nil (errno set) when a part is missing or unreadable.
    private static func realPath(_ path: String) -> String? {
        guard let resolved = realpath(path, nil) else { return nil }
        defer { free(resolved) }
        return String(cString: resolved)
    }
}
