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

    /// v4l2-ctl streaming from /dev/video0 meanwhile.
    func testANodeAnotherProcessStreamsFromSaysItIsBusy() throws {
        XCTAssertEqual(try read("busy.status"), "1")
        let err = try read("busy.err")
        XCTAssertTrue(err.contains(
            "camera /dev/video0: the device is busy: another program is using it; stop that program and try again"), err)
    }
}
