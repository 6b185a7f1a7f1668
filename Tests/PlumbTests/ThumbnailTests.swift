import Foundation
import GStreamer
import PlumbTestSupport
import Plumb
import XCTest

/// `Thumbnail.jpeg` of good and damaged files: a damaged one fails with an error that says
/// what is wrong with it, found on the bus or by reading the file — never by sitting out
/// the time-out.
final class ThumbnailTests: XCTestCase {
    func testAGoodRecordingAndStillGiveAJPEG() throws {
        let dir = try temporaryDirectory(self)
        let movie = dir.appendingPathComponent("movie.mp4").path
        try MuxedRecording.mp4(movie, muxer: "fragment-duration=500 fragment-mode=first-moov-then-finalise")
        let still = dir.appendingPathComponent("still.jpg").path
        try IndependentReaders.gstLaunch("videotestsrc num-buffers=1 ! video/x-raw,width=640,height=480 ! jpegenc "
            + "! filesink location=\(still)")
        for path in [movie, still] {
            let jpeg = try Thumbnail.jpeg(of: path)
            let out = dir.appendingPathComponent("thumb.jpg")
            try jpeg.write(to: out)
            let size = try runTool("ffprobe", ["-v", "error", "-show_entries", "stream=codec_name,width,height",
                                               "-of", "csv=p=0", out.path])
            XCTAssertEqual(size.trimmingCharacters(in: .whitespacesAndNewlines), "mjpeg,320,240", path)
        }
    }

    /// Truncated, zeroed header, garbage, random frames under a good header, fragments
    /// without a movie header, for recordings and stills; each run a few times (the 15 s waits came now for one file, now for
    /// another). The time-out is 120 s: a wait that sits it out fails the test by its error.
    func testDamagedFilesFailWithTheirReasonNotTheTimeOut() throws {
        let dir = try temporaryDirectory(self)
        let movie = dir.appendingPathComponent("movie.mp4").path
        try MuxedRecording.mp4(movie, muxer: "fragment-duration=500 fragment-mode=first-moov-then-finalise", frames: 60)
        let fragmented = dir.appendingPathComponent("fragmented.mp4").path
        try MuxedRecording.mp4(fragmented, muxer: "fragment-duration=500", frames: 60)
        let still = dir.appendingPathComponent("still.jpg").path
        try IndependentReaders.gstLaunch("videotestsrc num-buffers=1 ! video/x-raw,width=640,height=480 ! jpegenc "
            + "! filesink location=\(still)")
        let mp4 = try Data(contentsOf: URL(fileURLWithPath: movie))
        let jpeg = try Data(contentsOf: URL(fileURLWithPath: still))
        var random = SplitMix64(seed: 22)
        let garbage = Data((0..<60_000).map { _ in UInt8(truncatingIfNeeded: random.next()) })
        let damaged: [String: Data] = [
            "truncated.mp4": mp4.prefix(mp4.count / 3),
            "zeroed-header.mp4": Data(count: 4096) + mp4.dropFirst(4096),
            "garbage.mp4": garbage,
            "garbage-frames.mp4": Self.garbageSamples(mp4, &random),
            "empty.mp4": Data(),
            "fragments-without-moov.mp4": try Self.withoutMovieHeader(Data(contentsOf: URL(fileURLWithPath: fragmented))),
            "zeroed-header.jpg": Data(count: 200) + jpeg.dropFirst(200),
            "garbage.jpg": garbage.prefix(20_000),
            "empty.jpg": Data(),
        ]
        for (name, bytes) in damaged {
            try bytes.write(to: dir.appendingPathComponent(name))
        }
        for round in 1...3 {
            for name in damaged.keys.sorted() {
                do {
                    _ = try Thumbnail.jpeg(of: dir.appendingPathComponent(name).path, timeout: .seconds(120))
                    XCTFail("\(name): a thumbnail of a damaged file")
                } catch {
                    let text = "\(error)"
                    if round == 1 { print("\(name): \(text)") }
                    XCTAssertFalse(text.contains("did not reach") || text.contains("within"),
                                   "round \(round), \(name): the time-out, not the reason: \(text)")
                    XCTAssertTrue(text.contains(name), "round \(round), \(name): the error names the file: \(text)")
                }
            }
        }
    }

    /// A whole MP4 whose `mdat` holds random bytes instead of frames: its movie header is
    /// good, its pictures are not.
    static func garbageSamples(_ data: Data, _ random: inout SplitMix64) -> Data {
        var bytes = [UInt8](data)
        guard let at = (0..<(bytes.count - 8)).first(where: { bytes[$0 + 4..<$0 + 8].elementsEqual("mdat".utf8) }) else { return data }
        let size = bytes[at..<at + 4].reduce(0) { $0 << 8 | Int($1) }
        for i in (at + 8)..<min(at + size, bytes.count) { bytes[i] = UInt8(truncatingIfNeeded: random.next()) }
        return Data(bytes)
    }

    /// The file without its `moov` box: `ftyp moof mdat moof mdat ...`.
    static func withoutMovieHeader(_ data: Data) throws -> Data {
        var out = Data(), offset = 0
        let bytes = [UInt8](data)
        while offset + 8 <= bytes.count {
            let size = bytes[offset..<offset + 4].reduce(0) { $0 << 8 | Int($1) }
            guard size >= 8 else { throw ThumbnailTestError.badBox(offset) }
            if String(decoding: bytes[offset + 4..<offset + 8], as: UTF8.self) != "moov" {
                out.append(contentsOf: bytes[offset..<min(offset + size, bytes.count)])
            }
            offset += size
        }
        return out
    }
}

private enum ThumbnailTestError: Error { case badBox(Int) }
