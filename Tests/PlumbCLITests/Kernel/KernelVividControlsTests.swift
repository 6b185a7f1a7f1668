import Foundation
import PlumbTestSupport
import XCTest

/// Camera controls on a real driver (`Tests/Kernel/scenarios/30-vivid-controls.sh`):
/// `plumb controls` against `v4l2-ctl --list-ctrls-menus`, every type set by `--control`
/// and read back by v4l2-ctl, brightness in the pixels (ffprobe's signalstats), refusals,
/// a control given to `record` in force while it records and listed in its facts, gain's
/// volatile and inactive semantics under auto gain, a still's exposure facts and EXIF
/// (exiftool), and flips mirroring the picture.
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

    private func json(_ name: String) throws -> [String: Any] {
        let text = try read(name)
        return try XCTUnwrap(JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any], "\(name): \(text)")
    }

    private func control(_ name: String, in file: String) throws -> [String: Any] {
        let list = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(try read(file).utf8)) as? [[String: Any]])
        return try XCTUnwrap(list.first { $0["name"] as? String == name }, "\(name) in \(file)")
    }

    /// `gain: 123` as v4l2-ctl prints it.
    private func gainRead(_ file: String) throws -> Int {
        let text = try read(file)
        return try XCTUnwrap(text.firstMatch(of: /gain: (\d+)/).flatMap { Int($0.1) }, text)
    }

    func testGainIsVolatileAndInactiveUnderAutoGainAndSetOnlyWithManual() throws {
        let auto = try control("gain", in: "controls.json")
        XCTAssertEqual(Set(auto["flags"] as? [String] ?? []), ["inactive", "volatile"], "\(auto)")
        XCTAssertEqual(try read("inactive.status"), "2")
        let refused = try read("inactive.err")
        XCTAssertTrue(refused.contains("gain cannot be set: inactive while gain is auto: set gain=manual first"), refused)
        // gain=manual and a value in one batch: the mode goes first, the value is then read back.
        let hbars = try read("hbars.json")
        XCTAssertEqual((try json("hbars.json")["gain"] as? NSNumber)?.intValue, 50, hbars)
        let manual = try control("gain", in: "controls-manual.json")
        XCTAssertEqual(manual["flags"] as? [String], [], "\(manual)")
        XCTAssertEqual((manual["value"] as? NSNumber)?.intValue, 50)
        XCTAssertEqual((try control("gain_automatic", in: "controls-manual.json")["value"] as? NSNumber)?.intValue, 0)
    }

    /// vivid has gain but no exposure, white balance or ISO control: the still's facts carry
    /// the gain as it was when taken (vivid moves it every second under auto gain), and
    /// neither facts nor EXIF anything else (the written tags: ExifExposureTests).
    func testAStillCarriesTheGainReadAsItWasTakenAndNoExposureTagsVividLacks() throws {
        let facts = try json("plain.json")
        let gain = try XCTUnwrap((facts["gain"] as? NSNumber)?.intValue, "\(facts)")
        let before = try gainRead("gain-before.txt"), after = try gainRead("gain-after.txt")
        // Between the two reads, on vivid's wrapping 0-255 seconds counter.
        XCTAssertLessThanOrEqual((gain - before + 256) % 256, (after - before + 256) % 256, "before \(before), photo \(gain), after \(after)")
        for key in ["exposure_time", "exposure_mode", "white_balance", "iso"] { XCTAssertNil(facts[key], key) }
        let path = try KernelVM.shared.output(of: "vivid-controls").appendingPathComponent("plain.jpg").path
        let tags = try runTool("exiftool", ["-s", "-ExposureTime", "-ExposureProgram", "-ExposureMode", "-WhiteBalance", "-ISO", "-Model", path])
        XCTAssertEqual(tags.split(separator: "\n").map { $0.split(separator: ":").first?.trimmingCharacters(in: .whitespaces) }, ["Model"], tags)
        XCTAssertEqual(try runTool("exiftool", ["-validate", "-warning", "-a", "-s3", path]).trimmingCharacters(in: .whitespacesAndNewlines), "OK")
    }

    func testTheRecordingsFactsListTheControlsInForceAtItsStart() throws {
        let record = try read("record.json")
        let controls = try XCTUnwrap(try json("record.json")["controls"] as? [String: Any], record)
        XCTAssertEqual((controls["contrast"] as? NSNumber)?.intValue, 200)
        XCTAssertEqual((controls["brightness"] as? NSNumber)?.intValue, 230)
        XCTAssertEqual((controls["gain_automatic"] as? NSNumber)?.intValue, 1)
        // Volatile under auto gain: in force, the driver's value.
        XCTAssertNotNil(controls["gain"] as? NSNumber, "\(controls)")
        XCTAssertEqual(controls["test_pattern"] as? String, "75-colorbar")
        XCTAssertNil(controls["button"])
    }

    /// The luma of `file` averaged down to `size` (WxH) after `crop` (ffmpeg's area scaler).
    private func profile(_ file: String, crop: String, size: String) throws -> [Double] {
        let input = try KernelVM.shared.output(of: "vivid-controls").appendingPathComponent(file).path
        let dir = try temporaryDirectory(self)
        let raw = dir.appendingPathComponent("profile.gray")
        let r = try PlumbProcess.run(PlumbProcess.tool("ffmpeg"), ["-v", "error", "-y", "-i", input, "-vf",
                                                                   "crop=\(crop),scale=\(size):flags=area,format=gray",
                                                                   "-f", "rawvideo", raw.path])
        XCTAssertEqual(r.code, 0, r.stderr)
        return try Data(contentsOf: raw).map(Double.init)
    }

    private func meanDifference(_ a: [Double], _ b: [Double]) -> Double {
        zip(a, b).map { abs($0 - $1) }.reduce(0, +) / Double(max(1, min(a.count, b.count)))
    }

    /// horizontal_flip reverses the colour bars' columns (below vivid's text at the top);
    /// vertical_flip the horizontal bars' rows (right of the text).
    func testAFlipMirrorsThePicture() throws {
        let columns = "iw:ih*2/5:0:ih*3/5", rows = "iw/4:ih:iw*3/4:0"
        let plain = try profile("plain.jpg", crop: columns, size: "64:1"), hflip = try profile("hflip.jpg", crop: columns, size: "64:1")
        XCTAssertEqual(plain.count, 64)
        XCTAssertLessThan(meanDifference(hflip, plain.reversed()), 8, "plain \(plain)\nhflip \(hflip)")
        XCTAssertGreaterThan(meanDifference(hflip, plain), 30, "plain \(plain)\nhflip \(hflip)")
        let bars = try profile("hbars.jpg", crop: rows, size: "1:36"), vflip = try profile("vflip.jpg", crop: rows, size: "1:36")
        XCTAssertEqual(bars.count, 36)
        XCTAssertLessThan(meanDifference(vflip, bars.reversed()), 8, "bars \(bars)\nvflip \(vflip)")
        XCTAssertGreaterThan(meanDifference(vflip, bars), 30, "bars \(bars)\nvflip \(vflip)")
    }
}
