import FoundationEssentials
import Glibc
import PlumbRotation

extension MP4MatrixWriter {
    /// Rewrites the video tracks' matrices of every top-level `moov` in the file, in place.
    /// Returns how many track headers were rewritten.
    @discardableResult
    public static func rewrite(fileAt path: String, rotation: RotationAngle) throws(MediaError) -> Int {
        let offsets = try MP4File.withMappedBytes(of: path) { (view: ByteView) throws(MediaError) -> [Int] in
            var offsets: [Int] = []
            for moov in try MP4File.topLevelBoxes(view) where moov.type == "moov" {
                offsets += try MP4Track.tracks(in: view, moov: moov).filter(\.isVideo).map(\.matrixOffset)
            }
            return offsets
        }
        guard !offsets.isEmpty else { throw .noVideoTrack(path: path) }
        var matrix = [UInt8](repeating: 0, count: 36)
        matrix.withUnsafeMutableBytes { bytes in
            for (i, v) in TrackMatrix(rotation: rotation).values.enumerated() { bytes.storeBigEndian(v, at: 4 * i) }
        }
        let file = open(path, O_WRONLY | O_CLOEXEC)
        guard file >= 0 else { throw .cannotRead(path: path, reason: String(cString: strerror(errno))) }
        defer { close(file) }
        for offset in offsets {
            let written = matrix.withUnsafeBytes { pwrite(file, $0.baseAddress, $0.count, off_t(offset)) }
            guard written == matrix.count else {
                throw .cannotRead(path: path, reason: written < 0 ? String(cString: strerror(errno)) : "a short write")
            }
        }
        guard fsync(file) == 0 else { throw .cannotRead(path: path, reason: String(cString: strerror(errno))) }
        return offsets.count
    }
}
