import Foundation
import PlumbTestSupport
import PlumbMedia
import XCTest

final class MediaInspectorTests: XCTestCase {
    func testReportsWhatItFindsInWords() throws {
        let dir = try temporaryDirectory(self)
        let movie = dir.appendingPathComponent("movie.mp4").path
        try MuxedRecording.mp4(movie, muxer: "fragment-duration=200")
        try MP4MatrixWriter.rewrite(fileAt: movie, rotation: .degrees90)
        let report = try MediaInspector.inspect(path: movie)
        XCTAssertEqual(report.description, "fragmented MP4: 320x240, rotation 90, track matrix 0 1 0 -1 0 0 0 0 1")
        XCTAssertEqual(report.size?.width, 320)

        let still = dir.appendingPathComponent("still.jpg").path
        try IndependentReaders.gstLaunch("videotestsrc num-buffers=1 ! jpegenc ! taginject tags=image-orientation=rotate-270 "
            + "! jifmux ! filesink location=\(still)")
        XCTAssertEqual(try MediaInspector.inspect(path: still).description,
                       "JPEG: rotation 270, EXIF Orientation 8 (Rotate 270 CW)")
    }

    func testFilesThatAreNeitherGiveClearErrors() throws {
        let dir = try temporaryDirectory(self)
        let text = dir.appendingPathComponent("notes.txt").path
        try "hello, this is not a movie".write(toFile: text, atomically: true, encoding: .utf8)
        let empty = dir.appendingPathComponent("empty.mp4").path
        XCTAssertTrue(FileManager.default.createFile(atPath: empty, contents: Data()))
        let cut = dir.appendingPathComponent("cut.mp4").path
        // A plain recording cut before its moov: ftyp and the start of an mdat.
        try Data([0, 0, 0, 16] + Array("ftypisom".utf8) + [0, 0, 0, 0] + [0, 0, 0, 0] + Array("mdat".utf8))
            .write(to: URL(fileURLWithPath: cut))
        let cases: [(String, MediaError)] = [
            (text, .unknownFormat(path: text)),
            (empty, .unknownFormat(path: empty)),
            (cut, .noMovieHeader(path: cut)),
            (dir.appendingPathComponent("missing.jpg").path,
             .cannotRead(path: dir.appendingPathComponent("missing.jpg").path, reason: "no such file")),
        ]
        for (path, expected) in cases {
            XCTAssertThrowsError(try MediaInspector.inspect(path: path), path) { error in
                XCTAssertEqual(error as? MediaError, expected)
            }
        }
        XCTAssertThrowsError(try MediaInspector.inspect(path: dir.path)) { error in
            guard case .cannotRead(let path, _)? = error as? MediaError else { return XCTFail("\(error)") }
            XCTAssertEqual(path, dir.path)
        }
    }
}
