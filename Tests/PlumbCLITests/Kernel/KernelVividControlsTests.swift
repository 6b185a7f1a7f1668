import Foundation
import PlumbTestSupport
import XCTest

/// Camera controls on a real driver (`Tests/Kernel/scenarios/30-vivid-controls.sh`):
/// `plumb controls` against `v4l2-ctl --list-ctrls-menus`, every type set by `--control`
/// and read back by v4l2-ctl, brightness in the pixels (ffprobe's signalstats), refusals,
/// and a control given to `record` in force while it records.
final class KernelVividControlsTests: XCTestCase {
    private func read(_ name: String) throws -> String {
        let out = try KernelVM.shared.output(of: "vivid-controls")
        return ((try? String(contentsOf: out.appendingPathComponent(name), encoding: .utf8)) ?? "")
            .trimmingCharacters(in: .whitespacesAndNewlines)
    }

    func testEveryControlV4L2CtlListsIsListedWithItsTypeRangeAndValue() throws {
        let listing = try read("v4l2-ctrls.txt")
        var expected: [String: (type: String, fields: String)] = [:]
        for line in listing.components(separatedBy: "\n") {
            guard let m = line.firstMatch(of: /^\s*(\S+) 0x[0-9a-f]+ \(([\w ]+)\)\s*:(.*)$/) else { continue }
            expected[String(m.1)] = (String(m.2), String(m.3))
        }
        XCTAssertGreaterThan(expected.count, 20, listing)
        let json = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(try read("controls.json").utf8)) as? [[String: Any]])
        let names = json.compactMap { $0["name"] as? String }
        XCTAssertEqual(Set(names), Set(expected.keys))
        for control in json {
            let name = try XCTUnwrap(control["name"] as? String)
            guard let (type, fields) = expected[name] else { continue }
            if ["int", "int64", "bool", "menu", "intmenu", "button", "str", "bitmask"].contains(type) {
                XCTAssertEqual(control["type"] as? String, type, name)
            }
            if ["int", "int64", "menu", "intmenu"].contains(type), let min = fields.firstMatch(of: /min=(-?\d+)/) {
                XCTAssertEqual((control["minimum"] as? NSNumber)?.int64Value, Int64(min.1), name)
            }
            // A volatile one (gain under auto gain) moves between the two reads.
            if ["int", "int64", "bool", "menu", "intmenu"].contains(type), !fields.contains("volatile"),
               let value = fields.firstMatch(of: /value=(-?\d+)/) {
                XCTAssertEqual((control["value"] as? NSNumber)?.int64Value, Int64(value.1), name)
            }
        }
        let text = try read("controls.txt")
        XCTAssertTrue(text.contains("[brightness]"), text)
    }

    func testEveryTypeSetWithControlIsReadBackByV4L2Ctl() throws {
        let log = try read("log")
        XCTAssertEqual(try read("types.status"), "0", log)
        let choices = try read("choices.txt").components(separatedBy: "\n").map { $0.split(separator: " ", omittingEmptySubsequences: false).map(String.init) }
        XCTAssertEqual(Set(choices.map { $0[0] }),
                       ["boolean", "integer_32_bits", "integer_64_bits", "menu", "string", "bitmask", "integer_menu", "button"])
        var readback: [String: String] = [:]
        for line in try read("readback.txt").components(separatedBy: "\n") {
            let parts = line.split(separator: " ", maxSplits: 1).map(String.init)
            if parts.count == 2 { readback[parts[0]] = parts[1] }
        }
        for choice in choices where choice[0] != "button" {
            var got = readback[choice[0]] ?? "(none)"
            // v4l2-ctl quotes strings and follows a menu's index with its entry: `1 (Menu Item 1)`.
            if got.hasPrefix("'"), got.hasSuffix("'"), got.count >= 2 {
                got = String(got.dropFirst().dropLast())
            } else {
                got = String(got.split(separator: " ").first ?? "")
            }
            if got.hasPrefix("0x") { got = String(UInt64(got.dropFirst(2), radix: 16) ?? 0) }
            XCTAssertEqual(got, choice[2], "\(choice[0]) set to \(choice[1])")
        }
    }

    private func meanLuma(_ file: String) throws -> Double {
        let path = try KernelVM.shared.output(of: "vivid-controls").appendingPathComponent(file).path
        let r = try PlumbProcess.run(PlumbProcess.tool("ffprobe"), ["-v", "error", "-f", "lavfi", "-i", "movie=\(path),signalstats",
                                                                   "-show_entries", "frame_tags=lavfi.signalstats.YAVG", "-of", "csv=p=0"])
        XCTAssertEqual(r.code, 0, r.stderr)
        return try XCTUnwrap(Double(r.stdout.trimmingCharacters(in: .whitespacesAndNewlines)), r.stdout)
    }

    func testBrightnessMovesTheMeanLuma() throws {
        let dark = try meanLuma("dark.jpg"), bright = try meanLuma("bright.jpg")
        XCTAssertGreaterThan(bright, dark + 40, "dark \(dark), bright \(bright)")
        XCTAssertEqual(try read("brightness-after.txt"), "brightness: 230")
    }

    func testRefusalsNameWhatIsAccepted() throws {
        let range = try read("range.err"), unknown = try read("unknown.err"), menu = try read("menu.err")
        XCTAssertEqual(try read("range.status"), "2")
        XCTAssertTrue(range.contains("brightness=999 is refused: accepted 0 to 255 in steps of 1"), range)
        XCTAssertEqual(try read("unknown.status"), "2")
        XCTAssertTrue(unknown.contains("unknown control 'no_such_control'; this camera has: "), unknown)
        XCTAssertEqual(try read("menu.status"), "2")
        XCTAssertTrue(menu.contains("menu=no-such-item is refused: accepted one of "), menu)
    }

    func testAControlGivenToRecordIsInForceWhileItRecords() throws {
        let err = try read("record.err"), during = try read("contrast-during.txt")
        XCTAssertEqual(try read("record.status"), "0", err)
        XCTAssertTrue(during.components(separatedBy: "\n").contains("contrast: 200"), during)
    }
}
