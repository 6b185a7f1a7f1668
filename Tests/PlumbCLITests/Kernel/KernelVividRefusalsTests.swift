import Foundation
import PlumbTestSupport
import XCTest

/// Nodes plumb may not use (`Tests/Kernel/scenarios/21-vivid-refusals.sh`): errors that name
/// the device and say what to do.
final class KernelVividRefusalsTests: XCTestCase {
    private func read(_ name: String) throws -> String {
        let out = try KernelVM.shared.output(of: "vivid-refusals")
        return ((try? String(contentsOf: out.appendingPathComponent(name), encoding: .utf8)) ?? "")
            .trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// /dev/video0 mode 0600, plumb run as nobody.
    func testANodeTheUserMayNotOpenSaysSoAndWhatToDo() throws {
        XCTAssertEqual(try read("permission.status"), "1")
        let err = try read("permission.err")
        XCTAssertTrue(err.contains(
            "camera /dev/video0: permission denied; add this user to the 'video' group or run with access to the device"), err)
    }

    /// `plumb serve` with `[camera] fps = 12`, which vivid has no mode for at 320x180: refused
    /// at start (not retried in the background), naming the setting and the rates it has.
    func testServeRefusesAConfiguredRateTheCameraLacks() throws {
        let err = try read("serve-fps.err")
        XCTAssertEqual(try read("serve-fps.status"), "1", err)
        XCTAssertTrue(err.contains("plumb serve: error: [camera] fps = 12: camera /dev/video0 cannot give it (12 fps asked for; "
                                   + "it gives 320x180 at "), err)
        XCTAssertTrue(err.contains("; set [camera] fps to one of its rates"), err)
        for rate in ["10", "15", "30"] { XCTAssertTrue(err.contains(" \(rate),") || err.contains(" \(rate) fps"), "\(rate) missing: \(err)") }
        XCTAssertFalse(err.contains("retrying in the background"), err)
    }

    /// v4l2-ctl streaming from /dev/video0 meanwhile.
    func testANodeAnotherProcessStreamsFromSaysItIsBusy() throws {
        XCTAssertEqual(try read("busy.status"), "1")
        let err = try read("busy.err")
        XCTAssertTrue(err.contains(
            "camera /dev/video0: the device is busy: another program is using it; stop that program and try again"), err)
    }
}
