import PlumbRotation
/// The bytes: rewriting the track matrix of video tracks in a movie header, in place.
///
/// GStreamer 1.22's `mp4mux` ignores the `image-orientation` tag, so Plumb
/// writes the matrix itself: into the header buffers the muxer pushes (a buffer
/// holding a complete `moov`: the first one of a fragmented file, the final one
/// of a plain file, each rewrite of a robust or finalising muxer), or into a
/// finished file. Only the 36 matrix bytes change; sizes and offsets stay.
extension MP4MatrixWriter {
    /// Whether `bytes`, read as a sequence of top-level boxes from their start, hold a
    /// complete `moov`. Cheap: it reads box headers only, and answers false at once for
    /// a buffer that does not start with a known top-level box (media data).
    public static func containsMovieHeader(_ bytes: UnsafeRawBufferPointer) -> Bool {
        (try? movieHeaders(in: ByteView(bytes)))?.isEmpty == false
    }

    /// Rewrites the matrix of every video track in every complete `moov` among the
    /// top-level boxes at the start of `bytes`. Returns how many track headers were
    /// rewritten (0 when `bytes` hold no movie header). Throws, changing nothing, when
    /// a movie header is malformed.
    @discardableResult
    public static func patch(_ bytes: UnsafeMutableRawBufferPointer, rotation: RotationAngle) throws(MediaError) -> Int {
        let offsets = try matrixOffsets(in: UnsafeRawBufferPointer(bytes))
        let values = TrackMatrix(rotation: rotation).values
        for offset in offsets {
            for (i, v) in values.enumerated() { bytes.storeBigEndian(v, at: offset + 4 * i) }
        }
        return offsets.count
    }

    /// Where the video tracks' matrices are, in every complete `moov` at the top level.
    static func matrixOffsets(in bytes: UnsafeRawBufferPointer) throws(MediaError) -> [Int] {
        let view = ByteView(bytes)
        var offsets: [Int] = []
        for moov in try movieHeaders(in: view) {
            offsets += try MP4Track.tracks(in: view, moov: moov).filter(\.isVideo).map(\.matrixOffset)
        }
        return offsets
    }

    /// The complete `moov` boxes among the top-level boxes that start the bytes. A box
    /// running past the end (the start of an `mdat`) ends the scan; so does anything
    /// that is not a known top-level box.
    static func movieHeaders(in view: ByteView) throws(MediaError) -> [MP4Box] {
        var result: [MP4Box] = []
        var offset = 0
        while let box = try MP4Box.header(in: view, at: offset, limit: view.count, allowPastLimit: true) {
            guard MP4Box.topLevelTypes.contains(box.type), box.end <= view.count else { break }
            if box.type == "moov" { result.append(box) }
            offset = box.end
        }
        return result
    }
}
