import Foundation
import PlumbTestSupport
import XCTest

/// `GET /motion/snapshot`, `GET /motion` and `PATCH /motion` in a real `plumb serve`, whose
/// test camera's bouncing ball is the motion; the stills are read by ffmpeg, not by Plumb.
final class ServeMotionRoutesTests: XCTestCase {
    /// A decoded still: RGB, row by row.
    struct Picture {
        var width: Int
        var height: Int
        var rgb: [UInt8]
        /// EXIF Orientation (exiftool): 1 upright, 6 to be turned 90° clockwise, 3 180°, 8 270°.
        var orientation = 1

        /// The picture as a viewer shows it: turned clockwise as its EXIF Orientation says.
        func upright() -> Picture {
            let turns = [1: 0, 6: 1, 3: 2, 8: 3][orientation] ?? 0
            var picture = self
            for _ in 0..<turns {
                // 90° clockwise: the new (x, y) is the old (y, height - 1 - x).
                var turned = [UInt8](repeating: 0, count: picture.rgb.count)
                let (w, h) = (picture.height, picture.width)
                for y in 0..<h {
                    for x in 0..<w {
                        let from = ((picture.height - 1 - x) * picture.width + y) * 3, to = (y * w + x) * 3
                        turned[to] = picture.rgb[from]
                        turned[to + 1] = picture.rgb[from + 1]
                        turned[to + 2] = picture.rgb[from + 2]
                    }
                }
                picture = Picture(width: w, height: h, rgb: turned, orientation: 1)
            }
            return picture
        }

        func pixel(_ x: Int, _ y: Int) -> (r: Int, g: Int, b: Int) {
            let i = (y * width + x) * 3
            return (Int(rgb[i]), Int(rgb[i + 1]), Int(rgb[i + 2]))
        }

        /// The colour the daemon draws boxes in (#00ff00), after JPEG.
        func isMark(_ x: Int, _ y: Int) -> Bool {
            let p = pixel(x, y)
            return p.g > 150 && p.r < 110 && p.b < 110
        }
    }

    /// ffmpeg's reading of a JPEG, as 24-bit RGB: the pixels as stored (not turned by the
    /// EXIF Orientation, which exiftool reads apart).
    private func decode(_ jpeg: Data, in dir: URL) throws -> Picture {
        let file = dir.appendingPathComponent("snapshot-\(UUID().uuidString).jpg")
        let raw = file.deletingPathExtension().appendingPathExtension("rgb")
        defer {
            try? FileManager.default.removeItem(at: file)
            try? FileManager.default.removeItem(at: raw)
        }
        try jpeg.write(to: file)
        let probe = try PlumbProcess.run(PlumbProcess.tool("ffprobe"), ["-v", "error", "-show_entries", "stream=width,height",
                                                                      "-of", "csv=p=0", file.path])
        let size = probe.stdout.trimmingCharacters(in: .whitespacesAndNewlines).split(separator: ",").compactMap { Int($0) }
        let r = try PlumbProcess.run(PlumbProcess.tool("ffmpeg"), ["-v", "error", "-y", "-noautorotate", "-i", file.path, "-f", "rawvideo",
                                                                 "-pix_fmt", "rgb24", raw.path])
        XCTAssertEqual(r.code, 0, r.stderr)
        guard size.count == 2 else { throw ServeTestError(description: "ffprobe: \(probe.stdout) \(probe.stderr)") }
        let rgb = [UInt8](try Data(contentsOf: raw))
        XCTAssertEqual(rgb.count, size[0] * size[1] * 3)
        return Picture(width: size[0], height: size[1], rgb: rgb,
                       orientation: try IndependentReaders.exiftool("Orientation", file.path) ?? 1)
    }

