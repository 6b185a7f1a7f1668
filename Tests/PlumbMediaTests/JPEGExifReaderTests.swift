import Foundation
import PlumbMedia
import PlumbTestSupport
import XCTest
import PlumbRotation

final class JPEGExifReaderTests: XCTestCase {
    typealias B = BoxBuilder

    func testAngleAndOrientationMapping() {
        XCTAssertEqual(ExifOrientation(rotation: .degrees0), .normal)
        XCTAssertEqual(ExifOrientation(rotation: .degrees90).rawValue, 6)
        XCTAssertEqual(ExifOrientation(rotation: .degrees180).rawValue, 3)
        XCTAssertEqual(ExifOrientation(rotation: .degrees270).rawValue, 8)
        for angle in RotationAngle.allCases { XCTAssertEqual(ExifOrientation(rotation: angle).rotation, angle) }
        XCTAssertEqual(ExifOrientation.allCases.filter(\.isMirrored).map(\.rawValue), [2, 4, 5, 7])
        XCTAssertEqual(ExifOrientation.rotate90.description, "Rotate 90 CW")
        XCTAssertEqual(ExifOrientation.rotate90.imageOrientationTag, "rotate-90")
    }

    /// Stills from jifmux with each `image-orientation` tag, read by Plumb and by exiftool.
    func testJifmuxStillsAgreeWithExiftool() throws {
        let dir = try temporaryDirectory(self)
        for orientation in ExifOrientation.allCases {
            let path = dir.appendingPathComponent("still-\(orientation.rawValue).jpg").path
            try IndependentReaders.gstLaunch("videotestsrc num-buffers=1 ! video/x-raw,width=64,height=48 ! jpegenc "
                + "! taginject tags=image-orientation=\(orientation.imageOrientationTag) ! jifmux ! filesink location=\(path)")
            XCTAssertEqual(try IndependentReaders.exiftool("Orientation", path), orientation.rawValue, "exiftool")
            XCTAssertEqual(try JPEGExifReader.orientation(ofFileAt: path), orientation, "Plumb")
            let inspected = try MediaInspector.inspect(path: path)
            XCTAssertEqual(inspected.container, .jpeg)
            XCTAssertEqual(inspected.exifOrientation, orientation)
            XCTAssertEqual(inspected.rotation, orientation.rotation)
        }
        // Without a tag: no EXIF Orientation, shown as stored.
        let plain = dir.appendingPathComponent("plain.jpg").path
        try IndependentReaders.gstLaunch("videotestsrc num-buffers=1 ! video/x-raw,width=64,height=48 ! jpegenc "
            + "! jifmux ! filesink location=\(plain)")
        XCTAssertNil(try IndependentReaders.exiftool("Orientation", plain))
        XCTAssertNil(try JPEGExifReader.orientation(ofFileAt: plain))
        XCTAssertEqual(try MediaInspector.inspect(path: plain).rotation, .degrees0)
    }

    /// exiftool rewrites the EXIF of a still in each byte order; Plumb reads both.
    func testBothByteOrdersFromExiftool() throws {
        let dir = try temporaryDirectory(self)
        let base = dir.appendingPathComponent("base.jpg").path
        try IndependentReaders.gstLaunch("videotestsrc num-buffers=1 ! video/x-raw,width=64,height=48 ! jpegenc "
            + "! jifmux ! filesink location=\(base)")
        for (order, value) in [("II", 8), ("MM", 6), ("MM", 3), ("II", 5)] {
            let path = dir.appendingPathComponent("\(order)-\(value).jpg").path
            try FileManager.default.copyItem(atPath: base, toPath: path)
            try runTool("exiftool", ["-q", "-overwrite_original", "-all=", path])
            try runTool("exiftool", ["-q", "-overwrite_original", "-ExifByteOrder=\(order)", "-Orientation#=\(value)", path])
            XCTAssertEqual(try runTool("exiftool", ["-s3", "-ExifByteOrder", path]).trimmingCharacters(in: .whitespacesAndNewlines)
                .prefix(2), order == "II" ? "Li" : "Bi", "exiftool wrote \(order)")
            XCTAssertEqual(try JPEGExifReader.orientation(ofFileAt: path)?.rawValue, value, "\(order) \(value)")
        }
    }

    // MARK: Hand-built EXIF, independent of any writer

