/// The TIFF structure inside an APP1 Exif segment, read into entries that can be changed and
/// written back: IFD0 with its Exif, GPS and Interoperability sub-directories, and IFD1
/// with its JPEG thumbnail. Values stay raw bytes in the file's byte order; writing lays
/// every directory out afresh and recomputes every offset.
///
/// Only offsets the TIFF/EXIF structure defines are followed and moved (the sub-directory
/// pointers and the thumbnail's). A MakerNote, whose inner offsets are the camera maker's
/// own, or strip-based image data would be broken by moving them: such data is refused.
package struct ExifTIFF: Equatable {
    struct Entry: Equatable {
        var tag: UInt16
        /// TIFF field type: 1 BYTE, 2 ASCII, 3 SHORT, 4 LONG, 5 RATIONAL, 7 UNDEFINED ...
        var type: UInt16
        var count: UInt32
        /// count × the type's size bytes, in the structure's byte order.
        var value: [UInt8]
    }

    struct Directory: Equatable {
        var entries: [Entry] = []
        /// Sub-directories by the tag of the entry pointing at them.
        var children: [UInt16: Directory] = [:]

        func entry(_ tag: UInt16) -> Entry? { entries.first { $0.tag == tag } }

        /// Adds the entry, or replaces the one with its tag.
        mutating func set(_ entry: Entry) {
            if let i = entries.firstIndex(where: { $0.tag == entry.tag }) {
                entries[i] = entry
            } else {
                entries.append(entry)
            }
        }
    }

    /// The tags this writer knows by name.
    enum Tag {
        static let xResolution: UInt16 = 0x011A
        static let yResolution: UInt16 = 0x011B
        static let resolutionUnit: UInt16 = 0x0128
        static let yCbCrPositioning: UInt16 = 0x0213
        static let dateTime: UInt16 = 0x0132
        static let exifVersion: UInt16 = 0x9000
        static let dateTimeOriginal: UInt16 = 0x9003
        static let dateTimeDigitized: UInt16 = 0x9004
        static let offsetTime: UInt16 = 0x9010
        static let offsetTimeOriginal: UInt16 = 0x9011
        static let offsetTimeDigitized: UInt16 = 0x9012
        static let subSecTime: UInt16 = 0x9290
        static let subSecTimeOriginal: UInt16 = 0x9291
        static let subSecTimeDigitized: UInt16 = 0x9292
        static let componentsConfiguration: UInt16 = 0x9101
        static let flashpixVersion: UInt16 = 0xA000
        static let colorSpace: UInt16 = 0xA001
        static let pixelXDimension: UInt16 = 0xA002
        static let pixelYDimension: UInt16 = 0xA003
        static let exifIFD: UInt16 = 0x8769
        static let gpsIFD: UInt16 = 0x8825
        static let interoperabilityIFD: UInt16 = 0xA005
        static let thumbnailOffset: UInt16 = 0x0201
        static let thumbnailLength: UInt16 = 0x0202
        static let stripOffsets: UInt16 = 0x0111
        static let makerNote: UInt16 = 0x927C
    }

    /// "II" (true) or "MM".
    var littleEndian: Bool
    var ifd0: Directory
    var ifd1: Directory?
    /// The JPEG thumbnail IFD1 points at.
    var thumbnail: [UInt8]?

    init(littleEndian: Bool, ifd0: Directory = Directory(), ifd1: Directory? = nil, thumbnail: [UInt8]? = nil) {
        self.littleEndian = littleEndian
        self.ifd0 = ifd0
        self.ifd1 = ifd1
        self.thumbnail = thumbnail
    }

    /// The size of one value of a TIFF field type; nil for a type TIFF does not define.
    static func size(ofType type: UInt16) -> Int? {
        switch type {
        case 1, 2, 6, 7: return 1
        case 3, 8: return 2
        case 4, 9, 11, 13: return 4
        case 5, 10, 12: return 8
        default: return nil
        }
    }

    // MARK: Reading

    /// The TIFF header: a view in the structure's byte order, and where IFD0 is.
    static func header(of bytes: UnsafeRawBufferPointer) throws(MediaError) -> (view: ByteView, ifd0: Int) {
        var view = ByteView(bytes)
        if view.matches(Array("II".utf8), at: 0) {
            view.littleEndian = true
        } else if !view.matches(Array("MM".utf8), at: 0) {
            throw .malformed("EXIF data has no byte order mark (II or MM)")
        }
        guard try view.uint16(2, "the TIFF magic number") == 42 else { throw .malformed("EXIF data is not TIFF") }
        return (view, Int(try view.uint32(4, "the IFD0 offset")))
    }

    init(parsing bytes: UnsafeRawBufferPointer) throws(MediaError) {
        let (view, start) = try Self.header(of: bytes)
        littleEndian = view.littleEndian
        var visited: Set<Int> = []
        let (ifd0, next) = try Self.directory(at: start, in: view, name: "IFD0",
                                              subdirectories: [Tag.exifIFD, Tag.gpsIFD], visited: &visited)
        self.ifd0 = ifd0
        guard next != 0 else { return }
        let (ifd1, _) = try Self.directory(at: next, in: view, name: "IFD1", subdirectories: [], visited: &visited)
        self.ifd1 = ifd1
        if let offset = ifd1.entry(Tag.thumbnailOffset), let length = ifd1.entry(Tag.thumbnailLength) {
            let start = Int(try Self.number(offset, view)), count = Int(try Self.number(length, view))
            try view.check(start, count, "the EXIF thumbnail")
            thumbnail = Array(bytes[start..<(start + count)])
        }
    }

    /// An unsigned SHORT or LONG entry's single value.
    private static func number(_ entry: Entry, _ view: ByteView) throws(MediaError) -> UInt32 {
        func read(_ size: Int) -> UInt32 {
            (0..<size).reduce(0) { v, i in v << 8 | UInt32(entry.value[view.littleEndian ? size - 1 - i : i]) }
        }
        switch (entry.type, entry.count) {
        case (3, 1): return read(2)
        case (4, 1): return read(4)
        default:
            throw .malformed("EXIF tag 0x\(String(entry.tag, radix: 16)) has type \(entry.type) and count \(entry.count), "
                + "not one SHORT or LONG")
        }
    }

    /// The directory at `offset` and the offset of the next one (0 for none).
    private static func directory(at offset: Int, in view: ByteView, name: String, subdirectories: Set<UInt16>,
                                  visited: inout Set<Int>) throws(MediaError) -> (Directory, Int) {
        guard visited.insert(offset).inserted else { throw .malformed("EXIF \(name) at \(offset) is already in use (a loop)") }
        let count = Int(try view.uint16(offset, "the \(name) entry count"))
        try view.check(offset + 2, count * 12 + 4, "\(name)'s \(count) entries")
        var directory = Directory()
        for i in 0..<count {
            let at = offset + 2 + 12 * i
            let tag = try view.uint16(at), type = try view.uint16(at + 2), n = try view.uint32(at + 4)
            guard let size = Self.size(ofType: type) else {
                throw .malformed("EXIF tag 0x\(String(tag, radix: 16)) in \(name) has the unknown type \(type)")
            }
            guard tag != Tag.makerNote, tag != Tag.stripOffsets else {
                throw .malformed("EXIF tag 0x\(String(tag, radix: 16)) in \(name) holds offsets of its own; "
                    + "it cannot be moved")
            }
            let length = Int(n) * size
            let start = length <= 4 ? at + 8 : Int(try view.uint32(at + 8))
            try view.check(start, length, "the value of EXIF tag 0x\(String(tag, radix: 16)) in \(name)")
            let entry = Entry(tag: tag, type: type, count: n, value: Array(view.bytes[start..<(start + length)]))
            directory.entries.append(entry)
            if subdirectories.contains(tag) {
                let childName = tag == Tag.gpsIFD ? "the GPS IFD" : "the Exif IFD"
                let (child, _) = try Self.directory(at: Int(try number(entry, view)), in: view, name: childName,
                                                    subdirectories: tag == Tag.exifIFD ? [Tag.interoperabilityIFD] : [],
                                                    visited: &visited)
                directory.children[tag] = child
            } else if tag == Tag.interoperabilityIFD {
                let (child, _) = try Self.directory(at: Int(try number(entry, view)), in: view,
                                                    name: "the Interoperability IFD", subdirectories: [], visited: &visited)
                directory.children[tag] = child
            }
        }
        return (directory, Int(try view.uint32(offset + 2 + 12 * count, "\(name)'s next-IFD offset")))
    }

    // MARK: Writing

    /// The structure as bytes: header, IFD0 and its values, its sub-directories, then IFD1
    /// and the thumbnail; entries in tag order, every value on an even offset.
    func bytes() -> [UInt8] {
        var out = TIFFWriter(littleEndian: littleEndian)
        out.append(Array((littleEndian ? "II" : "MM").utf8))
        out.append16(42)
        out.append32(8)
        let nextOfIFD0 = out.write(ifd0)
        if let ifd1 {
            out.align()
            out.patch32(at: nextOfIFD0, UInt32(out.count))
            _ = out.write(ifd1, thumbnail: thumbnail)
        }
        return out.bytes
    }
}

