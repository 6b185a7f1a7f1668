/// The metadata segments at the head of a JPEG, up to its first scan: each segment's marker
/// code and where it lies. Shared by the EXIF reader and writer.
package struct JPEGSegments {
    package struct Segment {
        /// The marker code (0xE1 for APP1).
        package var code: UInt8
        /// From the 0xFF of the marker to the end of the segment.
        var range: Range<Int>
        /// The segment's payload, after its length field.
        var payload: Range<Int>
    }

    package var segments: [Segment] = []

    /// Walks `bytes` from the start-of-image marker to the first start-of-scan (or
    /// end-of-image); every length is checked against the bytes.
    package init(_ bytes: UnsafeRawBufferPointer) throws(MediaError) {
        let view = ByteView(bytes)
        guard view.matches([0xFF, 0xD8], at: 0) else { throw .malformed("not a JPEG: no start-of-image marker") }
        var offset = 2
        while offset < view.count {
            guard try view.uint8(offset, "a marker") == 0xFF else {
                throw .malformed("expected a JPEG marker at \(offset)")
            }
            // Fill bytes: any number of 0xFF before the marker code.
            var codeOffset = offset + 1
            while try view.uint8(codeOffset, "a marker") == 0xFF { codeOffset += 1 }
            let code = try view.uint8(codeOffset)
            let segment = codeOffset + 1
            switch code {
            case 0xD9, 0xDA:  // end of image, start of scan: the metadata segments are behind us
                return
            case 0x01, 0xD0...0xD7:  // markers without a length
                offset = segment
                continue
            default:
                break
            }
            let length = Int(try view.uint16(segment, "a segment length"))
            guard length >= 2 else { throw .malformed("JPEG segment at \(offset) has length \(length)") }
            try view.check(segment, length, "JPEG segment 0x\(String(code, radix: 16))")
            segments.append(Segment(code: code, range: offset..<(segment + length), payload: (segment + 2)..<(segment + length)))
            offset = segment + length
        }
    }

    static let exifHeader = Array("Exif\0\0".utf8)

    /// The APP1 segment holding EXIF ("Exif\0\0" then a TIFF structure), if any.
    func exif(in bytes: UnsafeRawBufferPointer) -> (segment: Segment, tiff: Range<Int>)? {
        let view = ByteView(bytes)
        for segment in segments where segment.code == 0xE1 && segment.payload.count >= Self.exifHeader.count
            && view.matches(Self.exifHeader, at: segment.payload.lowerBound) {
            return (segment, (segment.payload.lowerBound + Self.exifHeader.count)..<segment.payload.upperBound)
        }
        return nil
    }

    /// What the frame header (SOF0 to SOF15) says of the image: its size in pixels and how
    /// many colour components it has (3 for YCbCr, 1 for grey).
    package struct Frame: Equatable {
        var width: Int
        var height: Int
        var components: Int
    }

    /// The image's frame header; nil when the JPEG has none before its first scan (or one
    /// that leaves the height to a later DNL marker).
    func frame(in bytes: UnsafeRawBufferPointer) -> Frame? {
        let view = ByteView(bytes)
        // 0xC4 (DHT), 0xC8 (JPG) and 0xCC (DAC) share the range but are not frame headers.
        for segment in segments where (0xC0...0xCF).contains(segment.code) && ![0xC4, 0xC8, 0xCC].contains(segment.code)
            && segment.payload.count >= 6 {
            let at = segment.payload.lowerBound
            // Precision (1 byte), height, width (2 each, big-endian), component count.
            guard let height = try? view.uint16(at + 1), let width = try? view.uint16(at + 3),
                  let components = try? view.uint8(at + 5), height > 0, width > 0 else { return nil }
            return Frame(width: Int(width), height: Int(height), components: Int(components))
        }
        return nil
    }
}
