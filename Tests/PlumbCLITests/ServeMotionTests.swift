import Foundation
import PlumbTestSupport
import XCTest

/// `[motion]` in a real `plumb serve`: the test pattern's bouncing ball is motion (a
/// `motion` event, `/status`'s `motion`, an event clip ffprobe reads), an `image:` camera's
/// still picture is not.
final class ServeMotionTests: XCTestCase {
    private func status(_ serve: ServeProcess) -> [String: Any] {
        ((try? serve.curl("GET", "/status").json())?["motion"] as? [String: Any]) ?? [:]
    }

    /// The daemon starts on a still picture (so the event stream listens before anything
    /// moves), then switches to the ball: motion starts, /status says so, and the clip it
    /// triggers (pre-seconds before it, capped at max-seconds as the ball keeps moving) is
    /// written, says it was started by motion, and is a video ffprobe reads.
    func testTheMovingBallIsAMotionEventAndAnEventClip() throws {
        let still = try TestPictures(self).grid()
        let serve = try ServeProcess(self, [
            "camera": ["device": "image:" + still.path, "size": "640x480",
                       "image-folder": still.deletingLastPathComponent().path],
            "events": ["pre-seconds": "1", "post-seconds": "1", "max-seconds": "3"],
            "motion": ["enabled": "true"],
        ])
        let tap = try EventTap(serve, self)
        let switched = try serve.curl("POST", "/camera?device=test")
        XCTAssertEqual(switched.status, 200, switched.text)

        eventually(tap.raw + serve.log, timeout: .seconds(60)) { !tap.named("motion").isEmpty }
        let started = try XCTUnwrap(tap.named("motion").first).data
        XCTAssertEqual(started["motion"] as? String, "started", "\(started)")
        XCTAssertGreaterThan(started["fraction"] as? Double ?? 0, 0)
        let boxes = try XCTUnwrap(started["boxes"] as? [[String: Double]], "\(started)")
        XCTAssertFalse(boxes.isEmpty, "where the ball moved")
        for box in boxes {
            XCTAssertEqual(Set(box.keys), ["x", "y", "width", "height"])
            XCTAssertLessThanOrEqual((box["x"] ?? 2) + (box["width"] ?? 2), 1.0001, "\(box)")
        }
        let time = try XCTUnwrap(started["time"] as? String)

        // The ball keeps moving: /status says motion, since that start.
        let now = status(serve)
        XCTAssertEqual(now["enabled"] as? Bool, true, "\(now)")
        XCTAssertEqual(now["state"] as? String, "motion", "\(now)")
        XCTAssertEqual(now["last_started"] as? String, time)
        XCTAssertGreaterThanOrEqual(now["triggers"] as? Int ?? 0, 1, "\(now)")
        XCTAssertGreaterThan(now["frames_analysed"] as? Int ?? 0, 0, "\(now)")

        // The clip motion started: extended while the ball moved, capped at max-seconds.
        eventually(tap.raw + serve.log, timeout: .seconds(60)) { !tap.named("event").isEmpty }
        let clip = try XCTUnwrap(tap.named("event").first).data
        let facts = try XCTUnwrap(clip["facts"] as? [String: Any], "\(clip)")
        XCTAssertEqual(facts["started_by"] as? String, "motion", "\(facts)")
        XCTAssertEqual((facts["boxes"] as? [Any])?.count, boxes.count, "the boxes of the start")
        XCTAssertEqual(facts["state"] as? String, "finished", "\(facts)")
        XCTAssertGreaterThan((facts["triggers"] as? [Any])?.count ?? 0, 1, "continued motion extended it: \(facts)")
        XCTAssertEqual(facts["capped"] as? Bool, true, "the ball moved past max-seconds: \(facts)")
        let name = try XCTUnwrap(clip["file"] as? String)
        let path = serve.folder.appendingPathComponent(name).path
        let duration = try XCTUnwrap(try IndependentReaders.ffprobeDuration(path))
        XCTAssertGreaterThanOrEqual(duration, 2, "pre-seconds and what motion kept going: \(duration) s")
        XCTAssertLessThanOrEqual(duration, 5, "max-seconds and a GOP of pre-record: \(duration) s")
        XCTAssertTrue(serve.log.contains("motion started"), serve.log)

        // Back to the still picture (a change of the whole picture: a lighting change, not
        // motion): motion ends after quiet-seconds, and /status says when.
        XCTAssertEqual(try serve.curl("POST", "/camera?device=image:\(still.path)").status, 200)
        eventually(tap.raw + serve.log, timeout: .seconds(60)) { tap.named("motion").count >= 2 }
        let ended = try XCTUnwrap(tap.named("motion").last).data
        XCTAssertEqual(ended["motion"] as? String, "ended", "\(ended)")
        XCTAssertEqual(tap.named("motion").count, 2, "one start, one end: \(tap.raw)")
        let after = status(serve)
        XCTAssertEqual(after["state"] as? String, "idle", "\(after)")
        XCTAssertEqual(after["last_ended"] as? String, ended["time"] as? String)
        XCTAssertEqual(after["triggers"] as? Int, 1, "one start: \(after)")
        let stopped = serve.stop()
        XCTAssertEqual(stopped.code, 0)
        XCTAssertFalse(stopped.log.contains("motion could not record"), stopped.log)
    }

