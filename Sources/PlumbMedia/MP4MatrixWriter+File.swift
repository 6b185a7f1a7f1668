import Foundation
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
        do {
            let handle = try FileHandle(forUpdating: URL(fileURLWithPath: path))
            defer { try? handle.close() }
            for offset in offsets {
                try handle.seek(toOffset: UInt64(offset))
                try handle.write(contentsOf: matrix)
            }
            try handle.synchronize()
        } catch {
            throw .cannotRead(path: path, reason: "\(error)")
        }
        return offsets.count
    }
}