    /// A box of the header in the picture's pixels: x0, y0, x1, y1.
    private func pixels(_ box: [String: Double], in picture: Picture) -> (Double, Double, Double, Double) {
        let x = (box["x"] ?? 0) * Double(picture.width), y = (box["y"] ?? 0) * Double(picture.height)
        return (x, y, x + (box["width"] ?? 0) * Double(picture.width), y + (box["height"] ?? 0) * Double(picture.height))
    }

    /// Whether (x, y) lies within `margin` pixels of a box's outline.
    private func nearOutline(_ x: Int, _ y: Int, of boxes: [(Double, Double, Double, Double)], margin: Double) -> Bool {
        let px = Double(x) + 0.5, py = Double(y) + 0.5
        return boxes.contains { b in
            let outer = px >= b.0 - margin && px <= b.2 + margin && py >= b.1 - margin && py <= b.3 + margin
            let inner = px > b.0 + margin && px < b.2 - margin && py > b.1 + margin && py < b.3 - margin
            return outer && !inner
        }
    }

    /// The marks of a snapshot: every box's four edges in the box colour (nine points on
    /// each), and no pixel of that colour further than 6 pixels from every outline. Returns
    /// how many mark pixels there are.
    @discardableResult
    private func checkMarks(_ picture: Picture, boxes: [[String: Double]], file: StaticString = #filePath,
                            line: UInt = #line) -> Int {
        let outlines = boxes.map { pixels($0, in: picture) }
        let clampX = { (v: Double) in min(max(Int(v.rounded()), 1), picture.width - 2) }
        let clampY = { (v: Double) in min(max(Int(v.rounded()), 1), picture.height - 2) }
        for (b, box) in zip(outlines, boxes) {
            for step in 1...9 {
                let t = Double(step) / 10
                let x = clampX(b.0 + (b.2 - b.0) * t), y = clampY(b.1 + (b.3 - b.1) * t)
                for (px, py) in [(x, clampY(b.1)), (x, clampY(b.3)), (clampX(b.0), y), (clampX(b.2), y)] {
                    XCTAssertTrue(picture.isMark(px, py), "box \(box): (\(px), \(py)) is \(picture.pixel(px, py)), not the box colour",
                                  file: file, line: line)
                }
            }
        }
        var marks = 0, stray: [(Int, Int)] = []
        for y in 0..<picture.height {
            for x in 0..<picture.width where picture.isMark(x, y) {
                marks += 1
                if !nearOutline(x, y, of: outlines, margin: 6) { stray.append((x, y)) }
            }
        }
        XCTAssertEqual(stray.count, 0, "box-coloured pixels away from the boxes \(boxes), e.g. \(stray.prefix(5))",
                       file: file, line: line)
        return marks
    }

