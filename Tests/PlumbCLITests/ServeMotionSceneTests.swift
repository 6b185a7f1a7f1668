import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Synchronization
import PlumbTestSupport
import XCTest

/// Motion scenes on a real `plumb serve`, made with its own `image:` camera and its camera
/// switch (`POST /camera`): a still scene (a grid, drawn by ffmpeg) and the same scene with an
/// object covering a tenth of the picture. Counts are the detector's analysis frames
/// (`/status` `motion` `frames_analysed`, the event's `frame`), never the wall clock.
final class ServeMotionSceneTests: XCTestCase {
    /// A rectangle of the picture in pixels (640x480) and normalised.
    struct Object {
        var x: Int, y: Int, width: Int, height: Int
        var box: [String: Double] {
            ["x": Double(x) / 640, "y": Double(y) / 480, "width": Double(width) / 640, "height": Double(height) / 480]
        }
    }
    /// Each a tenth of the 640x480 picture (192x160), apart.
    static let first = Object(x: 360, y: 240, width: 192, height: 160)
    static let second = Object(x: 64, y: 48, width: 192, height: 160)

    /// The scene, a grid on white, with `objects` drawn over it as filled blue-grey boxes
    /// (ffmpeg's drawgrid and drawbox), in `folder`.
    func scene(_ name: String, in folder: URL, objects: [Object] = []) throws -> URL {
        let url = folder.appendingPathComponent("\(name).png")
        var filter = "color=white:s=640x480,drawgrid=w=40:h=40:t=2:c=black"
        for o in objects { filter += ",drawbox=x=\(o.x):y=\(o.y):w=\(o.width):h=\(o.height):c=0x3060C0:t=fill" }
        let r = try PlumbProcess.run(PlumbProcess.tool("ffmpeg"), ["-v", "error", "-y", "-f", "lavfi", "-i", filter,
                                                                 "-frames:v", "1", "-pix_fmt", "rgb24", url.path])
        XCTAssertEqual(r.code, 0, r.stderr)
        return url
    }

    /// `GET /status`'s `motion` (empty when it cannot be read).
    func motionStatus(_ serve: ServeProcess) -> [String: Any] {
        guard let (_, body) = try? request(serve, "GET", "/status"),
              let root = try? JSONSerialization.jsonObject(with: body) as? [String: Any] else { return [:] }
        return root["motion"] as? [String: Any] ?? [:]
    }

    func frames(_ serve: ServeProcess) -> Int { motionStatus(serve)["frames_analysed"] as? Int ?? 0 }

    /// Waits until the detector has analysed `count` more frames than now.
    func waitForFrames(_ count: Int, _ serve: ServeProcess, file: StaticString = #filePath, line: UInt = #line) {
        let from = frames(serve)
        eventually("\(count) more frames analysed: \(motionStatus(serve))", timeout: .seconds(Double(count) + 60),
                   every: .milliseconds(50), file: file, line: line) { self.frames(serve) >= from + count }
    }

    /// Switches the camera to `picture`; the detector's frame counts just before the request and
    /// just after the answer (by URLSession in this process, as every request here: a curl
    /// process's start and end would let frames of the new picture be analysed before `after`
    /// is read).
    func switchTo(_ picture: URL, _ serve: ServeProcess, file: StaticString = #filePath,
                  line: UInt = #line) throws -> (before: Int, after: Int) {
        let before = frames(serve)
        let (status, body) = try request(serve, "POST", "/camera?device=image:\(picture.path)")
        XCTAssertEqual(status, 200, String(decoding: body, as: UTF8.self), file: file, line: line)
        return (before, frames(serve))
    }

