import Foundation
import PlumbTestSupport
import XCTest

/// A USB webcam on the real uvcvideo driver in the kernel tests' VM
/// (`Tests/Kernel/scenarios/60-uvc-devices.sh`): the kernel's UVC gadget function answered
/// by `Tests/Kernel/tools/uvc_gadget.py`, exported by usbip-vudc and attached to vhci_hcd
/// (dummy_hcd cannot carry it: `Tests/Kernel/tools/uvc.sh` says why). What Plumb reports is
/// checked against v4l2-ctl's reading of the same node and the camera's own log of the
/// requests uvcvideo sent it (`gadget.log`).
final class KernelUVCDevicesTests: XCTestCase {
    private func file(_ name: String) throws -> String {
        let out = try KernelVM.shared.output(of: "uvc-devices")
        return (try? String(contentsOf: out.appendingPathComponent(name), encoding: .utf8)) ?? ""
    }

    /// The gadget program's log: one JSON object per line.
    private func gadgetEvents() throws -> [[String: Any]] {
        try file("gadget.log").split(separator: "\n").compactMap {
            try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
        }
    }

    /// "video/x-raw YUY2 320x240" or "image/jpeg 320x240" -> rates ("30/1"), from v4l2-ctl.
    static func v4l2Modes(_ listing: String) -> [String: [String]] {
        var modes: [String: [String]] = [:]
        var fourcc: String?, size: String?
        for line in listing.split(separator: "\n").map({ $0.trimmingCharacters(in: .whitespaces) }) {
            if line.hasPrefix("["), let q = line.split(separator: "'", omittingEmptySubsequences: false).dropFirst().first {
                fourcc = String(q)
            } else if line.hasPrefix("Size: Discrete ") {
                size = String(line.dropFirst("Size: Discrete ".count))
            } else if line.hasPrefix("Interval: Discrete "), let fourcc, let size,
                      let fps = line.split(separator: "(").last.flatMap({ Double($0.prefix { $0 != " " }) }) {
                let key = fourcc == "MJPG" ? "image/jpeg \(size)" : fourcc == "YUYV" ? "video/x-raw YUY2 \(size)" : "? \(size)"
                modes[key, default: []].append(KernelVividDevicesTests.fraction(fps))
            }
        }
        return modes
    }

    /// `plumb devices` names the USB camera at uvcvideo's node, with one line per format and
    /// size carrying the driver's rates: YUYV and MJPEG, the raw mode at 10 and 5 fps only at 720p.
    func testPlumbDevicesListsTheUSBCameraOneLinePerFormatAndSize() throws {
        let node = try file("node.txt").trimmingCharacters(in: .whitespacesAndNewlines)
        XCTAssertTrue(try file("v4l2-all.txt").contains("Driver name      : uvcvideo"), "v4l2-ctl: not uvcvideo")
        let lines = try file("devices.txt").split(separator: "\n").map(String.init)
        let start = try XCTUnwrap(lines.firstIndex { $0.hasSuffix("  \(node)") }, "no camera at \(node): \(lines)")
        XCTAssertTrue(lines[start].hasPrefix("Plumb UVC Gadget"), "the camera's USB product name: \(lines[start])")
        let formatLines = lines[(start + 1)...].prefix { $0.hasPrefix("  ") }
        var seen: [String: String] = [:]
        for line in formatLines {
            let key = line.components(separatedBy: " @ ")[0].trimmingCharacters(in: .whitespaces)
            XCTAssertNil(seen[key], "printed twice: \(line)")
            seen[key] = line.components(separatedBy: " @ ").last
        }
        let expected = Self.v4l2Modes(try file("v4l2-formats.txt"))
        XCTAssertEqual(expected.count, 6, "v4l2-ctl's listing of the camera: \(expected)")
        XCTAssertEqual(Set(seen.keys), Set(expected.keys), "plumb devices vs v4l2-ctl")
        for (mode, rates) in expected {
            XCTAssertEqual(seen[mode], rates.joined(separator: ", "), "\(mode): plumb devices vs v4l2-ctl")
        }
        XCTAssertEqual(seen["video/x-raw YUY2 1280x720"], "10/1, 5/1")
        XCTAssertEqual(seen["image/jpeg 1280x720"], "30/1, 15/1")
    }

