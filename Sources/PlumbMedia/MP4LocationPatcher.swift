import FoundationEssentials
import Glibc
import PlumbBase
import PlumbLocation

/// Puts a location into a movie header in place, as phones write it: a QuickTime
/// `moov/udta/©xyz` box holding an ISO 6709 string ("+48.85840+002.29450+035.000/"),
/// which exiftool reads as GPSCoordinates and ffprobe as the `location` tag.
///
/// The box cannot simply be inserted: a header that grows moves everything after it, and
/// mp4mux seeks back to offsets it computed itself (the fragmented layouts rewrite their
/// first `moov` in place, and a finalised file's sample offsets point past it). So the
/// muxer is made to reserve the room: `MP4LocationWriter` gives it a global comment tag
/// (`placeholder`), which it writes as an `ilst` item in `moov/udta/meta` of exactly the
/// `©xyz` box's size. Here that item is taken out of `meta/ilst` (both shrink by its size),
/// the rest of `udta` moves up, and the `©xyz` box fills the freed end of `udta`: `udta`,
/// `moov` and every offset keep their size and place.
public enum MP4LocationPatcher {
    /// The ISO 6709 text: latitude and longitude in degrees with 5 decimals (about a metre),
    /// the altitude in metres when known, and the closing "/".
    public static func iso6709(_ location: GeoLocation) -> String {
        var text = String(cFormat: "%+09.5f%+010.5f", location.latitude, location.longitude)
        if let altitude = location.altitude, altitude.isFinite { text += String(cFormat: "%+.3f", altitude) }
        return text + "/"
    }

    /// The `©xyz` box: size, type, the string's length, its language ("und"), the string.
    public static func locationBox(_ iso6709: String) -> [UInt8] {
        let text = Array(iso6709.utf8)
        let size = 12 + text.count
        return be32(UInt32(size)) + [0xA9] + Array("xyz".utf8) + be16(UInt16(text.count)) + be16(undetermined) + text
    }

    /// The comment whose `ilst` item (`©cmt` > `data`: 8 + 16 bytes of headers and the text)
    /// is exactly as big as `box`. Recognisable, and never shorter than 8 characters.
    public static func placeholder(for box: [UInt8]) -> String {
        let length = box.count - 24
        let stem = "plumb-location"
        return String((stem + String(repeating: ".", count: max(0, length - stem.count))).prefix(length))
    }

    /// In every complete `moov` among the top-level boxes at the start of `bytes`, swaps the
    /// placeholder's `ilst` item for `box`. Returns how many headers were changed (0 when
    /// `bytes` hold no movie header). Throws, changing nothing, when a header lacks the
    /// placeholder item or is malformed.
    @discardableResult
    public static func patch(_ bytes: UnsafeMutableRawBufferPointer, box: [UInt8], placeholder: String)
        throws(MediaError) -> Int
    {
        let plans = try plan(UnsafeRawBufferPointer(bytes), box: box, placeholder: placeholder)
        for plan in plans {
            // The rest of udta moves up over the item; the box fills udta's end.
            let tail = plan.udtaEnd - plan.item.end
            if tail > 0 {
                memmove(bytes.baseAddress! + plan.item.offset, bytes.baseAddress! + plan.item.end, tail)
            }
            for (i, byte) in box.enumerated() { bytes[plan.udtaEnd - box.count + i] = byte }
            for parent in plan.shrinking { writeSize(parent.size - box.count, of: parent, in: bytes) }
        }
        return plans.count
    }

    private struct Plan {
        var item: MP4Box
        var udtaEnd: Int
        /// `meta` and `ilst`, whose sizes lose the item's.
        var shrinking: [MP4Box]
    }

    private static func plan(_ bytes: UnsafeRawBufferPointer, box: [UInt8], placeholder: String)
        throws(MediaError) -> [Plan]
    {
        let view = ByteView(bytes)
        let expected = Array(placeholder.utf8)
        var plans: [Plan] = []
        for moov in try MP4MatrixWriter.movieHeaders(in: view) {
            guard let udta = try MP4Box.children(of: moov, in: view).first(where: { $0.type == "udta" }),
                  let meta = try MP4Box.children(of: udta, in: view).first(where: { $0.type == "meta" })
            else { throw .malformed("the movie header at \(moov.offset) has no udta/meta: the muxer wrote no tags") }
            // meta is a full box: version and flags before its children.
            let ilstSearch = try MP4Box.children(in: view, from: meta.payloadOffset + 4, to: meta.end)
            guard let ilst = ilstSearch.first(where: { $0.type == "ilst" }) else {
                throw .malformed("udta/meta at \(meta.offset) has no ilst")
            }
            let item = try MP4Box.children(of: ilst, in: view).first { item in
                guard item.fourCCBytes(in: view) == [0xA9] + Array("cmt".utf8), item.size == box.count,
                      let data = try? MP4Box.children(of: item, in: view).first, data.type == "data",
                      data.size == 16 + expected.count else { return false }
                return view.matches(expected, at: data.payloadOffset + 8)
            }
            guard let item else {
                throw .malformed("udta/meta/ilst at \(ilst.offset) lacks the location's placeholder")
            }
            plans.append(Plan(item: item, udtaEnd: udta.end, shrinking: [meta, ilst]))
        }
        return plans
    }

    private static func writeSize(_ size: Int, of box: MP4Box, in bytes: UnsafeMutableRawBufferPointer) {
        if box.headerSize == 16 {
            for i in 0..<8 { bytes[box.offset + 8 + i] = UInt8(truncatingIfNeeded: UInt64(size) >> (56 - 8 * i)) }
        } else {
            for (i, byte) in be32(UInt32(size)).enumerated() { bytes[box.offset + i] = byte }
        }
    }

    /// ISO 639-2/T "und", packed as three 5-bit letters (each minus 0x60).
    static let undetermined: UInt16 = (0x75 - 0x60) << 10 | (0x6E - 0x60) << 5 | (0x64 - 0x60)

    private static func be32(_ v: UInt32) -> [UInt8] {
        [UInt8(v >> 24), UInt8(v >> 16 & 0xFF), UInt8(v >> 8 & 0xFF), UInt8(v & 0xFF)]
    }

    private static func be16(_ v: UInt16) -> [UInt8] { [UInt8(v >> 8), UInt8(v & 0xFF)] }
}

extension MP4Box {
    /// The box's type as its four raw bytes ("©cmt" starts with 0xA9, which `type` escapes).
    func fourCCBytes(in view: ByteView) -> [UInt8] {
        (0..<4).map { view.bytes[offset + 4 + $0] }
    }
}