    /// A JPEG with an APP0, an APP1 holding the given TIFF body, then a scan.
    private func jpeg(tiff: [UInt8]?, extraSegments: [[UInt8]] = []) -> [UInt8] {
        var bytes: [UInt8] = [0xFF, 0xD8]
        bytes += [0xFF, 0xE0] + B.be16(16) + Array("JFIF\0".utf8) + [1, 1, 0] + B.be16(1) + B.be16(1) + [0, 0]
        for segment in extraSegments { bytes += segment }
        if let tiff {
            let payload = Array("Exif\0\0".utf8) + tiff
            bytes += [0xFF, 0xE1] + B.be16(UInt16(payload.count + 2)) + payload
        }
        bytes += [0xFF, 0xDA] + B.be16(8) + [1, 1, 0, 0, 63, 0] + [0x12, 0x34, 0xFF, 0x00, 0x56] + [0xFF, 0xD9]
        return bytes
    }

    /// A TIFF body with IFD0 holding `entries` (tag, type, count, value bytes).
    private func tiff(littleEndian: Bool, entries: [(UInt16, UInt16, UInt32, [UInt8])]) -> [UInt8] {
        func u16(_ v: UInt16) -> [UInt8] { littleEndian ? B.be16(v).reversed() : B.be16(v) }
        func u32(_ v: UInt32) -> [UInt8] { littleEndian ? B.be32(v).reversed() : B.be32(v) }
        var bytes = Array((littleEndian ? "II" : "MM").utf8) + u16(42) + u32(8) + u16(UInt16(entries.count))
        for (tag, type, count, value) in entries {
            bytes += u16(tag) + u16(type) + u32(count) + value + [UInt8](repeating: 0, count: 4 - value.count)
        }
        return bytes + u32(0)
    }

    private func orientation(_ bytes: [UInt8]) throws -> ExifOrientation? {
        try bytes.withUnsafeBytes { try JPEGExifReader.orientation(in: $0) }
    }

    func testHandBuiltExifInBothByteOrders() throws {
        for little in [true, false] {
            for value in 1...8 {
                let v = UInt16(value)
                let short = little ? [UInt8(v), 0] : [0, UInt8(v)]
                // Orientation after another tag (Make, ASCII, pointing elsewhere): the reader walks the IFD.
                let exif = tiff(littleEndian: little, entries: [(0x010F, 2, 20, [0, 0, 0, 100]), (0x0112, 3, 1, short)])
                XCTAssertEqual(try orientation(jpeg(tiff: exif)), ExifOrientation(rawValue: value), "little \(little)")
            }
        }
        // XMP APP1 before the EXIF one, and fill bytes before a marker.
        let xmp = [0xFF, 0xE1] + B.be16(2 + 29 + 4) + Array("http://ns.adobe.com/xap/1.0/\0".utf8) + [1, 2, 3, 4]
        let exif = tiff(littleEndian: false, entries: [(0x0112, 3, 1, [0, 6])])
        var bytes = jpeg(tiff: exif, extraSegments: [xmp, [0xFF, 0xFF, 0xFF, 0xFE] + B.be16(4) + [0x41, 0x42]])
        XCTAssertEqual(try orientation(bytes), .rotate90)
        bytes = jpeg(tiff: nil)
        XCTAssertNil(try orientation(bytes), "no EXIF")
        XCTAssertNil(try orientation(jpeg(tiff: tiff(littleEndian: true, entries: [(0x010F, 2, 1, [0])]))),
                     "EXIF without Orientation")
    }

    func testMalformedExifIsAnErrorNotACrash() {
        let cases: [(String, [UInt8], String)] = [
            ("not a JPEG", Array("GIF89a".utf8), "not a JPEG"),
            ("bad byte order", jpeg(tiff: Array("XX".utf8) + [0, 42, 0, 0, 0, 8]), "byte order"),
            ("not TIFF", jpeg(tiff: Array("MM".utf8) + [0, 43, 0, 0, 0, 8]), "not TIFF"),
            ("IFD past the end", jpeg(tiff: Array("MM".utf8) + [0, 42, 0, 0, 0x10, 0]), "runs past the end"),
            ("entries past the end", jpeg(tiff: Array("MM".utf8) + [0, 42, 0, 0, 0, 8, 0, 9, 1, 0x12]), "runs past"),
            ("value out of range", jpeg(tiff: tiff(littleEndian: true, entries: [(0x0112, 3, 1, [9, 0])])), "outside 1...8"),
            ("wrong type", jpeg(tiff: tiff(littleEndian: true, entries: [(0x0112, 4, 1, [6, 0, 0, 0])])), "type 4"),
            ("segment past the end", [0xFF, 0xD8, 0xFF, 0xE1, 0x40, 0x00, 0x45], "runs past the end"),
            ("truncated after SOI", [0xFF, 0xD8, 0xFF], "runs past the end"),
            ("garbage instead of a marker", [0xFF, 0xD8, 0x12, 0x34], "expected a JPEG marker"),
        ]
        for (label, bytes, fragment) in cases {
            XCTAssertThrowsError(try orientation(bytes), label) { error in
                XCTAssertTrue("\(error)".contains(fragment), "\(label): \(error)")
            }
        }
    }
}
