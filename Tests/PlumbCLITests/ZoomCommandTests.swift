import Foundation
import PlumbTestSupport
import XCTest

/// `--zoom F` on `plumb photo` and `plumb record`: the real binary on an `image:` grid.
final class ZoomCommandTests: XCTestCase {
    private func grid() throws -> URL { try TestPictures(self).grid() }

    func testAPhotoAtTwiceRecordsItsZoom() throws {
        let dir = try temporaryDirectory(self)
        let still = dir.appendingPathComponent("zoomed.jpg")
        let r = try PlumbProcess.plumb("photo", "--camera", "image:" + (try grid()).path, "--size", "640x480",
                                       "--zoom", "2", "-o", still.path)
        XCTAssertEqual(r.code, 0, r.stderr)
        let facts = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any])
        XCTAssertEqual(facts["zoom"] as? Double, 2)
        XCTAssertEqual(try IndependentReaders.exiftool("DigitalZoomRatio", still.path), 2)
        let plain = dir.appendingPathComponent("plain.jpg")
        let p = try PlumbProcess.plumb("photo", "--camera", "image:" + (try grid()).path, "--size", "640x480", "-o", plain.path)
        XCTAssertEqual(p.code, 0, p.stderr)
        XCTAssertFalse(p.stdout.contains("\"zoom\""), p.stdout)
    }

    func testARecordingAtTwiceKeepsItsSize() throws {
        let movie = try temporaryDirectory(self).appendingPathComponent("zoomed.mp4")
        let r = try PlumbProcess.plumb("record", "--seconds", "1", "--camera", "image:" + (try grid()).path,
                                       "--size", "640x480", "--zoom", "2", "-o", movie.path)
        XCTAssertEqual(r.code, 0, r.stderr)
        let probe = try ProbedVideo(movie)
        XCTAssertEqual(probe.width, 640)
        XCTAssertEqual(probe.height, 480)
        XCTAssertEqual(probe.packets, 30)
    }

    func testAZoomOutOfRangeIsABadArgument() throws {
        let r = try PlumbProcess.plumb("photo", "--camera", "test", "--zoom", "9", "-o", "/nonexistent/x.jpg")
        XCTAssertEqual(r.code, 2)
        XCTAssertTrue(r.stderr.contains("--zoom 9"), r.stderr)
    }
}
