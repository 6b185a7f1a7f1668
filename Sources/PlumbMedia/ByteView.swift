/// Bounds-checked big- and little-endian reads over borrowed bytes.
///
/// Every read that would leave the bytes throws `MediaError.malformed`, so a
/// damaged file or a foreign buffer is an error, never a crash.
struct ByteView {
    let bytes: UnsafeRawBufferPointer
    /// Little-endian for the multi-byte reads (TIFF "II"); big-endian otherwise.
    var littleEndian = false

    init(_ bytes: UnsafeRawBufferPointer, littleEndian: Bool = false) {
        self.bytes = bytes
        self.littleEndian = littleEndian
    }

    var count: Int { bytes.count }

    func check(_ offset: Int, _ length: Int, _ what: @autoclosure () -> String) throws(MediaError) {
        guard offset >= 0, length >= 0, offset <= bytes.count, length <= bytes.count - offset else {
            throw .malformed("\(what()) at offset \(offset) runs past the end (\(bytes.count) bytes)")
        }
    }

    func uint8(_ offset: Int, _ what: @autoclosure () -> String = "a byte") throws(MediaError) -> UInt8 {
        try check(offset, 1, what())
        return bytes[offset]
    }

    func uint16(_ offset: Int, _ what: @autoclosure () -> String = "a 16-bit value") throws(MediaError) -> UInt16 {
        try check(offset, 2, what())
        let a = UInt16(bytes[offset]), b = UInt16(bytes[offset + 1])
        return littleEndian ? a | b << 8 : a << 8 | b
    }

    func uint32(_ offset: Int, _ what: @autoclosure () -> String = "a 32-bit value") throws(MediaError) -> UInt32 {
        try check(offset, 4, what())
        var value: UInt32 = 0
        for i in 0..<4 {
            let byte = UInt32(bytes[offset + (littleEndian ? 3 - i : i)])
            value = value << 8 | byte
        }
        return value
    }

    func uint64(_ offset: Int, _ what: @autoclosure () -> String = "a 64-bit value") throws(MediaError) -> UInt64 {
        try check(offset, 8, what())
        let high = UInt64(try uint32(offset)), low = UInt64(try uint32(offset + 4))
        return littleEndian ? low << 32 | high : high << 32 | low
    }

    func int32(_ offset: Int, _ what: @autoclosure () -> String = "a 32-bit value") throws(MediaError) -> Int32 {
        Int32(bitPattern: try uint32(offset, what()))
    }

    /// Four bytes as text (a box type, an EXIF header); non-ASCII bytes are escaped.
    func fourCC(_ offset: Int) throws(MediaError) -> String {
        try check(offset, 4, "a four-character code")
        return String(bytes[offset..<offset + 4].map { (0x20...0x7e).contains($0) ? Character(UnicodeScalar($0))
            : "?" })
    }

    /// Whether the bytes at `offset` equal `expected`.
    func matches(_ expected: [UInt8], at offset: Int) -> Bool {
        guard offset >= 0, offset + expected.count <= bytes.count else { return false }
        return expected.indices.allSatisfy { bytes[offset + $0] == expected[$0] }
    }
}

extension UnsafeMutableRawBufferPointer {
    /// Stores a big-endian 32-bit value.
    func storeBigEndian(_ value: Int32, at offset: Int) {
        let v = UInt32(bitPattern: value)
        for i in 0..<4 { self[offset + i] = UInt8(truncatingIfNeeded: v >> (24 - 8 * i)) }
    }
}
