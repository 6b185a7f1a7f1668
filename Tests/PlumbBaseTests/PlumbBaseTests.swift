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

    func testJSONLineReadsBackAsJSONSerializationWroteIt() throws {
        let value: [String: Any] = [
            "motion": "started", "fraction": 0.1234, "frame": 42, "whole": 2.0, "ok": true,
            "text": "a \"quote\", a \\ slash / and\na line\u{1}", "boxes": [["x": 1, "y": 2.5], ["x": -3, "y": 0]],
        ]
        let line = JSONText.line(value)
        XCTAssertFalse(line.contains("\n"))
        XCTAssertTrue(line.contains("a \\\\ slash / and"), "slashes stay unescaped: \(line)")
        let ours = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(line.utf8)) as? NSDictionary)
        XCTAssertEqual(ours, value as NSDictionary)
        let foundation = try JSONSerialization.data(withJSONObject: value, options: [.sortedKeys, .withoutEscapingSlashes])
        XCTAssertEqual(line, String(decoding: foundation, as: UTF8.self))
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
