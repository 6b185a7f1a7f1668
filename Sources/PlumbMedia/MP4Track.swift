/// One track of a movie header, as its `tkhd` and `hdlr` describe it.
public struct MP4Track: Sendable, Equatable {
    public var id: UInt32
    /// The handler type: "vide", "soun", "text" ... ("" when the track has none).
    public var handler: String
    /// 0 (32-bit times) or 1 (64-bit times).
    public var headerVersion: UInt8
    public var matrix: TrackMatrix
    /// The presentation size, before the matrix.
    public var width: Double
    public var height: Double
    /// Where the matrix's 36 bytes start, from the start of the scanned bytes (or file).
    public var matrixOffset: Int

    public var isVideo: Bool { handler == "vide" }

    /// The tracks of the `moov` box `moov` within `view`.
    static func tracks(in view: ByteView, moov: MP4Box) throws(MediaError) -> [MP4Track] {
        var tracks: [MP4Track] = []
        for trak in try MP4Box.children(of: moov, in: view) where trak.type == "trak" {
            let parts = try MP4Box.children(of: trak, in: view)
            guard let tkhd = parts.first(where: { $0.type == "tkhd" }) else {
                throw .malformed("track at \(trak.offset) has no track header (tkhd)")
            }
            var handler = ""
            if let mdia = parts.first(where: { $0.type == "mdia" }),
               let hdlr = try MP4Box.children(of: mdia, in: view).first(where: { $0.type == "hdlr" }) {
                // FullBox header (4), pre_defined (4), handler_type (4).
                try view.check(hdlr.payloadOffset, 12, "the handler box")
                handler = try view.fourCC(hdlr.payloadOffset + 8)
            }
            tracks.append(try track(tkhd, handler: handler, in: view))
        }
        return tracks
    }

    /// Reads one `tkhd`: version 0 has 32-bit times and duration, version 1 64-bit ones.
    static func track(_ tkhd: MP4Box, handler: String, in view: ByteView) throws(MediaError) -> MP4Track {
        let p = tkhd.payloadOffset
        let version = try view.uint8(p, "the tkhd version")
        let timesLength: Int
        switch version {
        case 0: timesLength = 20  // creation, modification, track_ID, reserved, duration: 4 bytes each
        case 1: timesLength = 32  // creation 8, modification 8, track_ID 4, reserved 4, duration 8
        default: throw .malformed("track header at \(tkhd.offset) has unknown version \(version)")
        }
        let idOffset = p + 4 + (version == 1 ? 16 : 8)
        // After the times: reserved 8, layer 2, alternate_group 2, volume 2, reserved 2.
        let matrixOffset = p + 4 + timesLength + 16
        let needed = matrixOffset + 36 + 8 - tkhd.offset
        guard tkhd.size >= needed else {
            throw .malformed("track header at \(tkhd.offset) is \(tkhd.size) bytes, version \(version) needs \(needed)")
        }
        var values: [Int32] = []
        for i in 0..<9 { values.append(try view.int32(matrixOffset + 4 * i, "the track matrix")) }
        let width = Double(try view.uint32(matrixOffset + 36)) / 65536
        let height = Double(try view.uint32(matrixOffset + 40)) / 65536
        return MP4Track(id: try view.uint32(idOffset), handler: handler, headerVersion: version,
                        matrix: TrackMatrix(values: values), width: width, height: height,
                        matrixOffset: matrixOffset)
    }
}
