import Foundation
import PlumbTestSupport
import XCTest

/// `plumb devices` on vivid, the kernel's virtual V4L2 capture driver, in the kernel tests'
/// VM (`Tests/Kernel/scenarios/10-vivid-devices.sh`), against what `v4l2-ctl
/// --list-formats-ext` read from the same node.
final class KernelVividDevicesTests: XCTestCase {
    /// v4l2-ctl's fourcc to the GStreamer format name plumb prints, for the formats checked.
    static let gstreamerFormat = ["YUYV": "YUY2", "UYVY": "UYVY", "NV12": "NV12", "YU12": "I420", "GREY": "GRAY8",
                                  "RGB3": "RGB", "BGR3": "BGR", "NV21": "NV21", "YV12": "YV12"]

    /// "FORMAT WxH" -> the rates as fractions ("25/2"), from v4l2-ctl's listing.
    static func v4l2Modes(_ listing: String) -> [String: [String]] {
        var modes: [String: [String]] = [:]
        var fourcc: String?, size: String?
        for line in listing.split(separator: "\n").map({ $0.trimmingCharacters(in: .whitespaces) }) {
            if line.hasPrefix("["), let q = line.split(separator: "'", omittingEmptySubsequences: false).dropFirst().first {
                fourcc = String(q)
            } else if line.hasPrefix("Size: Discrete ") {
                size = String(line.dropFirst("Size: Discrete ".count))
            } else if line.hasPrefix("Interval: Discrete "), let fourcc, let size,
                      let format = gstreamerFormat[fourcc],
                      let seconds = Double(line.dropFirst("Interval: Discrete ".count).prefix { $0 != "s" }) {
                // 0.080s -> 25/2; v4l2-ctl prints three decimals, so compare with the fps it prints too.
                let fps = line.split(separator: "(").last.flatMap { Double($0.prefix { $0 != " " }) } ?? 1 / seconds
                modes["\(format) \(size)", default: []].append(fraction(fps))
            }
        }
        return modes
    }

    static func fraction(_ fps: Double) -> String {
        for d in 1...1001 where abs((fps * Double(d)).rounded() - fps * Double(d)) < 0.001 * Double(d) {
            return "\(Int((fps * Double(d)).rounded()))/\(d)"
        }
        return "\(fps)"
    }

    func testEachFormatAndSizeIsOneLineWithTheDriversRates() throws {
        let out = try KernelVM.shared.output(of: "vivid-devices")
        let text = try String(contentsOf: out.appendingPathComponent("devices.txt"), encoding: .utf8)
        let lines = text.split(separator: "\n").map(String.init)
        XCTAssertEqual(lines.first?.hasSuffix("/dev/video0"), true, "the camera's line: \(lines.first ?? "none")")
        let formatLines = lines.dropFirst().filter { $0.hasPrefix("  video/x-raw ") }
        var seen: [String: String] = [:]
        var duplicates: [String] = []
        for line in formatLines {
            // "  video/x-raw YUY2 320x180 @ 1/1, 2/1"
            let words = line.split(separator: " ")
            let key = "\(words[1]) \(words[2])"
            if seen[key] != nil { duplicates.append(line) }
            seen[key] = line.components(separatedBy: " @ ").last
        }
        XCTAssertEqual(duplicates, [], "format and size printed more than once")
        let expected = Self.v4l2Modes(try String(contentsOf: out.appendingPathComponent("v4l2-formats.txt"), encoding: .utf8))
        XCTAssertGreaterThan(expected.count, 10, "v4l2-ctl's listing of vivid")
        for (mode, rates) in expected.sorted(by: { $0.key < $1.key }) {
            XCTAssertEqual(seen[mode], rates.joined(separator: ", "), "\(mode): plumb devices vs v4l2-ctl")
        }
        let listed = Set(seen.keys.filter { Self.gstreamerFormat.values.contains(String($0.split(separator: " ")[0])) })
        XCTAssertEqual(listed.subtracting(expected.keys).sorted(), [], "modes plumb lists that v4l2-ctl does not")
    }

    func testTheJSONHasEachFormatAndSizeOnce() throws {
        let out = try KernelVM.shared.output(of: "vivid-devices")
        let cameras = try JSONDecoder().decode([ListedCamera].self, from: Data(contentsOf: out.appendingPathComponent("devices.json")))
        let vivid = try XCTUnwrap(cameras.first { $0.path == "/dev/video0" }, "no /dev/video0 in \(cameras.map(\.path))")
        let keys = vivid.formats.map { "\($0.media_type) \($0.format ?? "-") \($0.size)" }
        XCTAssertEqual(keys.count, Set(keys).count, "repeated: \(Dictionary(grouping: keys) { $0 }.filter { $0.value.count > 1 }.keys.sorted())")
        let expected = Self.v4l2Modes(try String(contentsOf: out.appendingPathComponent("v4l2-formats.txt"), encoding: .utf8))
        let yuyv = try XCTUnwrap(vivid.formats.first { $0.format == "YUY2" && $0.size == "320x180" })
        XCTAssertEqual(yuyv.framerates, expected["YUY2 320x180"])
    }

    /// A size and rate vivid lacks: the nearest mode it has, which the facts name.
    /// `--fps` is a rate to meet: one the driver lacks is refused with the rates it has
    /// (v4l2-ctl's intervals for that size), and nothing is recorded.
    func testARateTheDriverLacksIsRefusedNamingItsRates() throws {
        let out = try KernelVM.shared.output(of: "vivid-devices")
        let status = try String(contentsOf: out.appendingPathComponent("refused-rate.status"), encoding: .utf8)
        let message = try String(contentsOf: out.appendingPathComponent("refused-rate.txt"), encoding: .utf8)
        XCTAssertEqual(status.trimmingCharacters(in: .whitespacesAndNewlines), "2", message)
        XCTAssertTrue(message.contains("/dev/video0") && message.contains("12 fps asked for"), message)
        for rate in ["10", "15", "30"] { XCTAssertTrue(message.contains(" \(rate),") || message.contains(" \(rate) fps"), "\(rate) missing: \(message)") }
        XCTAssertFalse(FileManager.default.fileExists(atPath: out.appendingPathComponent("refused.mp4").path), "a refused recording wrote a file")
    }

    func testTheNearestModeIsChosenForASizeTheDriverLacks() throws {
        let out = try KernelVM.shared.output(of: "vivid-devices")
        let facts = try JSONSerialization.jsonObject(with: Data(contentsOf: out.appendingPathComponent("nearest.json"))) as? [String: Any]
        let ffprobe = try runTool("ffprobe", ["-v", "error", "-select_streams", "v:0", "-show_entries", "stream=width,height",
                                              "-of", "csv=p=0", out.appendingPathComponent("nearest.mp4").path])
        XCTAssertEqual(ffprobe.trimmingCharacters(in: .whitespacesAndNewlines), "320,180", "asked 330x190: vivid's nearest is 320x180")
        XCTAssertEqual(facts?["width"] as? Int, 320)
        XCTAssertEqual(facts?["height"] as? Int, 180)
        print("nearest-mode facts: \(facts ?? [:])")
    }
}
