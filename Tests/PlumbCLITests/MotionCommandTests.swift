import Foundation
import PlumbTestSupport
import XCTest

/// `plumb motion`: the real binary on a real pipeline: the test pattern's bouncing ball
/// moves, an `image:` camera's picture stands still.
final class MotionCommandTests: XCTestCase {
    private func lines(_ stdout: String) throws -> [[String: Any]] {
        try stdout.split(separator: "\n").map {
            try XCTUnwrap(JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any], String($0))
        }
    }

    /// The ball (videotestsrc's, 40 pixels across at 320x240) is motion: --once prints one
    /// `started` line with a box of a ball's size and stops.
    func testTheMovingBallStartsMotionWithItsBox() throws {
        let r = try PlumbProcess.plumb("motion", "--camera", "test", "--size", "320x240", "--once", "--seconds", "60", timeout: 90)
        XCTAssertEqual(r.code, 0, r.stderr)
        let found = try lines(r.stdout)
        XCTAssertEqual(found.count, 1, r.stdout)
        let event = try XCTUnwrap(found.first)
        XCTAssertEqual(event["motion"] as? String, "started")
        XCTAssertGreaterThanOrEqual(event["fraction"] as? Double ?? 0, 0.005)
        XCTAssertNotNil(event["time"] as? String)
        let boxes = try XCTUnwrap(event["boxes"] as? [[String: Double]], r.stdout)
        XCTAssertFalse(boxes.isEmpty, r.stdout)
        // The largest region is the ball (where it is and where it was): more than a speck,
        // far less than the picture.
        let box = try XCTUnwrap(boxes.first)
        let (x, y, w, h) = (box["x"] ?? -1, box["y"] ?? -1, box["width"] ?? 0, box["height"] ?? 0)
        XCTAssertTrue(x >= 0 && y >= 0 && x + w <= 1.0001 && y + h <= 1.0001, "\(box)")
        XCTAssertGreaterThan(w * h, 0.002, "\(box)")
        XCTAssertLessThan(w * h, 0.5, "\(box)")
    }

    /// A still picture is no motion: nothing on stdout, and stderr says how many frames were
    /// really analysed (--once then fails).
    func testAStillPictureIsQuiet() throws {
        let image = try TestPictures(self).grid()
        let r = try PlumbProcess.plumb("motion", "--camera", "image:" + image.path, "--size", "640x480",
                                       "--once", "--seconds", "3", timeout: 60)
        XCTAssertEqual(r.code, 1, r.stderr)
        XCTAssertEqual(r.stdout, "")
        XCTAssertTrue(r.stderr.contains("no motion within 3 s ("), r.stderr)
        XCTAssertFalse(r.stderr.contains("(0 frames"), r.stderr)
    }

    /// The ball's whole picture masked: no motion.
    func testAMaskOverTheWholePictureHidesTheBall() throws {
        let r = try PlumbProcess.plumb("motion", "--camera", "test", "--size", "320x240", "--mask", "0,0,1,1",
                                       "--seconds", "3", timeout: 60)
        XCTAssertEqual(r.code, 0, r.stderr)
        XCTAssertEqual(r.stdout, "")
        XCTAssertTrue(r.stderr.contains("no motion within 3 s ("), r.stderr)
    }

    func testBadArgumentsNameWhatToFix() throws {
        for (args, expected) in [(["--sensitivity", "2"], "--sensitivity 2: expected a sensitivity from 0 to 1"),
                                 (["--min-area", "0"], "--min-area 0: expected a part of the picture above 0"),
                                 (["--min-frames", "0"], "--min-frames 0: expected a number of frames from 1 to 100"),
                                 (["--quiet-seconds", "x"], "--quiet-seconds x"),
                                 (["--rate", "99"], "--rate 99: expected frames per second from 1 to 30"),
                                 (["--mask", "0.5,0.5,0.7,0.1"], "--mask: region \"0.5,0.5,0.7,0.1\" must lie inside the picture")] {
            let r = try PlumbProcess.run(PlumbProcess.binary, ["motion", "--camera", "test"] + args)
            XCTAssertEqual(r.code, 2, "\(args): \(r.stderr)")
            XCTAssertTrue(r.stderr.contains(expected), "\(args): \(r.stderr)")
        }
        let help = try PlumbProcess.plumb("motion", "--help")
        XCTAssertEqual(help.code, 0)
        XCTAssertTrue(help.stdout.contains("--quiet-seconds"), help.stdout)
    }
}
