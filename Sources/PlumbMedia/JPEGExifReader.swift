import FoundationEssentials
import Glibc

/// Reads the EXIF Orientation of a JPEG: the APP1 "Exif" segment's TIFF
/// structure, IFD0, tag 0x0112, in either byte order ("II" or "MM").
public enum JPEGExifReader {
    static let orientationTag: UInt16 = 0x0112

    /// The Orientation of the JPEG in `bytes`; nil when it has no EXIF or no Orientation tag.
    public static func orientation(in bytes: UnsafeRawBufferPointer) throws(MediaError) -> ExifOrientation? {
        guard let exif = try JPEGSegments(bytes).exif(in: bytes) else { return nil }
        return try orientation(inTIFF: UnsafeRawBufferPointer(rebasing: bytes[exif.tiff]))
    }

    /// The Orientation in a TIFF structure (the body of an APP1 Exif segment).
    static func orientation(inTIFF bytes: UnsafeRawBufferPointer) throws(MediaError) -> ExifOrientation? {
        let (view, ifd) = try ExifTIFF.header(of: bytes)
        let entries = Int(try view.uint16(ifd, "the IFD0 entry count"))
        try view.check(ifd + 2, entries * 12, "IFD0's \(entries) entries")
        for i in 0..<entries {
            let entry = ifd + 2 + 12 * i
            guard try view.uint16(entry) == orientationTag else { continue }
            let type = try view.uint16(entry + 2)
            let count = try view.uint32(entry + 4)
            // SHORT (3) with one value, stored in the first two bytes of the value field.
            guard type == 3, count >= 1 else {
                throw .malformed("EXIF Orientation has type \(type) and count \(count), not one SHORT")
            }
            let value = Int(try view.uint16(entry + 8))
            guard let orientation = ExifOrientation(rawValue: value) else {
                throw .malformed("EXIF Orientation is \(value), outside 1...8")
            }
            return orientation
        }
        return nil
    }

    /// The Orientation of the JPEG file at `path`.
    public static func orientation(ofFileAt path: String) throws(MediaError) -> ExifOrientation? {
        try MP4File.withMappedBytes(of: path) { (view: ByteView) throws(MediaError) -> ExifOrientation? in
            try orientation(in: view.bytes)
        }
    }
}
