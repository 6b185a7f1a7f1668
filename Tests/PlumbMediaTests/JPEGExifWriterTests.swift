import Foundation
@testable import PlumbMedia
import PlumbTestSupport
import XCTest

/// The EXIF writer, checked with exiftool: times with their UTC offset in any zone, every
/// other tag kept (both byte orders, GPS, Interoperability, a thumbnail), a JPEG without EXIF
/// given some, and structures it cannot move refused.
final class JPEGExifWriterTests: XCTestCase {
    private var dir: URL!

    override func setUpWithError() throws {
        dir = try temporaryDirectory(self)
    }

    /// A JPEG from jifmux with Orientation and Make, as Plumb's stills start out.
    private func jifmuxJPEG(_ name: String) throws -> URL {
        let url = dir.appendingPathComponent(name)
        try IndependentReaders.gstLaunch("videotestsrc num-buffers=1 ! video/x-raw,width=64,height=48 ! jpegenc "
            + "! taginject tags=\"image-orientation=rotate-90,device-manufacturer=Plumb\" ! jifmux ! filesink location=\(url.path)")
        return url
    }

    private func edit(_ url: URL, to name: String, _ change: (inout ExifTIFF) -> Void) throws -> URL {
        let out = dir.appendingPathComponent(name)
        try JPEGExifWriter.editing(try Data(contentsOf: url)) { change(&$0) }.write(to: out)
        return out
    }

    /// exiftool's view of one tag (-s3: the value only), nil when absent.
    private func tag(_ name: String, _ url: URL, numeric: Bool = false) throws -> String? {
        let text = try runTool("exiftool", (numeric ? ["-n"] : []) + ["-s3", "-" + name, url.path])
            .trimmingCharacters(in: .whitespacesAndNewlines)
        return text.isEmpty ? nil : text
    }

    /// Several tags in one exiftool run ("Orientation#" for a number), absent ones left out.
    private func tags(_ names: [String], _ url: URL) throws -> [String: String] {
        let json = try runTool("exiftool", ["-json"] + names.map { "-" + $0 } + [url.path])
        let object = try XCTUnwrap((try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [[String: Any]])?.first)
        return object.filter { $0.key != "SourceFile" }.mapValues { "\($0)" }
    }

    /// Every EXIF tag exiftool reads ("[GROUP] Name" -> value) but where the thumbnail lies,
    /// and the thumbnail's bytes.
    private func everything(_ url: URL) throws -> (tags: [String: String], thumbnail: String) {
        var tags: [String: String] = [:]
        for line in try runTool("exiftool", ["-a", "-G1", "-s", "-n", "-EXIF:all", url.path]).split(separator: "\n") {
            let parts = line.split(separator: ":", maxSplits: 1)
            let key = parts[0].split(separator: " ").joined(separator: " ")
            guard key != "[IFD1] ThumbnailOffset" else { continue }
            tags[key] = parts.count > 1 ? parts[1].trimmingCharacters(in: .whitespaces) : ""
        }
        let thumbnail = try runTool("exiftool", ["-b", "-ThumbnailImage", url.path])
        return (tags, thumbnail)
    }

    /// "2026:07:01 14:30:05.250+05:30" (exiftool's SubSecDateTimeOriginal) as an instant.
    private func instant(_ text: String) throws -> Date {
        let f = DateFormatter()
        f.locale = Locale(identifier: "en_US_POSIX")
        f.dateFormat = "yyyy:MM:dd HH:mm:ss.SSSXXXXX"
        return try XCTUnwrap(f.date(from: text), text)
    }

    private func tiff(_ bytes: [UInt8]) throws -> ExifTIFF {
        try bytes.withUnsafeBytes { raw in Result { () throws(MediaError) in try ExifTIFF(parsing: raw) } }.get()
    }

    private func exif(in jpeg: [UInt8]) throws -> ExifTIFF {
        let range = try jpeg.withUnsafeBytes { raw in
            Result { () throws(MediaError) in try JPEGSegments(raw).exif(in: raw)?.tiff }
        }.get()
        return try tiff(Array(jpeg[try XCTUnwrap(range, "no EXIF")]))
    }