    /// On a full disk motion has no clip: one `error` event says why, not one at every
    /// re-trigger while the ball keeps moving (several over the 3 s of analysed frames waited for).
    func testAFullDiskIsReportedOnceWhileMotionLasts() throws {
        let disk = try mountSmallDisk(self, size: "320k")
        let filler = disk.appendingPathComponent("filler.bin")
        let fd = open(filler.path, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        XCTAssertGreaterThanOrEqual(fd, 0)
        let block = [UInt8](repeating: 0, count: 4096)
        while write(fd, block, block.count) > 0 {}
        close(fd)
        let still = try TestPictures(self).grid()
        let serve = try ServeProcess(self, [
            "camera": ["device": "image:" + still.path, "size": "640x480"],
            "recording": ["folder": disk.path],
            "events": ["pre-seconds": "1", "post-seconds": "1"],
            "motion": ["enabled": "true"],
        ])
        let tap = try EventTap(serve, self)
        XCTAssertEqual(try serve.curl("POST", "/camera?device=test").status, 200)
        eventually(tap.raw + serve.log, timeout: .seconds(60)) { !tap.named("motion").isEmpty }
        let from = status(serve)["frames_analysed"] as? Int ?? 0
        // 15 frames at 5 per second: 3 s of motion, re-triggered every 0.5 s.
        eventually("15 more frames analysed: \(status(serve))", timeout: .seconds(60)) {
            self.status(serve)["frames_analysed"] as? Int ?? 0 >= from + 15
        }
        XCTAssertEqual(status(serve)["state"] as? String, "motion", "the ball still moves")
        let errors = tap.named("error").compactMap { $0.data["message"] as? String }
        XCTAssertEqual(errors.count, 1, tap.raw)
        XCTAssertTrue(errors.first?.hasPrefix("motion could not record an event clip: no event clip: no room to record in") == true,
                      "\(errors)")
        XCTAssertTrue(tap.named("event").isEmpty, tap.raw)
        XCTAssertEqual(serve.stop().code, 0)
    }

    /// A still picture: the detector looks at many frames, and none is motion.
    func testAStillPictureIsNoMotion() throws {
        let still = try TestPictures(self).grid()
        let serve = try ServeProcess(self, [
            "camera": ["device": "image:" + still.path, "size": "640x480"],
            "motion": ["enabled": "true"],
        ])
        let tap = try EventTap(serve, self)
        // 20 frames at 5 per second: 4 s of the picture, as the detector saw it.
        eventually("20 frames analysed: \(status(serve))", timeout: .seconds(60)) {
            self.status(serve)["frames_analysed"] as? Int ?? 0 >= 20
        }
        XCTAssertTrue(tap.named("motion").isEmpty, tap.raw)
        XCTAssertTrue(tap.named("event").isEmpty, tap.raw)
        let now = status(serve)
        XCTAssertEqual(now["state"] as? String, "idle", "\(now)")
        XCTAssertEqual(now["triggers"] as? Int, 0, "\(now)")
        XCTAssertTrue(now["last_started"] is NSNull, "\(now)")
        XCTAssertEqual(serve.stop().code, 0)
    }

    /// Off by default: `motion` in /status says so, every other key null.
    func testMotionIsOffUnlessAsked() throws {
        let serve = try ServeProcess(self)
        let off = status(serve)
        XCTAssertEqual(off["enabled"] as? Bool, false, "\(off)")
        for key in ["state", "last_started", "last_ended", "triggers", "frames_analysed", "lighting_changes"] {
            XCTAssertTrue(off[key] is NSNull, "\(key): \(off)")
        }
        XCTAssertFalse(serve.log.contains("motion"), serve.log)
        XCTAssertEqual(serve.stop().code, 0)
    }
}
