import FoundationEssentials
import Glibc

/// Changes the EXIF of a JPEG in memory: the APP1 Exif segment is read into an `ExifTIFF`,
/// edited, and written back in its place — or, when the JPEG has none, added after its
/// JFIF header. The other segments and the image data are copied untouched.
package enum JPEGExifWriter {
    /// The JPEG with its EXIF edited by `edit` (which gets an empty little-endian structure
    /// when there was none).
    package static func editing(_ jpeg: Data, _ edit: (inout ExifTIFF) throws(MediaError) -> Void) throws(MediaError) -> Data {
        let bytes = [UInt8](jpeg)
        let (exif, place) = try bytes.withUnsafeBytes { raw in
            Result { () throws(MediaError) -> (ExifTIFF, Range<Int>) in
                let segments = try JPEGSegments(raw)
                if let found = segments.exif(in: raw) {
                    return (try ExifTIFF(parsing: UnsafeRawBufferPointer(rebasing: raw[found.tiff])), found.segment.range)
                }
                // None: a new one after the JFIF APP0 segment if the JPEG starts with one, else after SOI.
                let at = segments.segments.first.map { $0.code == 0xE0 ? $0.range.upperBound : 2 } ?? 2
                return (ExifTIFF(littleEndian: true), at..<at)
            }
        }.get()
        var edited = exif
        try edit(&edited)
        let payload = JPEGSegments.exifHeader + edited.bytes()
        guard payload.count + 2 <= Int(UInt16.max) else {
            throw .malformed("the EXIF data would take \(payload.count) bytes, more than one JPEG segment holds (65533)")
        }
        let length = UInt16(payload.count + 2)
        let segment = [0xFF, 0xE1, UInt8(length >> 8), UInt8(length & 0xFF)] + payload
        var out = bytes
        out.replaceSubrange(place, with: segment)
        return Data(out)
    }

    /// The JPEG's frame header: its real size and components.
    package static func frame(of jpeg: Data) throws(MediaError) -> JPEGSegments.Frame {
        let bytes = [UInt8](jpeg)
        let frame = try bytes.withUnsafeBytes { raw in
            Result { () throws(MediaError) -> JPEGSegments.Frame? in try JPEGSegments(raw).frame(in: raw) }
        }.get()
        guard let frame else { throw .malformed("the JPEG has no frame header (SOF) before its image data") }
        return frame
    }
}
