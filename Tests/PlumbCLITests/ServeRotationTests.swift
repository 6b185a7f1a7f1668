import Foundation
import PlumbTestSupport
import XCTest

/// A replayed accelerometer (`[rotation] accelerometer = replay:-`, samples written by the
/// test) turning the device: /events reports each orientation, the RTSP preview's pixels
/// turn, stills and clips carry the angle as metadata, and the continuous recording
/// (`split-on-rotation`) moves to a new file at each turn, each upright by its own matrix.
/// SIGINT then stops the daemon cleanly.
final class ServeRotationTests: XCTestCase {
    func testReplayedRotationReachesEventsPreviewStillsAndClips() throws {
        let serve = try ServeProcess(self, [
            "rotation": ["accelerometer": "replay:-", "split-on-rotation": "true"],
            "recording": ["continuous": "true", "segment-seconds": "0"],
        ], withInput: true)
        XCTAssertTrue(serve.log.contains("rotation: replay:-"), serve.log)
        let events = try EventTap(serve, self)
        serve.feed("0 0 9.81 0")  // upright: no change

        // Turned 90° clockwise.
        serve.feed("100 -9.81 0 0")
        eventually(events.raw, timeout: .seconds(15)) { !events.named("orientation").isEmpty }
        XCTAssertEqual(events.named("orientation").first?.data["angle"] as? Int, 90)
        XCTAssertEqual(try serve.curl("GET", "/status").json()["orientation"] as? Int, 90)

        // The preview's pixels turned (RTP carries no orientation): 240x320 now.
        let (turned, err) = try Probe.live(serve.rtsp)
        XCTAssertEqual(turned?.width, 240, err)
        XCTAssertEqual(turned?.height, 320, err)

        // A still: the pixels as captured, the angle in EXIF Orientation (6 = 90° clockwise).
        let photoFile = serve.dir.appendingPathComponent("turned.jpg")
        XCTAssertEqual(try serve.curl("POST", "/photo", output: photoFile).status, 200)
        let tags = try exif(photoFile)
        XCTAssertEqual(tags["Orientation"], "6")
        XCTAssertEqual(tags["ImageWidth"], "320")

        // A clip: the angle in the track matrix, as exiftool reads it.
        let clipFile = serve.dir.appendingPathComponent("turned.mp4")
        let clip = try serve.curl("POST", "/clip?seconds=1", output: clipFile)
        XCTAssertEqual(clip.status, 200, clip.text)
        XCTAssertEqual(try runTool("exiftool", ["-n", "-s3", "-Rotation", clipFile.path])
                           .trimmingCharacters(in: .whitespacesAndNewlines), "90")

        // Upside down: the next event, in order.
        serve.feed("200 0 -9.81 0")
        eventually(events.raw, timeout: .seconds(15)) { events.named("orientation").count >= 2 }
        XCTAssertEqual(events.named("orientation").compactMap { $0.data["angle"] as? Int }, [90, 180])
        XCTAssertEqual(try serve.curl("GET", "/status").json()["orientation"] as? Int, 180)

        // The recording went on in a new file at each turn: three files, each with its angle
        // in the track matrix (exiftool), each finalized, announced in order on /events.
        eventually(events.raw, timeout: .seconds(15)) { events.named("recording-started").count >= 2 }
        let third = try XCTUnwrap(events.named("recording-started").last?.data["file"] as? String, events.raw)
        serve.waitForRecordedFrames(1, in: third)
        let stopped = try serve.curl("POST", "/recording/stop")
        XCTAssertEqual(stopped.status, 200, stopped.text)
        let files = try XCTUnwrap(stopped.json()["files"] as? [String], stopped.text)
        XCTAssertEqual(files.count, 3, "one file per angle: \(files)")
        var angles: [String] = []
        for name in files {
            let url = serve.folder.appendingPathComponent(name)
            XCTAssertTrue(try hasMoov(url), name)
            XCTAssertGreaterThan(try probeFile(url).frames, 0, name)
            angles.append(try runTool("exiftool", ["-n", "-s3", "-Rotation", url.path]).trimmingCharacters(in: .whitespacesAndNewlines))
        }
        XCTAssertEqual(angles, ["0", "90", "180"])
        eventually(events.raw, timeout: .seconds(10)) { events.named("recording-stopped").count >= 3 }
        XCTAssertEqual(events.named("recording-stopped").compactMap { $0.data["file"] as? String }, files)
        XCTAssertEqual(Array(events.named("recording-started").compactMap { $0.data["file"] as? String }), Array(files.dropFirst()),
                       "the first file started before /events was read; the others are announced as they start")

        let (code, log) = serve.stop(SIGINT)
        XCTAssertEqual(code, 0, log)
        XCTAssertTrue(log.contains("SIGINT: finalizing every file and stopping"), log)
        XCTAssertTrue(log.contains("orientation: 90 degrees") && log.contains("orientation: 180 degrees"), log)
    }
}
