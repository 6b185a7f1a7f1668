import FoundationEssentials
import Glibc
import PlumbBase
import PlumbRotation

/// What an MP4/QuickTime file says about its tracks and orientation.
public struct MP4FileInfo: Sendable, Equatable {
    /// The top-level boxes, in file order (a last box cut short is left out).
    public var boxes: [MP4Box]
    /// The tracks of the first movie header.
    public var tracks: [MP4Track]
    /// Movie fragments follow the header (`mvex` in `moov`, or `moof` boxes).
    public var isFragmented: Bool

    public var videoTrack: MP4Track? { tracks.first(where: \.isVideo) }
    /// The video track's clockwise rotation; nil when its matrix is not a plain quarter turn.
    public var rotation: RotationAngle? { videoTrack?.matrix.rotation }
}

/// File-level MP4 reading and patching, over a memory-mapped file.
public enum MP4File {
    /// Reads the structure and the tracks of the first `moov`.
    public static func inspect(path: String) throws(MediaError) -> MP4FileInfo {
        return try withMappedBytes(of: path) { (view: ByteView) throws(MediaError) -> MP4FileInfo in
            let boxes = try topLevelBoxes(view)
            guard let moov = boxes.first(where: { $0.type == "moov" }) else { throw .noMovieHeader(path: path) }
            let tracks = try MP4Track.tracks(in: view, moov: moov)
            let hasExtends = try MP4Box.children(of: moov, in: view).contains { $0.type == "mvex" }
            let fragmented = hasExtends || boxes.contains { $0.type == "moof" }
            return MP4FileInfo(boxes: boxes, tracks: tracks, isFragmented: fragmented)
        }
    }

    /// The top-level boxes; a last box that runs past the end of the file (a recording cut
    /// short) ends the list instead of failing it.
    static func topLevelBoxes(_ view: ByteView) throws(MediaError) -> [MP4Box] {
        var boxes: [MP4Box] = []
        var offset = 0
        while let box = try MP4Box.header(in: view, at: offset, limit: view.count, allowPastLimit: true) {
            guard box.end <= view.count else { break }
            boxes.append(box)
            offset = box.end
        }
        return boxes
    }

    /// Runs `body` over the file's bytes, memory-mapped (a recording can be large; only the
    /// pages read are loaded).
    static func withMappedBytes<T>(of path: String, _ body: (ByteView) throws(MediaError) -> T) throws(MediaError) -> T {
        let data: Data
        do {
            data = try Data(contentsOf: URL(fileURLWithPath: path), options: .alwaysMapped)
        } catch {
            let reason = FileManager.default.fileExists(atPath: path) ? Path.whyUnreadable(path) : "no such file"
            throw .cannotRead(path: path, reason: reason)
        }
        let result: Result<T, MediaError> = data.withUnsafeBytes { raw in
            do throws(MediaError) { return .success(try body(ByteView(raw))) } catch { return .failure(error) }
        }
        return try result.get()
    }
}

