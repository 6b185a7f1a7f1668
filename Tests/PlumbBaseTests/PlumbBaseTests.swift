import Foundation
import PlumbBase
import XCTest

/// PlumbBase stands in for what Foundation gave (issue 26): each helper is checked against
/// Foundation itself, which this test process links.
final class PlumbBaseTests: XCTestCase {
    func testCFormatMatchesStringFormat() {
        let cases: [(String, [any CVarArg])] = [
            ("%.1f", [2.45]), ("%.2f", [0.125]), ("%.0f kB", [1535.5]), ("%8.3f  ", [3.14159]), ("0x%08x", [UInt32(48879)]),
            ("%04d:%02d:%02d %02d:%02d:%02d", [2026, 1, 2, 3, 4, 5]), ("%+09.5f%+010.5f", [51.477928, -0.001545]),
            ("%+.3f", [-12.5]), ("%03d", [7]),
        ]
        for (format, arguments) in cases {
            XCTAssertEqual(String(cFormat: format, arguments: arguments), String(format: format, arguments: arguments), format)
        }
        let long = String(repeating: "x", count: 300)
        XCTAssertEqual(String(cFormat: long + "%d", 42), long + "42", "longer than the first buffer")
    }

    func testTrimming() {
        XCTAssertEqual("  a b\t\n".trimmed, "a b")
        XCTAssertEqual(" \n ".trimmed, "")
        XCTAssertEqual("x".trimmed, "x")
        XCTAssertEqual(" \"quoted\" ".trimming("\" "), "quoted")
        XCTAssertEqual("a = b".split(separator: "=").map(\.trimmed), ["a", "b"])
    }

    func testPathPartsMatchNSString() {
        for path in ["/a/b.mp4", "b.mp4", "/b", "/", "a/b/", "/a/.hidden", "/a/b.tar.gz", "plain", "/a/b.", "rel/dir/file.jpg"] {
            let ns = path as NSString
            XCTAssertEqual(Path.name(path), ns.lastPathComponent, "name of \(path)")
            XCTAssertEqual(Path.folder(path), ns.deletingLastPathComponent, "folder of \(path)")
            XCTAssertEqual(Path.extension(path), ns.pathExtension, "extension of \(path)")
            XCTAssertEqual(Path.deletingExtension(path), ns.deletingPathExtension, "stem of \(path)")
        }
    }

    func testPathSize() throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("plumb-base-\(UUID().uuidString)")
        try Data(count: 1234).write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        XCTAssertEqual(Path.size(file.path), 1234)
        XCTAssertNil(Path.size(file.path + ".missing"))
    }

    func testCivilTimeInUTCMatchesFoundationsCalendar() {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        for seconds: Int64 in [0, 951_782_400, 1_782_916_205, -1, 4_102_444_799] {
            let c = calendar.dateComponents([.year, .month, .day, .hour, .minute, .second],
                                            from: Date(timeIntervalSince1970: TimeInterval(seconds)))
            let t = CivilTime(seconds, local: false)
            XCTAssertEqual([t.year, t.month, t.day, t.hour, t.minute, t.second, t.offset],
                           [c.year!, c.month!, c.day!, c.hour!, c.minute!, c.second!, 0], "\(seconds)")
        }
    }

    /// The offset C's localtime gives for TZ, against Foundation's named zones.
    func testLocalTimeZoneFollowsTZ() {
        let saved = getenv("TZ").map { String(cString: $0) }
        defer {
            if let saved { setenv("TZ", saved, 1) } else { unsetenv("TZ") }
            tzset()
        }
        let summer = Date(timeIntervalSince1970: 1_782_916_205), winter = Date(timeIntervalSince1970: 1_767_225_600)
        for zone in ["UTC", "Europe/Berlin", "America/St_Johns", "Asia/Kolkata", "Australia/Lord_Howe"] {
            setenv("TZ", zone, 1)
            tzset()
            for date in [summer, winter] {
                XCTAssertEqual(TimeZone.local(at: date).secondsFromGMT(for: date),
                               TimeZone(identifier: zone)!.secondsFromGMT(for: date), "\(zone) at \(date)")
            }
        }
    }
}
