import Foundation
import PlumbTestSupport
import XCTest

/// `plumb photo` and `plumb record --accelerometer iio` on Debian's hid-sensor-accel-3d
/// driver in the kernel tests' VM (`Tests/Kernel/scenarios/50-iio-stills.sh`): the angle
/// read from the driver at capture time is in the files, as exiftool and ffprobe read them.
final class KernelIIOStillsTests: XCTestCase {
    func output() throws -> URL { try KernelVM.shared.output(of: "50-iio-stills") }

    static func text(_ out: URL, _ name: String) -> String {
        (try? String(contentsOf: out.appendingPathComponent(name), encoding: .utf8)) ?? "(no \(name))"
    }

    func testAPhotoTakenTurnedClockwiseSaysSoInExif() throws {
        let out = try output()
        let err = Self.text(out, "photo-90.err")
        XCTAssertTrue(err.contains("exit=0"), err)
        let facts = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(Self.text(out, "photo-90.json").utf8)) as? [String: Any], err)
        XCTAssertEqual(facts["orientation"] as? Int, 6, "\(facts)")
        // EXIF Orientation 6: turn 90° clockwise to show it upright.
        XCTAssertEqual(try IndependentReaders.exiftool("Orientation", out.appendingPathComponent("photo-90.jpg").path), 6, err)
    }

    func testARecordingStartedTurnedCounterClockwiseCarriesItInTheTrackMatrix() throws {
        let out = try output()
        let err = Self.text(out, "record-270.err")
        XCTAssertTrue(err.contains("exit=0"), err)
        let facts = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(Self.text(out, "record-270.json").utf8)) as? [String: Any], err)
        XCTAssertEqual(facts["rotation"] as? Int, 270, "\(facts)")
        let file = out.appendingPathComponent("record-270.mp4").path
        XCTAssertEqual(try IndependentReaders.exiftool("Rotation", file), 270)
        // ffprobe counts counter-clockwise.
        XCTAssertEqual(try IndependentReaders.ffprobeRotation(file), 90)
        XCTAssertGreaterThan(try IndependentReaders.ffprobePacketCount(file), 0)
    }
}
