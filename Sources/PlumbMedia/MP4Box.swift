/// One ISO base media (MP4/QuickTime) box: where it is and how big.
public struct MP4Box: Sendable, Equatable, CustomStringConvertible {
    /// The four-character type ("moov", "trak", "tkhd" ...).
    public let type: String
    /// Where the box's header starts, from the start of the scanned bytes (or file).
    public let offset: Int
    /// 8, or 16 with a 64-bit size.
    public let headerSize: Int
    /// The whole box, header included.
    public let size: Int

    public var payloadOffset: Int { offset + headerSize }
    public var end: Int { offset + size }

    public var description: String { "\(type)@\(offset)+\(size)" }

    /// The types that appear at the top level of the files mp4mux and others write.
    static let topLevelTypes: Set<String> = [
        "ftyp", "styp", "moov", "mdat", "moof", "mfra", "free", "skip", "wide", "uuid", "sidx", "ssix",
        "prft", "emsg", "meta", "pdin", "jP  ",
    ]

    /// Parses the header at `offset`. `limit` is where the enclosing range ends; a size of 0
    /// means "to the limit". Returns nil when fewer than 8 bytes are left. With
    /// `allowPastLimit` a box may run past `limit` (a header buffer holding only the start of
    /// an `mdat`); otherwise that is malformed.
    static func header(in view: ByteView, at offset: Int, limit: Int, allowPastLimit: Bool = false)
        throws(MediaError) -> MP4Box?
    {
        guard limit - offset >= 8 else { return nil }
        let size32 = try view.uint32(offset)
        let type = try view.fourCC(offset + 4)
        var headerSize = 8
        var size: Int
        switch size32 {
        case 0:
            size = limit - offset
        case 1:
            guard limit - offset >= 16 || allowPastLimit else {
                throw .malformed("box \"\(type)\" at \(offset) has a 64-bit size that is cut off")
            }
            let large = try view.uint64(offset + 8, "the 64-bit size of \"\(type)\"")
            guard large <= UInt64(Int.max) else { throw .malformed("box \"\(type)\" at \(offset) is impossibly large") }
            size = Int(large)
            headerSize = 16
        default:
            size = Int(size32)
        }
        guard size >= headerSize else {
            throw .malformed("box \"\(type)\" at \(offset) claims \(size) bytes, less than its own header")
        }
        if !allowPastLimit && size > limit - offset {
            throw .malformed("box \"\(type)\" at \(offset) claims \(size) bytes but only \(limit - offset) remain")
        }
        return MP4Box(type: type, offset: offset, headerSize: headerSize, size: size)
    }

    /// The boxes directly inside `parent` (or in `range` at the top level).
    static func children(in view: ByteView, from start: Int, to end: Int) throws(MediaError) -> [MP4Box] {
        var result: [MP4Box] = []
        var offset = start
        while let box = try header(in: view, at: offset, limit: end) {
            result.append(box)
            offset = box.end
        }
        guard end - offset < 8 else { return result }
        // Up to 7 trailing bytes: QuickTime allows a 4-byte zero terminator; anything else is damage.
        if offset < end, !(offset + 4 == end && (try? view.uint32(offset)) == 0) {
            throw .malformed("\(end - offset) stray bytes at \(offset), inside a box ending at \(end)")
        }
        return result
    }

    static func children(of parent: MP4Box, in view: ByteView) throws(MediaError) -> [MP4Box] {
        try children(in: view, from: parent.payloadOffset, to: parent.end)
    }
}
