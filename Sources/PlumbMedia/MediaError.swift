/// A media file or buffer could not be read; the message says what is wrong.
public enum MediaError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The file could not be opened or read.
    case cannotRead(path: String, reason: String)
    /// Neither an MP4/QuickTime file nor a JPEG.
    case unknownFormat(path: String)
    /// The structure is broken: a box or segment runs past its container, a size is impossible ...
    case malformed(String)
    /// An MP4 without a `moov` box: a recording cut before its header was written.
    case noMovieHeader(path: String)
    /// The movie has no video track to orient.
    case noVideoTrack(path: String)

    public var description: String {
        switch self {
        case let .cannotRead(path, reason): return "cannot read \(path): \(reason)"
        case let .unknownFormat(path): return "\(path) is neither an MP4 nor a JPEG file"
        case let .malformed(what): return "malformed media: \(what)"
        case let .noMovieHeader(path):
            return "\(path) has no movie header (moov): the recording was cut before it was written"
        case let .noVideoTrack(path): return "\(path) has no video track"
        }
    }
}
