import Foundation
import Plumb
import PlumbTestSupport
import XCTest

/// The wall clock the "test:clock" camera writes into its pixels (make bench's
/// glass-to-glass latency): the code, and what an independent decoder reads back.
final class PixelClockTests: XCTestCase {
    func testTheCodeCarriesTheMillisecondsAndEveryFlippedBitIsCaught() {
        for ms: UInt64 in [0, 1, 0xFF_FFFF, 0x1_0000_0001, 1_764_640_000_123] {
            let code = PixelClock.code(milliseconds: ms)
            XCTAssertEqual(PixelClock.milliseconds(code: code), UInt32(ms & 0xFF_FFFF), "\(ms)")
            for bit in 0..<32 {
                XCTAssertNil(PixelClock.milliseconds(code: code ^ (1 << UInt32(bit))), "\(ms), bit \(bit) flipped")
            }
        }
    }

    func testWhatIsWrittenIsReadOverAnyPicture() {
        let (width, height, stride) = (320, 240, 320)
        var luma = [UInt8](repeating: 0, count: stride * height)
        for i in luma.indices { luma[i] = UInt8(truncatingIfNeeded: (i &* 2_654_435_761) >> 13) }  // noise
        let code = PixelClock.code(milliseconds: 1_764_640_000_123)
        luma.withUnsafeMutableBytes { PixelClock.write(code, into: $0, width: width, height: height, stride: stride) }
        XCTAssertEqual(luma.withUnsafeBytes { PixelClock.read($0, width: width, height: height, stride: stride) }, code)
    }

    /// A recording of the clock camera, decoded by ffmpeg: each frame's stamp is the wall
    /// clock of the moment it was made, between the start and the end of the recording.
    func testTheClockCameraStampsEachFrameWithTheWallClock() async throws {
        XCTAssertEqual(try CameraSource.resolve("test:clock"), .testPattern(.clock))
        let folder = try temporaryDirectory(self)
        let size = VideoSize(width: 320, height: 240)
        let before = PixelClock.now()
        let session = try await CaptureSession.open(.testPattern(.clock), size: size)
        let file = folder.appendingPathComponent("clock.mp4")
        let recording = try await session.startRecording(to: file)
        _ = try await recording.firstFrameTime()
        await eventually("30 frames recorded") { recording.progress.frames >= 30 }
        _ = try await recording.stop()
        await session.close()
        let after = PixelClock.now()

        let raw = folder.appendingPathComponent("frames.gray")
        _ = try runTool("ffmpeg", ["-loglevel", "error", "-i", file.path, "-frames:v", "10", "-f", "rawvideo",
                                   "-pix_fmt", "gray", raw.path])
        let frames = try Data(contentsOf: raw)
        let frameBytes = size.width * size.height
        XCTAssertEqual(frames.count, 10 * frameBytes)
        var last: UInt32?
        for index in 0..<(frames.count / frameBytes) {
            let code = frames.withUnsafeBytes { bytes in
                PixelClock.read(UnsafeRawBufferPointer(rebasing: bytes[(index * frameBytes)..<((index + 1) * frameBytes)]),
                                width: size.width, height: size.height, stride: size.width)
            }
            let stamp = try XCTUnwrap(code.flatMap(PixelClock.milliseconds(code:)), "frame \(index): no readable stamp")
            let sinceStart = (UInt64(stamp) &- before) & 0xFF_FFFF
            XCTAssertLessThanOrEqual(sinceStart, after - before, "frame \(index): stamp \(stamp) outside the recording")
            if let last {  // one frame later: some milliseconds on (modulo 2^24)
                XCTAssertTrue((1..<1000).contains((stamp &- last) & 0xFF_FFFF), "frame \(index): \(last) then \(stamp)")
            }
            last = stamp
        }
    }
}
