import Foundation
import GStreamer
@testable import Plumb
import PlumbTestSupport
import Synchronization
import XCTest

/// A still from an MJPEG camera is the camera's own JPEG of its frame with the EXIF added:
/// nothing decoded or re-encoded. The MJPEG camera is the MJPEG test pattern (`test:mjpeg`).
final class CameraJPEGStillTests: XCTestCase {
    /// The JPEG without its APP1 (EXIF) segments; the rest byte for byte.
    private func withoutExif(_ jpeg: Data) throws -> Data {
        let bytes = [UInt8](jpeg)
        XCTAssertEqual(Array(bytes.prefix(2)), [0xFF, 0xD8])
        var out: [UInt8] = [0xFF, 0xD8]
        var i = 2
        while i + 4 <= bytes.count, bytes[i] == 0xFF {
            let code = bytes[i + 1]
            if code == 0xDA { break }  // start of scan: the rest is image data
            let length = Int(bytes[i + 2]) << 8 | Int(bytes[i + 3])
            if code != 0xE1 { out += bytes[i..<(i + 2 + length)] }
            i += 2 + length
        }
        out += bytes[i...]
        return Data(out)
    }

    func testTheStillIsTheCamerasJPEGWithExif() async throws {
        let session = try await CaptureSession.open(try CameraSource.resolve("test:mjpeg"),
                                                    size: VideoSize(width: 320, height: 240), rate: FrameRate(30))
        addTeardownBlock { await session.close() }
        let format = await session.format
        XCTAssertEqual(format.cameraMode?.isMJPEG, true)
        // What the camera sent, as the decoder got it: every JPEG by its timestamp.
        let sent = Mutex<[ClockTime: Data]>([:])
        let running = await session.pipeline
        let pipeline = try XCTUnwrap(running)
        _ = try XCTUnwrap(pipeline.element(named: "decode")?.staticPad("sink")).addProbe(.buffer) { info in
            guard let pts = info.bufferPTS, let data = info.withBufferBytes({ Data($0) }) else { return .ok }
            sent.withLock { $0[pts] = data }
            return .ok
        }
        try await session.waitForFrames(3)
        let photo = try await session.takePhoto()
        XCTAssertEqual(photo.facts.cameraJPEG, true, photo.facts.json)
        let frameTime = try XCTUnwrap(photo.frameTime)
        let original = try XCTUnwrap(sent.withLock { $0[frameTime] }, "no camera JPEG at \(frameTime)")
        XCTAssertEqual(try withoutExif(photo.jpeg), original, "the still is not the camera's JPEG apart from the EXIF")
        XCTAssertNotEqual(photo.jpeg, original, "no EXIF was added")

        // exiftool reads the EXIF Plumb added.
        let dir = try temporaryDirectory(self)
        let file = dir.appendingPathComponent("still.jpg")
        try photo.jpeg.write(to: file)
        let tags = try runTool("exiftool", ["-s", "-s", "-s", "-Make", "-Model", "-Orientation#", "-ImageWidth", file.path])
            .split(separator: "\n").map(String.init)
        XCTAssertEqual(tags, ["Plumb", "Plumb MJPEG test pattern", "1", "320"])
    }

    /// From a raw camera the still is encoded as before.
    func testARawCamerasStillIsEncoded() async throws {
        let session = try await CaptureSession.open(.testPattern(), size: VideoSize(width: 320, height: 240))
        addTeardownBlock { await session.close() }
        let photo = try await session.takePhoto()
        XCTAssertNil(photo.facts.cameraJPEG)
    }
}