    /// One request to the daemon by URLSession, waited for: the status and the body.
    func request(_ serve: ServeProcess, _ method: String, _ path: String) throws -> (Int, Data) {
        let url = try XCTUnwrap(URL(string: serve.http + path.addingPercentEncoding(withAllowedCharacters: .urlQueryAllowed)!))
        var request = URLRequest(url: url, timeoutInterval: 60)
        request.httpMethod = method
        if let token = serve.token { request.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization") }
        let answer = Mutex<(Int, Data)?>(nil)
        let done = DispatchSemaphore(value: 0)
        URLSession.shared.dataTask(with: request) { data, response, _ in
            answer.withLock { $0 = ((response as? HTTPURLResponse)?.statusCode ?? 0, data ?? Data()) }
            done.signal()
        }.resume()
        done.wait()
        return try XCTUnwrap(answer.withLock { $0 }, "no answer to \(method) \(path)")
    }

    /// `box` is `expected` within `tolerance` on each edge.
    func assertBox(_ box: [String: Double]?, _ expected: [String: Double], tolerance: Double = 0.025,
                   file: StaticString = #filePath, line: UInt = #line) {
        guard let box else { return XCTFail("no box, expected \(expected)", file: file, line: line) }
        for key in ["x", "y", "width", "height"] {
            XCTAssertEqual(box[key] ?? -1, expected[key] ?? -2, accuracy: tolerance, "\(key): \(box) vs \(expected)",
                           file: file, line: line)
        }
    }

    /// A still scene is quiet for a minute of analysis frames (300 at 5 per second); a switch to
    /// the same picture is neither motion nor a lighting change (the picture did not change);
    /// the switch to the scene with an object is motion, found within two analysis frames of
    /// the switch (min-frames 2: the first two frames of the new picture), its box around the
    /// object, and not a lighting change.
    func testAStillSceneIsQuietAndAnObjectIsFoundWithinTwoFrames() throws {
        let folder = try temporaryDirectory(self)
        let still = try scene("still", in: folder)
        let object = try scene("object", in: folder, objects: [Self.first])
        let serve = try ServeProcess(self, [
            "camera": ["device": "image:" + still.path, "size": "640x480", "image-folder": folder.path],
            "motion": ["enabled": "true", "event": "false"],
        ])
        let tap = try EventTap(serve, self)
        waitForFrames(300, serve)
        XCTAssertTrue(tap.named("motion").isEmpty, tap.raw)
        XCTAssertEqual(motionStatus(serve)["state"] as? String, "idle")

        // The same picture again through a real switch (the source rebuilt): nothing changed.
        _ = try switchTo(still, serve)
        waitForFrames(10, serve)
        XCTAssertTrue(tap.named("motion").isEmpty, tap.raw)
        XCTAssertEqual(motionStatus(serve)["lighting_changes"] as? Int, 0, "\(motionStatus(serve))")

        let (before, after) = try switchTo(object, serve)
        eventually(tap.raw + serve.log, timeout: .seconds(60)) { !tap.named("motion").isEmpty }
        let started = try XCTUnwrap(tap.named("motion").first).data
        XCTAssertEqual(started["motion"] as? String, "started", "\(started)")
        let frame = try XCTUnwrap(started["frame"] as? Int, "\(started)")
        // Two frames of the new picture at least (min-frames), and found by the second after
        // the switch answered (its first frame had reached the tee by then).
        XCTAssertGreaterThanOrEqual(frame, before + 2, "\(started), switch at \(before)...\(after)")
        XCTAssertLessThanOrEqual(frame, after + 2, "\(started), switch at \(before)...\(after)")
        let boxes = try XCTUnwrap(started["boxes"] as? [[String: Double]], "\(started)")
        XCTAssertEqual(boxes.count, 1, "one object: \(boxes)")
        assertBox(boxes.first, Self.first.box)
        XCTAssertEqual(started["fraction"] as? Double ?? 0, 0.1, accuracy: 0.02, "\(started)")
        let now = motionStatus(serve)
        XCTAssertEqual(now["state"] as? String, "motion", "\(now)")
        XCTAssertEqual(now["lighting_changes"] as? Int, 0, "a switch is no lighting change: \(now)")
        XCTAssertEqual(serve.stop().code, 0)
    }

    /// The object inside a `[motion] mask` is no motion over many analysis frames; a second
    /// object outside it then is, its box the one seen (unturned: the picture's own place).
    func testAnObjectInsideAMaskIsNoMotion() throws {
        let box = try maskedThenFound(accelerometer: "fixed:0", mask: "0.53,0.47,0.36,0.4")
        assertBox(box, Self.second.box)
    }

    /// The device turned a quarter clockwise (`[rotation] accelerometer = fixed:90`): the mask,
    /// given in the upright picture where the first object now is, still hides it, and the
    /// second object's box is in the upright picture: the unturned box turned a quarter
    /// clockwise, (x, y, w, h) -> (1 - y - h, x, h, w).
    func testATurnedDeviceKeepsMasksAndBoxesOnTheScene() throws {
        let o = Self.first.box
        let upright = [1 - o["y"]! - o["height"]!, o["x"]!, o["height"]!, o["width"]!]
        // The first object in the upright picture: inside the mask given below.
        XCTAssertEqual(upright.map { ($0 * 1000).rounded() / 1000 }, [0.167, 0.563, 0.333, 0.3])
        let box = try maskedThenFound(accelerometer: "fixed:90", mask: "0.13,0.53,0.4,0.36")
        let s = Self.second.box
        assertBox(box, ["x": 1 - s["y"]! - s["height"]!, "y": s["x"]!, "width": s["height"]!, "height": s["width"]!])
    }

    /// A daemon on the still scene with `mask`: the switch to the first object (inside the mask)
    /// is no motion over 25 analysis frames, nor a lighting change; the switch on to the second
    /// object (outside it) is motion. Its box.
    func maskedThenFound(accelerometer: String, mask: String, file: StaticString = #filePath,
                         line: UInt = #line) throws -> [String: Double]? {
        let folder = try temporaryDirectory(self)
        let still = try scene("still", in: folder)
        let first = try scene("first", in: folder, objects: [Self.first])
        let second = try scene("second", in: folder, objects: [Self.second])
        let serve = try ServeProcess(self, [
            "camera": ["device": "image:" + still.path, "size": "640x480", "image-folder": folder.path],
            "rotation": ["accelerometer": accelerometer],
            "motion": ["enabled": "true", "event": "false", "mask": mask],
        ])
        defer { _ = serve.stop() }
        let tap = try EventTap(serve, self)
        waitForFrames(10, serve)
        _ = try switchTo(first, serve, file: file, line: line)
        waitForFrames(25, serve)
        XCTAssertTrue(tap.named("motion").isEmpty, "the masked object: \(tap.raw)", file: file, line: line)
        XCTAssertEqual(motionStatus(serve)["lighting_changes"] as? Int, 0, "\(motionStatus(serve))", file: file, line: line)
        _ = try switchTo(second, serve, file: file, line: line)
        eventually(tap.raw + serve.log, timeout: .seconds(60), file: file, line: line) { !tap.named("motion").isEmpty }
        let started = try XCTUnwrap(tap.named("motion").first, file: file, line: line).data
        XCTAssertEqual(started["motion"] as? String, "started", "\(started)", file: file, line: line)
        let boxes = started["boxes"] as? [[String: Double]] ?? []
        XCTAssertEqual(boxes.count, 1, "the second object only (the first went inside the mask): \(started)", file: file, line: line)
        return boxes.first
    }

    /// Motion starts an event clip that begins `pre-seconds` before it: in the clip as ffmpeg
    /// decodes it, the object (the motion) first shows `pre-seconds` after the first frame,
    /// less the detection's two analysis frames, and at most a GOP (1 s) more since a clip
    /// starts at a keyframe; the event's time is at least `pre-seconds` after the clip's first
    /// frame; the facts say motion started it.
    func testAMotionClipStartsPreSecondsBeforeTheMotion() throws {
        let folder = try temporaryDirectory(self)
        let still = try scene("still", in: folder)
        let object = try scene("object", in: folder, objects: [Self.first])
        let pre = 2.0
        let serve = try ServeProcess(self, [
            "camera": ["device": "image:" + still.path, "size": "640x480", "image-folder": folder.path],
            "events": ["pre-seconds": "2", "post-seconds": "1", "max-seconds": "10"],
            "motion": ["enabled": "true", "quiet-seconds": "0"],
        ])
        let tap = try EventTap(serve, self)
        // More than pre-seconds and a GOP of the still scene in the ring (5 analysis frames a second).
        waitForFrames(25, serve)
        _ = try switchTo(object, serve)
        eventually(tap.raw + serve.log, timeout: .seconds(60)) { !tap.named("motion").isEmpty }
        let started = try XCTUnwrap(tap.named("motion").first).data
        XCTAssertEqual(started["motion"] as? String, "started", "\(started)")
        // The object goes (the background never learnt it): motion ends, the clip post-seconds later.
        _ = try switchTo(still, serve)
        eventually(tap.raw + serve.log, timeout: .seconds(60)) { !tap.named("event").isEmpty }
        let clip = try XCTUnwrap(tap.named("event").first).data
        let facts = try XCTUnwrap(clip["facts"] as? [String: Any], "\(clip)")
        XCTAssertEqual(facts["started_by"] as? String, "motion", "\(facts)")
        XCTAssertEqual(facts["state"] as? String, "finished", "\(facts)")
        XCTAssertEqual(facts["pre_seconds"] as? Double, pre, "\(facts)")
        let path = serve.folder.appendingPathComponent(try XCTUnwrap(clip["file"] as? String)).path
        XCTAssertEqual(serve.stop().code, 0)

        // The clip as ffmpeg decodes it: the first frame's time, and where the object shows.
        let (first, appears) = try objectAppearance(in: path)
        let appear = try XCTUnwrap(appears, "the object never shows in the clip")
        let seen = appear - first
        let detection = 2.0 / 5
        XCTAssertGreaterThanOrEqual(seen, pre - detection, "the clip starts pre-seconds before motion was found")
        XCTAssertLessThanOrEqual(seen, pre + 1 + detection, "and no more than a GOP earlier")
        let duration = try XCTUnwrap(try IndependentReaders.ffprobeDuration(path))
        XCTAssertGreaterThan(duration, seen, "the clip goes on after the motion: \(duration) s")

        // The wall clock: the motion event's time against the clip's first frame.
        let iso = ISO8601DateFormatter()
        iso.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        let motionAt = try XCTUnwrap(iso.date(from: started["time"] as? String ?? ""), "\(started)")
        let firstAt = try XCTUnwrap(iso.date(from: facts["first_frame_at"] as? String ?? ""), "\(facts)")
        XCTAssertGreaterThanOrEqual(motionAt.timeIntervalSince(firstAt), pre, "\(started) \(facts)")
        XCTAssertLessThanOrEqual(motionAt.timeIntervalSince(firstAt), pre + 1.5, "\(started) \(facts)")
    }

    /// ffmpeg's mean grey level inside the first object's place, each frame (signalstats): the
    /// first frame's time, and the time of the first frame where the object (darker than the
    /// white scene around the grid lines) shows.
    func objectAppearance(in path: String) throws -> (first: Double, appears: Double?) {
        let o = Self.first
        let out = try runTool("ffmpeg", ["-v", "error", "-i", path, "-map", "0:v:0", "-vf",
                                         "crop=\(o.width):\(o.height):\(o.x):\(o.y),signalstats,"
                                         + "metadata=print:key=lavfi.signalstats.YAVG:file=-", "-f", "null", "-"])
        var times: [(Double, Double)] = []
        var time: Double?
        for line in out.split(separator: "\n") {
            if let r = line.range(of: "pts_time:") {
                time = Double(line[r.upperBound...].prefix { !$0.isWhitespace })
            } else if let r = line.range(of: "YAVG="), let t = time, let y = Double(line[r.upperBound...]) {
                times.append((t, y))
            }
        }
        let first = try XCTUnwrap(times.first, "no frame decoded: \(out)").0
        // The grid on white averages above 200; the blue-grey object below 120.
        return (first, times.first { $0.1 < 160 }?.0)
    }
}