    func testTheJSONHasTheUSBCameraWithEachFormatAndSizeOnce() throws {
        let node = try file("node.txt").trimmingCharacters(in: .whitespacesAndNewlines)
        let cameras = try JSONDecoder().decode([ListedCamera].self, from: Data(try file("devices.json").utf8))
        let camera = try XCTUnwrap(cameras.first { $0.path == node }, "no \(node) in \(cameras.map(\.path))")
        let keys = camera.formats.map { "\($0.media_type) \($0.format ?? "-") \($0.size)" }
        XCTAssertEqual(keys.count, Set(keys).count, "repeated: \(keys)")
        XCTAssertEqual(Set(keys), ["video/x-raw YUY2 160x120", "video/x-raw YUY2 320x240", "video/x-raw YUY2 1280x720",
                                   "image/jpeg - 160x120", "image/jpeg - 320x240", "image/jpeg - 1280x720"])
        let mjpeg720 = try XCTUnwrap(camera.formats.first { $0.media_type == "image/jpeg" && $0.size == "1280x720" })
        XCTAssertEqual(mjpeg720.framerates, ["30/1", "15/1"])
    }

    /// The camera's controls, read by uvcvideo from the camera's answers (GET_MIN/MAX/RES/DEF),
    /// and a value set through the driver reaching the camera.
    func testTheCamerasControlsAreAnsweredThroughUvcvideo() throws {
        let controls = try file("v4l2-ctrls.txt")
        XCTAssertTrue(controls.contains("brightness 0x00980900 (int)    : min=-64 max=64 step=1 default=0"), controls)
        XCTAssertTrue(controls.contains("auto_exposure") && controls.contains("3: Aperture Priority Mode"), controls)
        XCTAssertTrue(try file("set-ctrl.txt").contains("brightness: 17"))
        let set = try gadgetEvents().filter { $0["event"] as? String == "control-set" }
        XCTAssertEqual(set.first?["control"] as? String, "brightness")
        XCTAssertEqual(set.first?["value"] as? Int, 17)
    }

    /// Asked for 1280x720 at 30 fps, Plumb commits MJPEG with the camera: its raw mode gives
    /// 10 and 5 fps there. The commit is the camera's own record of uvcvideo's VS_COMMIT.
    func testPlumbCommitsMJPEGWhenTheRawModeCannotGiveTheRate() throws {
        let events = try gadgetEvents()
        let afterRecord = events.drop { $0["mark"] as? String != "record" }.dropFirst().prefix { $0["mark"] == nil }
        let commits = afterRecord.filter { $0["event"] as? String == "commit" }
        let recordErr = try file("record.err")
        let commit = try XCTUnwrap(commits.last, "no VS_COMMIT during plumb record; record.err: \(recordErr)")
        XCTAssertEqual(commit["format"] as? String, "MJPEG", "\(commit)")
        XCTAssertEqual(commit["width"] as? Int, 1280)
        XCTAssertEqual(commit["height"] as? Int, 720)
        XCTAssertEqual(commit["interval"] as? Int, 333_333, "30 fps")
    }

    /// Unplugged (the UDC unbound) and plugged back while its old node was still held: the
    /// camera comes back under another node, its /dev/v4l/by-id link (made by the VM's udev)
    /// points there, and Plumb lists it there.
    func testTheCameraComesBackAfterReplugUnderAnotherNodeWithItsByIdLink() throws {
        let link = "usb-Plumb_Tests_Plumb_UVC_Gadget_PLUMB0001-video-index0"
        let node = try file("node.txt").trimmingCharacters(in: .whitespacesAndNewlines)
        let back = try file("node-back.txt").trimmingCharacters(in: .whitespacesAndNewlines)
        let unplugged = try file("nodes-unplugged.txt"), byId = try file("by-id.txt"), byIdBack = try file("by-id-back.txt")
        let devicesBack = try file("devices-back.txt")
        XCTAssertFalse(unplugged.contains(node + "\n"), "the node stays while unplugged: \(unplugged)")
        XCTAssertTrue(byId.contains("\(link) -> ../../\(node.dropFirst(5))"), byId)
        XCTAssertTrue(byIdBack.contains("\(link) -> ../../\(back.dropFirst(5))"), byIdBack)
        XCTAssertTrue(devicesBack.contains("Plumb UVC Gadget: UVC Camera  \(back)"), devicesBack)
        XCTAssertNotEqual(back, node, "the old node was held: the camera must come back under another")
    }
}
