import PlumbRotation
/// The orientation an MP4 or a JPEG carries, as Plumb's own parsers read it
/// (what `plumb inspect FILE` prints).
public struct MediaOrientation: Sendable, Equatable, CustomStringConvertible {
    public enum Container: String, Sendable {
        case mp4 = "MP4"
        case jpeg = "JPEG"
    }

    public var container: Container
    /// The clockwise rotation a viewer applies; nil when the file's orientation is not a
    /// plain quarter turn (mirrored, skewed).
    public var rotation: RotationAngle?
    /// JPEG: the EXIF Orientation, nil when the file has none (it shows as stored).
    public var exifOrientation: ExifOrientation?
    /// MP4: the video track's matrix.
    public var matrix: TrackMatrix?
    /// MP4: whether it is fragmented.
    public var isFragmented: Bool
    /// MP4: the video track's size before rotation; JPEG: nil.
    public var size: (width: Double, height: Double)?

    public static func == (a: MediaOrientation, b: MediaOrientation) -> Bool {
        a.container == b.container && a.rotation == b.rotation && a.exifOrientation == b.exifOrientation
            && a.matrix == b.matrix && a.isFragmented == b.isFragmented
            && a.size?.width == b.size?.width && a.size?.height == b.size?.height
    }

    public var description: String {
        let angle = rotation.map { "rotation \($0.degrees)" } ?? "not a plain rotation"
        switch container {
        case .jpeg:
            let exif = exifOrientation.map { "EXIF Orientation \($0.rawValue) (\($0))" } ?? "no EXIF Orientation"
            return "JPEG: \(angle), \(exif)"
        case .mp4:
            let kind = isFragmented ? "fragmented MP4" : "MP4"
            let dims = size.map { " \(Int($0.width))x\(Int($0.height))," } ?? ""
            return "\(kind):\(dims) \(angle), track matrix \(matrix?.description ?? "?")"
        }
    }
}

public enum MediaInspector {
    /// Reads the orientation of the MP4 or JPEG at `path`, recognised by its first bytes.
    public static func inspect(path: String) throws(MediaError) -> MediaOrientation {
        let kind = try MP4File.withMappedBytes(of: path) { (view: ByteView) throws(MediaError) -> MediaOrientation.Container? in
            if view.matches([0xFF, 0xD8, 0xFF], at: 0) { return .jpeg }
            if let type = try? view.fourCC(4), MP4Box.topLevelTypes.contains(type) { return .mp4 }
            return nil
        }
        switch kind {
        case .jpeg:
            let exif = try JPEGExifReader.orientation(ofFileAt: path)
            return MediaOrientation(container: .jpeg, rotation: exif.map(\.rotation) ?? .degrees0,
                                    exifOrientation: exif, matrix: nil, isFragmented: false, size: nil)
        case .mp4:
            let info = try MP4File.inspect(path: path)
            guard let video = info.videoTrack else { throw .noVideoTrack(path: path) }
            return MediaOrientation(container: .mp4, rotation: video.matrix.rotation, exifOrientation: nil,
                                    matrix: video.matrix, isFragmented: info.isFragmented,
                                    size: (video.width, video.height))
        case nil:
            throw .unknownFormat(path: path)
        }
    }
}