    func testTimesCarryTheirOffsetInEveryZone() throws {
        let base = try jifmuxJPEG("base.jpg")
        let summer = Date(timeIntervalSince1970: 1_782_916_205.25)  // 2026-07-01 14:30:05.250 UTC
        let winter = Date(timeIntervalSince1970: 1_799_000_000.5)  // 2027-01-03 ... UTC
        let cases: [(String, Date, String)] = [
            ("Asia/Kolkata", summer, "+05:30"), ("Asia/Kathmandu", summer, "+05:45"), ("UTC", summer, "+00:00"),
            ("America/St_Johns", winter, "-03:30"), ("Europe/Berlin", summer, "+02:00"), ("Europe/Berlin", winter, "+01:00"),
            ("Pacific/Kiritimati", winter, "+14:00"),
        ]
        for (n, (zone, date, offset)) in cases.enumerated() {
            let timeZone = try XCTUnwrap(TimeZone(identifier: zone))
            let url = try edit(base, to: "\(n).jpg") { $0.setTimes(date, timeZone: timeZone) }
            let read = try tags(["OffsetTime", "OffsetTimeOriginal", "OffsetTimeDigitized", "SubSecDateTimeOriginal",
                                 "SubSecCreateDate", "SubSecModifyDate", "ExifVersion", "Orientation#", "Make", "Warning"], url)
            for name in ["OffsetTime", "OffsetTimeOriginal", "OffsetTimeDigitized"] {
                XCTAssertEqual(read[name], offset, "\(zone) \(name)")
            }
            // The local time plus its offset is the instant, to the millisecond.
            for name in ["SubSecDateTimeOriginal", "SubSecCreateDate", "SubSecModifyDate"] {
                let text = try XCTUnwrap(read[name], "\(zone) \(name)")
                XCTAssertEqual(try instant(text).timeIntervalSince1970, date.timeIntervalSince1970, accuracy: 0.0005,
                               "\(zone) \(name) \(text)")
            }
            XCTAssertEqual(read["ExifVersion"], "0231")
            XCTAssertEqual(read["Orientation"], "6", "the other tags stay")
            XCTAssertEqual(read["Make"], "Plumb")
            XCTAssertNil(read["Warning"])
        }
        // Milliseconds round as the facts' taken_at does, carrying into the second.
        let late = Date(timeIntervalSince1970: 1_782_916_205.9996)
        let url = try edit(base, to: "late.jpg") { $0.setTimes(late, timeZone: TimeZone(identifier: "UTC")!) }
        XCTAssertEqual(try tag("SubSecDateTimeOriginal", url), "2026:07:01 14:30:06.000+00:00")
    }

    /// A file exiftool filled with every kind of directory, in each byte order: rewriting it
    /// unchanged keeps every tag and the thumbnail byte for byte; adding the times changes
    /// nothing else.
    func testEveryOtherTagIsKeptInBothByteOrders() throws {
        let thumbnail = dir.appendingPathComponent("thumb.jpg")
        try IndependentReaders.gstLaunch("videotestsrc num-buffers=1 ! video/x-raw,width=16,height=16 ! jpegenc "
            + "! filesink location=\(thumbnail.path)")
        for order in ["II", "MM"] {
            let full = try jifmuxJPEG("full-\(order).jpg")
            try runTool("exiftool", ["-q", "-overwrite_original", "-all=", full.path])
            try runTool("exiftool", ["-q", "-overwrite_original", "-ExifByteOrder=\(order)", "-Artist=Plumb tests",
                                     "-Make=Plumb", "-Orientation#=6",
                                     "-GPSLatitude=48.8584", "-GPSLatitudeRef=N", "-GPSLongitude=2.2945", "-GPSLongitudeRef=E",
                                     "-InteropIndex=R98", "-ExposureTime=1/60", "-UserComment=a comment",
                                     "-ThumbnailImage<=\(thumbnail.path)", full.path])
            let before = try everything(full)
            for key in ["[InteropIFD] InteropIndex", "[GPS] GPSLatitude", "[IFD1] ThumbnailLength", "[ExifIFD] UserComment"] {
                XCTAssertNotNil(before.tags[key], "exiftool wrote \(key): \(before.tags)")
            }
            XCTAssertEqual(Data(before.thumbnail.utf8).count > 100, true, "exiftool wrote the thumbnail")

            let same = try edit(full, to: "same-\(order).jpg") { _ in }
            let after = try everything(same)
            XCTAssertEqual(after.tags, before.tags, order)
            XCTAssertEqual(after.thumbnail, before.thumbnail, order)
            XCTAssertEqual(try tag("ExifByteOrder", same, numeric: true), order)
            XCTAssertEqual(try tag("Warning", same), nil)

            let timed = try edit(full, to: "timed-\(order).jpg") {
                $0.setTimes(Date(timeIntervalSince1970: 1_782_916_205), timeZone: TimeZone(identifier: "Asia/Kolkata")!)
            }
            let changed = try everything(timed)
            XCTAssertEqual(try tag("OffsetTimeOriginal", timed), "+05:30", order)
            XCTAssertEqual(changed.tags["[ExifIFD] ExifVersion"], "0232", "a later version stays")
            let added = ["[IFD0] ModifyDate", "[ExifIFD] DateTimeOriginal", "[ExifIFD] CreateDate", "[ExifIFD] OffsetTime",
                         "[ExifIFD] OffsetTimeOriginal", "[ExifIFD] OffsetTimeDigitized", "[ExifIFD] SubSecTime",
                         "[ExifIFD] SubSecTimeOriginal", "[ExifIFD] SubSecTimeDigitized"]
            XCTAssertEqual(changed.tags.filter { !added.contains($0.key) }, before.tags, order)
            XCTAssertEqual(Set(changed.tags.keys).subtracting(before.tags.keys), Set(added), order)
            XCTAssertEqual(changed.thumbnail, before.thumbnail, order)
            // Plumb reads its own output back the same way.
            let parsed = try exif(in: [UInt8](try Data(contentsOf: timed)))
            XCTAssertEqual(try tiff(parsed.bytes()), parsed)
        }
    }

