/// Big-endian bytes for new boxes (a movie header rebuilt from the parts of an old one).
struct MP4BoxWriter {
    private(set) var bytes: [UInt8] = []

    mutating func uint8(_ v: UInt8) { bytes.append(v) }
    mutating func uint16(_ v: UInt16) { bytes += [UInt8(v >> 8), UInt8(truncatingIfNeeded: v)] }
    mutating func uint32(_ v: UInt32) { for shift in stride(from: 24, through: 0, by: -8) { bytes.append(UInt8(truncatingIfNeeded: v >> UInt32(shift))) } }
    mutating func uint64(_ v: UInt64) { for shift in stride(from: 56, through: 0, by: -8) { bytes.append(UInt8(truncatingIfNeeded: v >> UInt64(shift))) } }
    mutating func int32(_ v: Int32) { uint32(UInt32(bitPattern: v)) }
    mutating func int64(_ v: Int64) { uint64(UInt64(bitPattern: v)) }
    mutating func fourCC(_ type: String) { bytes += Array(type.utf8.prefix(4)) }
    mutating func append(_ other: some Sequence<UInt8>) { bytes += other }

    /// A whole box copied from the file as it is.
    mutating func copy(_ box: MP4Box, from view: ByteView) {
        bytes += view.bytes[box.offset..<box.end]
    }

    /// A box whose payload `body` writes; the 32-bit size is filled in after it.
    mutating func box<E: Error>(_ type: String, _ body: (inout MP4BoxWriter) throws(E) -> Void) throws(E) {
        let start = bytes.count
        uint32(0)
        fourCC(type)
        try body(&self)
        let size = UInt32(clamping: bytes.count - start)
        for i in 0..<4 { bytes[start + i] = UInt8(truncatingIfNeeded: size >> UInt32(24 - 8 * i)) }
    }

    /// A FullBox: version and 24-bit flags before the payload.
    mutating func fullBox(_ type: String, version: UInt8 = 0, flags: UInt32 = 0, _ body: (inout MP4BoxWriter) -> Void) {
        box(type) { w in
            w.uint32(UInt32(version) << 24 | flags & 0xFF_FFFF)
            body(&w)
        }
    }

    /// Overwrites a big-endian value of `width` bytes at `offset` (a duration in a copied header).
    mutating func patch(_ value: UInt64, width: Int, at offset: Int) {
        for i in 0..<width { bytes[offset + i] = UInt8(truncatingIfNeeded: value >> UInt64(8 * (width - 1 - i))) }
    }
}