/// Appends TIFF directories and values in one byte order, patching offsets as they become known.
private struct TIFFWriter {
    let littleEndian: Bool
    var bytes: [UInt8] = []

    init(littleEndian: Bool) { self.littleEndian = littleEndian }

    var count: Int { bytes.count }

    mutating func append(_ more: [UInt8]) { bytes += more }

    mutating func append16(_ v: UInt16) {
        bytes += littleEndian ? [UInt8(v & 0xFF), UInt8(v >> 8)] : [UInt8(v >> 8), UInt8(v & 0xFF)]
    }

    mutating func append32(_ v: UInt32) {
        let be = [UInt8(v >> 24), UInt8(v >> 16 & 0xFF), UInt8(v >> 8 & 0xFF), UInt8(v & 0xFF)]
        bytes += littleEndian ? be.reversed() : be
    }

    mutating func patch32(at offset: Int, _ v: UInt32) {
        var other = TIFFWriter(littleEndian: littleEndian)
        other.append32(v)
        bytes.replaceSubrange(offset..<(offset + 4), with: other.bytes)
    }

    /// TIFF wants every directory and value on a word (even) boundary.
    mutating func align() {
        if bytes.count % 2 == 1 { bytes.append(0) }
    }

    /// Writes `directory` here, then its out-of-line values, its sub-directories and, for
    /// IFD1, the thumbnail. Returns where its next-IFD offset is (written as 0).
    mutating func write(_ directory: ExifTIFF.Directory, thumbnail: [UInt8]? = nil) -> Int {
        align()
        let entries = directory.entries.sorted { $0.tag < $1.tag }
        let start = count
        append16(UInt16(entries.count))
        for entry in entries {
            append16(entry.tag)
            append16(entry.type)
            append32(entry.count)
            append(entry.value.count <= 4 ? entry.value + [UInt8](repeating: 0, count: 4 - entry.value.count)
                   : [0, 0, 0, 0])
        }
        let next = count
        append32(0)
        for (i, entry) in entries.enumerated() {
            let field = start + 2 + 12 * i + 8
            if let child = directory.children[entry.tag] {
                align()
                let at = count
                _ = write(child)
                patch32(at: field, UInt32(at))
            } else if entry.tag == ExifTIFF.Tag.thumbnailOffset, let thumbnail {
                align()
                patch32(at: field, UInt32(count))
                append(thumbnail)
            } else if entry.value.count > 4 {
                align()
                patch32(at: field, UInt32(count))
                append(entry.value)
            }
        }
        return next
    }
}