    /// A JPEG without EXIF (jpegenc alone) gets an APP1 after its JFIF header, and still decodes.
    func testAJPEGWithoutExifGetsIt() throws {
        let plain = dir.appendingPathComponent("plain.jpg")
        try IndependentReaders.gstLaunch("videotestsrc num-buffers=1 ! video/x-raw,width=64,height=48 ! jpegenc "
            + "! filesink location=\(plain.path)")
        XCTAssertNil(try tag("ExifByteOrder", plain))
        let url = try edit(plain, to: "given.jpg") {
            $0.setTimes(Date(timeIntervalSince1970: 1_782_916_205.25), timeZone: TimeZone(identifier: "America/St_Johns")!)
        }
        XCTAssertEqual(try tag("OffsetTimeOriginal", url), "-02:30", "Newfoundland in July")
        XCTAssertEqual(try tag("SubSecDateTimeOriginal", url), "2026:07:01 12:00:05.250-02:30")
        XCTAssertEqual(try tag("JFIFVersion", url), "1.01")
        let bytes = [UInt8](try Data(contentsOf: url))
        XCTAssertEqual(Array(bytes[2...3]), [0xFF, 0xE0], "the JFIF header stays first")
        try IndependentReaders.gstLaunch("filesrc location=\(url.path) ! jpegdec ! fakesink")
    }

    func testStructuresThatCannotBeMovedAreRefused() throws {
        // A hand-built little-endian TIFF: IFD0 at 8 with the given entries.
        func tiff(_ entries: [(UInt16, UInt16, UInt32, UInt32)]) -> [UInt8] {
            var b: [UInt8] = Array("II".utf8) + [42, 0, 8, 0, 0, 0] + [UInt8(entries.count), 0]
            for (tag, type, count, value) in entries {
                b += [UInt8(tag & 0xFF), UInt8(tag >> 8), UInt8(type), 0]
                b += withUnsafeBytes(of: count.littleEndian, Array.init) + withUnsafeBytes(of: value.littleEndian, Array.init)
            }
            return b + [0, 0, 0, 0]
        }
        func jpeg(_ tiff: [UInt8]) -> Data {
            let payload = Array("Exif\0\0".utf8) + tiff
            let n = payload.count + 2
            return Data([0xFF, 0xD8, 0xFF, 0xE1, UInt8(n >> 8), UInt8(n & 0xFF)] + payload + [0xFF, 0xD9])
        }
        let cases: [(String, [UInt8], String)] = [
            ("a loop", tiff([(0x8769, 4, 1, 8)]), "already in use (a loop)"),
            ("an unknown type", tiff([(0x010F, 99, 1, 0)]), "unknown type 99"),
            ("a MakerNote", tiff([(0x927C, 7, 4, 0)]), "holds offsets of its own"),
            ("strips", tiff([(0x0111, 4, 1, 0)]), "holds offsets of its own"),
            ("a value past the end", tiff([(0x010F, 2, 100, 4000)]), "runs past the end"),
            ("a pointer that is not a LONG", tiff([(0x8769, 2, 8, 8)]), "not one SHORT or LONG"),
        ]
        for (label, body, fragment) in cases {
            XCTAssertThrowsError(try JPEGExifWriter.editing(jpeg(body)) { _ in }, label) { error in
                XCTAssertTrue("\(error)".contains(fragment), "\(label): \(error)")
            }
        }
        // More than one segment can hold.
        XCTAssertThrowsError(try JPEGExifWriter.editing(jpeg(tiff([]))) {
            $0.ifd0.set(.ascii(0x010E, String(repeating: "x", count: 70_000)))
        }) { XCTAssertTrue("\($0)".contains("more than one JPEG segment holds"), "\($0)") }
    }
}