    private func motionHeader(_ reply: HTTPReply) throws -> [String: Any] {
        let text = try XCTUnwrap(reply.headers["x-plumb-motion"], "no X-Plumb-Motion: \(reply.headers)")
        return try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any], text)
    }

    /// A still picture first (never any motion: no box, the plain still), then the ball
    /// (motion now: its boxes drawn on the still, and only there), then the still picture
    /// again (motion ended: the last motion's boxes drawn on the same picture as before, every
    /// pixel away from them as in the plain still).
    func testTheSnapshotDrawsTheBoxesOfTheCurrentOrLastMotion() throws {
        let still = try TestPictures(self).grid()
        let serve = try ServeProcess(self, [
            "camera": ["device": "image:" + still.path, "size": "640x480",
                       "image-folder": still.deletingLastPathComponent().path],
            "motion": ["enabled": "true", "event": "false", "quiet-seconds": "1"],
        ])
        eventually("frames analysed", timeout: .seconds(60)) {
            ((try? serve.curl("GET", "/status").json())?["motion"] as? [String: Any])?["frames_analysed"] as? Int ?? 0 >= 5
        }
        let plain = try serve.curl("GET", "/motion/snapshot")
        XCTAssertEqual(plain.status, 200, plain.text)
        XCTAssertEqual(plain.headers["content-type"], "image/jpeg")
        let before = try motionHeader(plain)
        XCTAssertEqual(before["state"] as? String, "idle", "\(before)")
        XCTAssertEqual((before["boxes"] as? [Any])?.count, 0, "no motion yet: \(before)")
        XCTAssertTrue(before["time"] is NSNull, "\(before)")
        XCTAssertNotNil(plain.headers["x-plumb-photo"], "the still's facts")
        let unboxed = try decode(plain.body, in: serve.dir)
        XCTAssertEqual(unboxed.width, 640)
        XCTAssertEqual(checkMarks(unboxed, boxes: []), 0, "no box drawn")

        // The ball: the boxes of the motion now.
        XCTAssertEqual(try serve.curl("POST", "/camera?device=test").status, 200)
        eventually("motion in GET /motion", timeout: .seconds(60)) {
            (try? serve.curl("GET", "/motion").json())?["state"] as? String == "motion"
        }
        let moving = try serve.curl("GET", "/motion/snapshot")
        XCTAssertEqual(moving.status, 200, moving.text)
        let now = try motionHeader(moving)
        XCTAssertEqual(now["state"] as? String, "motion", "\(now)")
        let boxes = try XCTUnwrap(now["boxes"] as? [[String: Double]], "\(now)")
        XCTAssertFalse(boxes.isEmpty, "\(now)")
        XCTAssertNotNil(now["time"] as? String, "\(now)")
        let ball = try decode(moving.body, in: serve.dir)
        let drawn = checkMarks(ball, boxes: boxes)
        XCTAssertGreaterThan(drawn, 100, "the outlines are drawn")
        print("snapshot in motion: \(drawn) box-coloured pixels for \(boxes)")
        // For a person to look at.
        let artifacts = PlumbProcess.root.appendingPathComponent(".build/test-artifacts")
        try FileManager.default.createDirectory(at: artifacts, withIntermediateDirectories: true)
        try moving.body.write(to: artifacts.appendingPathComponent("motion-snapshot.jpg"))

        // The still picture again: motion ends; the last motion's boxes on the plain still.
        XCTAssertEqual(try serve.curl("POST", "/camera?device=image:\(still.path)").status, 200)
        eventually("motion to end in GET /motion", timeout: .seconds(60)) {
            let seen = try? serve.curl("GET", "/motion").json()
            return seen?["state"] as? String == "idle" && !(seen?["last_motion"] is NSNull)
        }
        let after = try serve.curl("GET", "/motion/snapshot")
        XCTAssertEqual(after.status, 200, after.text)
        let last = try motionHeader(after)
        XCTAssertEqual(last["state"] as? String, "idle", "the boxes are the last motion's: \(last)")
        let lastBoxes = try XCTUnwrap(last["boxes"] as? [[String: Double]], "\(last)")
        XCTAssertFalse(lastBoxes.isEmpty, "\(last)")
        let boxed = try decode(after.body, in: serve.dir)
        XCTAssertGreaterThan(checkMarks(boxed, boxes: lastBoxes), 100)
        // Away from the outlines, the picture is the plain still's (JPEG's noise aside).
        let outlines = lastBoxes.map { pixels($0, in: boxed) }
        var compared = 0, differ = 0
        for y in 0..<boxed.height {
            for x in 0..<boxed.width where !nearOutline(x, y, of: outlines, margin: 8) {
                compared += 1
                let a = boxed.pixel(x, y), b = unboxed.pixel(x, y)
                if abs(a.r - b.r) > 40 || abs(a.g - b.g) > 40 || abs(a.b - b.b) > 40 { differ += 1 }
            }
        }
        XCTAssertGreaterThan(compared, 640 * 480 / 4, "most of the picture is away from the boxes \(lastBoxes)")
        XCTAssertEqual(differ, 0, "\(differ) of \(compared) pixels away from the boxes differ from the plain still")
        print("snapshot after motion: \(lastBoxes); \(compared) pixels away from them as in the plain still")
        XCTAssertEqual(serve.stop().code, 0)
    }

    /// A device turned 90° clockwise: the still's pixels stay as the sensor gave them (EXIF
    /// Orientation 6 turns them upright), and the boxes, given in the upright picture, are
    /// drawn where they are in the picture a viewer shows upright.
    func testTheSnapshotsBoxesAreOnTheUprightPictureOfATurnedDevice() throws {
        let serve = try ServeProcess(self, [
            "camera": ["size": "640x480"],
            "rotation": ["accelerometer": "replay:-"],
            "motion": ["enabled": "true", "event": "false"],
        ], withInput: true)
        serve.feed("0 0 9.81 0")  // upright
        serve.feed("100 -9.81 0 0")  // 90° clockwise
        eventually("orientation 90 in /status", timeout: .seconds(60)) {
            (try? serve.curl("GET", "/status").json())?["orientation"] as? Int == 90
        }
        // Motion frames analysed at the new angle: the newest one's time moves on.
        func lastTime() -> String? {
            ((try? serve.curl("GET", "/motion").json())?["last_motion"] as? [String: Any])?["time"] as? String
        }
        eventually("motion", timeout: .seconds(60)) { lastTime() != nil }
        let first = lastTime()
        eventually("a newer motion frame", timeout: .seconds(60)) { lastTime() != first }
        let reply = try serve.curl("GET", "/motion/snapshot")
        XCTAssertEqual(reply.status, 200, reply.text)
        let boxes = try XCTUnwrap(try motionHeader(reply)["boxes"] as? [[String: Double]])
        XCTAssertFalse(boxes.isEmpty)
        let still = try decode(reply.body, in: serve.dir)
        XCTAssertEqual(still.width, 640, "the still's pixels are not turned")
        XCTAssertEqual(still.orientation, 6, "EXIF turns the still upright")
        let upright = still.upright()
        XCTAssertEqual(upright.width, 480)
        XCTAssertGreaterThan(checkMarks(upright, boxes: boxes), 100)
        XCTAssertEqual(serve.stop().code, 0)
    }

    /// The ball moves: a mask over all of its path, set by PATCH /motion, ends the motion
    /// and no more starts while it holds, without the camera reopening; a bad rectangle is a
    /// 400 naming it and changes nothing; an empty mask lets the ball be motion again.
    func testAMaskSetWhileRunningStopsTheBallsMotion() throws {
        let serve = try ServeProcess(self, [
            "camera": ["size": "640x480"],
            "motion": ["enabled": "true", "event": "false", "quiet-seconds": "1"],
        ])
        let tap = try EventTap(serve, self)
        func motion() -> [String: Any] { (try? serve.curl("GET", "/motion").json()) ?? [:] }
        func patch(_ body: String) throws -> HTTPReply {
            try serve.curl("PATCH", "/motion", extra: ["-H", "Content-Type: application/json", "--data", body])
        }
        eventually("motion in GET /motion: \(motion())", timeout: .seconds(60)) { motion()["state"] as? String == "motion" }
        XCTAssertEqual(motion()["mask"] as? [[Double]], [], "no mask in the config")

        let masked = try patch(#"{"mask": [[0, 0, 1, 1]]}"#)
        XCTAssertEqual(masked.status, 200, masked.text)
        let answer = try masked.json()
        XCTAssertEqual(answer["mask"] as? [[Double]], [[0, 0, 1, 1]], masked.text)
        XCTAssertEqual(answer["config_line"] as? String, "mask = 0,0,1,1", masked.text)
        eventually("motion to end under the mask: \(motion())", timeout: .seconds(60)) { motion()["state"] as? String == "idle" }
        let starts = tap.named("motion").filter { $0.data["motion"] as? String == "started" }.count
        // 15 frames at 5 per second under the mask: 3 s of the ball, none of it motion.
        let status = { ((try? serve.curl("GET", "/status").json())?["motion"] as? [String: Any]) ?? [:] }
        let from = status()["frames_analysed"] as? Int ?? 0
        eventually("15 more frames analysed: \(status())", timeout: .seconds(60)) {
            status()["frames_analysed"] as? Int ?? 0 >= from + 15
        }
        XCTAssertEqual(motion()["state"] as? String, "idle")
        XCTAssertEqual(tap.named("motion").filter { $0.data["motion"] as? String == "started" }.count, starts, tap.raw)

        // Bad masks: 400 naming the rectangle, the mask in force unchanged.
        let outside = try patch(#"{"mask": [[0, 0, 0.5, 0.5], [0.5, 0.5, 0.8, 0.1]]}"#)
        XCTAssertEqual(outside.status, 400, outside.text)
        XCTAssertTrue(outside.error.contains("mask rectangle 2 [0.5, 0.5, 0.8, 0.1] must lie inside the picture"), outside.text)
        let short = try patch(#"{"mask": [[0, 0, 1]]}"#)
        XCTAssertEqual(short.status, 400, short.text)
        XCTAssertTrue(short.error.contains("mask rectangle 1 ([0,0,1]) must be [x, y, width, height]"), short.text)
        let booleans = try patch(#"{"mask": [[false, false, true, true]]}"#)
        XCTAssertEqual(booleans.status, 400, booleans.text)
        XCTAssertTrue(booleans.error.contains("mask rectangle 1 ([false,false,true,true]) must be [x, y, width, height]"), booleans.text)
        let other = try patch(#"{"sensitivity": 1, "mask": []}"#)
        XCTAssertEqual(other.status, 400, other.text)
        XCTAssertTrue(other.error.contains("sensitivity cannot be changed while running"), other.text)
        let notJSON = try patch("mask=0,0,1,1")
        XCTAssertEqual(notJSON.status, 400, notJSON.text)
        XCTAssertTrue(notJSON.error.contains(#"send {"mask": [[x, y, width, height], ...]}"#), notJSON.text)
        XCTAssertEqual(motion()["mask"] as? [[Double]], [[0, 0, 1, 1]], "a refused PATCH changed the mask")

        // No mask: the ball is motion again.
        let cleared = try patch(#"{"mask": []}"#)
        XCTAssertEqual(cleared.status, 200, cleared.text)
        XCTAssertEqual(try cleared.json()["config_line"] as? String, "mask = ", cleared.text)
        eventually("motion again without the mask: \(motion())", timeout: .seconds(60)) { motion()["state"] as? String == "motion" }
        let stopped = serve.stop()
        XCTAssertEqual(stopped.code, 0)
        XCTAssertEqual(stopped.log.components(separatedBy: "camera open:").count - 1, 1, "the camera reopened: \(stopped.log)")
    }

    /// Motion off: the snapshot and PATCH are 409 saying what to set; GET /motion says off.
    func testMotionOffIsA409SayingWhatToSet() throws {
        let serve = try ServeProcess(self)
        let snapshot = try serve.curl("GET", "/motion/snapshot")
        XCTAssertEqual(snapshot.status, 409, snapshot.text)
        XCTAssertTrue(snapshot.error.contains("set [motion] enabled = true"), snapshot.text)
        let patch = try serve.curl("PATCH", "/motion", extra: ["--data", #"{"mask": []}"#])
        XCTAssertEqual(patch.status, 409, patch.text)
        XCTAssertTrue(patch.error.contains("set [motion] enabled = true"), patch.text)
        let settings = try serve.curl("GET", "/motion").json()
        XCTAssertEqual(settings["enabled"] as? Bool, false)
        XCTAssertTrue(settings["state"] is NSNull, "\(settings)")
        XCTAssertEqual(serve.stop().code, 0)
    }
}
