import Dispatch
import FoundationEssentials
import Glibc
import PlumbBase
import Soup
import Plumb

/// `GET /recordings/NAME/thumbnail`: a 320-pixel-wide JPEG of the file's first keyframe
/// (of the still, for a photo), made on the first request and kept in the folder's
/// `.thumbnails/` (made again when the file is newer than it). Made on a thread of its
/// own: decoding never holds the HTTP thread.
public struct RecordingThumbnails: Sendable {
    public let folder: RecordingsFolder

    public init(folder: RecordingsFolder) { self.folder = folder }

    public var cacheFolder: String { folder.path + "/.thumbnails" }

    public func addRoutes(to router: inout Router) {
        router.get("/recordings/{name}/thumbnail") { [self] request in
            let name = request.parameters["name"] ?? ""
            // The same checks as a download: a valid name, a regular file, a playable MP4.
            _ = try folder.download(name)
            let file = try folder.validate(name)
            let cached = cacheFolder + "/" + name + ".jpg"
            if !Self.isFresh(cached, for: file) {
                let data = try await Self.make(file)
                try? FileManager.default.createDirectory(atPath: cacheFolder, withIntermediateDirectories: true)
                // Whole or not at all: a reader never sees half a thumbnail.
                try data.write(to: URL(fileURLWithPath: cached), options: .atomic)
            }
            return .file(cached, contentType: "image/jpeg", headers: ["Cache-Control": "max-age=3600"])
        }
    }

    static func isFresh(_ cached: String, for file: String) -> Bool {
        let manager = FileManager.default
        guard let made = (try? manager.attributesOfItem(atPath: cached))?[.modificationDate] as? Date,
              let changed = (try? manager.attributesOfItem(atPath: file))?[.modificationDate] as? Date else { return false }
        return made >= changed
    }

    static func make(_ file: String) async throws -> Data {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Data, any Error>) in
            startThread(named: "plumb.thumbnail") {
                let result = Result { try Thumbnail.jpeg(of: file) }
                HeapTrim.now()  // what the decoder freed stays resident otherwise
                do {
                    continuation.resume(returning: try result.get())
                } catch {
                    continuation.resume(throwing: APIError.internalError("cannot make a thumbnail: \(error)"))
                }
            }
        }
    }
}
