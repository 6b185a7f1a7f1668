import Foundation
import PlumbTestSupport
import XCTest

/// Camera controls on a real driver (`Tests/Kernel/scenarios/30-vivid-controls.sh`):
/// `plumb controls` against `v4l2-ctl --list-ctrls-menus`, every type set by `--control`
/// and read back by v4l2-ctl, brightness in the pixels (ffprobe's signalstats), refusals,
/// a control given to `record` in force while it records and listed in its facts, gain's
/// volatile and inactive semantics under auto gain, a still's exposure facts and EXIF
/// (exiftool), and a flip mirroring the picture.
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
        let err = try read("record.err"), during = try read("record-during.txt")
        XCTAssertEqual(try read("record.status"), "0", err)
        XCTAssertTrue(during.components(separatedBy: "\n").contains("contrast: 128"), during)
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
        // gain=manual and a value in one batch: the mode goes first, the value is then in force.
        let bright = try read("bright.json")
        XCTAssertEqual((try json("bright.json")["gain"] as? NSNumber)?.intValue, 50, bright)
        XCTAssertEqual(try read("gain-manual.txt"), "gain_automatic: 0\ngain: 50")
    }

    /// vivid has gain but no exposure, white balance or ISO control: the still's facts carry
    /// the gain as it was when taken (vivid moves it every second under auto gain), and
    /// neither facts nor EXIF anything else (the written tags: ExifExposureTests).
    func testAStillCarriesTheGainReadAsItWasTakenAndNoExposureTagsVividLacks() throws {
        let facts = try json("types.json")
        let gain = try XCTUnwrap((facts["gain"] as? NSNumber)?.intValue, "\(facts)")
        let before = try gainRead("gain-before.txt"), after = try gainRead("gain-after.txt")
        // Between the two reads, on vivid's wrapping 0-255 seconds counter.
        XCTAssertLessThanOrEqual((gain - before + 256) % 256, (after - before + 256) % 256, "before \(before), photo \(gain), after \(after)")
        for key in ["exposure_time", "exposure_mode", "white_balance", "iso"] { XCTAssertNil(facts[key], key) }
        let path = try KernelVM.shared.output(of: "vivid-controls").appendingPathComponent("dark.jpg").path
        let tags = try runTool("exiftool", ["-s", "-ExposureTime", "-ExposureProgram", "-ExposureMode", "-WhiteBalance", "-ISO", "-Model", path])
        XCTAssertEqual(tags.split(separator: "\n").map { $0.split(separator: ":").first?.trimmingCharacters(in: .whitespaces) }, ["Model"], tags)
        XCTAssertEqual(try runTool("exiftool", ["-validate", "-warning", "-a", "-s3", path]).trimmingCharacters(in: .whitespacesAndNewlines), "OK")
    }

    func testTheRecordingsFactsListTheControlsInForceAtItsStart() throws {
        let record = try read("record.json")
        let controls = try XCTUnwrap(try json("record.json")["controls"] as? [String: Any], record)
        XCTAssertEqual((controls["contrast"] as? NSNumber)?.intValue, 128)
        XCTAssertEqual((controls["horizontal_flip"] as? NSNumber)?.intValue, 1)
        XCTAssertEqual((controls["brightness"] as? NSNumber)?.intValue, 230)
        XCTAssertEqual((controls["gain_automatic"] as? NSNumber)?.intValue, 0)
        XCTAssertEqual((controls["gain"] as? NSNumber)?.intValue, 50)
        XCTAssertEqual(controls["test_pattern"] as? String, "75-colorbar")
        XCTAssertNil(controls["button"])
    }

    /// The luma of the bottom 2/5 of a 640x360 picture (below vivid's text), averaged into 64
    /// columns: the first frame at `seconds` of `file`, its Y plane as decoded (ffmpeg).
    private func columnProfile(_ file: String, at seconds: Double? = nil) throws -> [Double] {
        let input = try KernelVM.shared.output(of: "vivid-controls").appendingPathComponent(file).path
        let raw = try temporaryDirectory(self).appendingPathComponent("frame.yuv")
        let r = try PlumbProcess.run(PlumbProcess.tool("ffmpeg"), ["-v", "error", "-y"] + (seconds.map { ["-ss", "\($0)"] } ?? [])
                                     + ["-i", input, "-frames:v", "1", "-f", "rawvideo", raw.path])
        XCTAssertEqual(r.code, 0, r.stderr)
        let y = [UInt8](try Data(contentsOf: raw))
        let width = 640, height = 360
        XCTAssertGreaterThanOrEqual(y.count, width * height, file)
        guard y.count >= width * height else { return [] }
        return (0..<64).map { bin in
            var sum = 0
            for row in (height * 3 / 5)..<height { for x in (bin * 10)..<(bin * 10 + 10) { sum += Int(y[row * width + x]) } }
            return Double(sum) / Double(10 * (height - height * 3 / 5))
        }
    }

    /// horizontal_flip, given to `record`, mirrors the colour bars: the recording's frames are
    /// the bright photo's (same brightness and contrast) reversed left to right.
    func testAFlipMirrorsThePicture() throws {
        let photo = try columnProfile("bright.jpg"), recorded = try columnProfile("record.mp4", at: 1)
        XCTAssertEqual(photo.count, 64)
        let reversed = zip(recorded, photo.reversed()).map { abs($0 - $1) }.reduce(0, +) / 64
        let asIs = zip(recorded, photo).map { abs($0 - $1) }.reduce(0, +) / 64
        XCTAssertLessThan(reversed, 8, "photo \(photo)\nrecorded \(recorded)")
        XCTAssertGreaterThan(asIs, 30, "photo \(photo)\nrecorded \(recorded)")
    }
}
