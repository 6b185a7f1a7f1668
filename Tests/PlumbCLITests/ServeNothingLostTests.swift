import Foundation
import PlumbTestSupport
import XCTest

/// Issue 26's "nothing lost": a continuous recording across an RTSP consumer's arrival and
/// departure, a camera switch and back, device turns and segment splits keeps every frame,
/// by ffprobe.
final class ServeNothingLostTests: XCTestCase {
    func testARecordingAcrossAConsumerASwitchAndSplitsKeepsEveryFrame() throws {
        let images = try temporaryDirectory(self)
        try IndependentReaders.gstLaunch("videotestsrc num-buffers=1 pattern=ball ! video/x-raw,width=320,height=240 "
            + "! jpegenc ! filesink location=\(images.appendingPathComponent("a.jpg").path)")
        let serve = try ServeProcess(self, ["recording": ["continuous": "true", "segment-seconds": "3"],
                                            "camera": ["image-folder": images.path]])
        let tap = try EventTap(serve, self)
        XCTAssertTrue(eventually(tap.raw, timeout: .seconds(30)) { !tap.named("recording-started").isEmpty })

        let client = try RTSPClient(serve.rtsp, frames: 30)
        XCTAssertTrue(RTSPClient.gotEveryFrame(client.finish(timeout: 60)), "the RTSP consumer got no frames")
        XCTAssertEqual(try serve.curl("POST", "/camera?device=image:a.jpg").status, 200)
        XCTAssertEqual(try serve.curl("POST", "/camera?device=test").status, 200)
        XCTAssertTrue(eventually(tap.raw, timeout: .seconds(60)) { tap.named("recording-stopped").count >= 2 })
        let files = try stopAndCheckEveryFile(serve, tap)
        XCTAssertGreaterThanOrEqual(files.count, 3, "the recording was not split")
    }

    /// `[rotation] split-on-rotation`: a turn and a turn back roll the recording to a new
    /// file each (no timed segments here, so exactly three files), each file carries the
    /// angle it was recorded at, and an RTSP consumer came and went at each angle — the turned
    /// one on the preview's own, turned encoder — without a frame missing from any file.
    func testARecordingSplitOnEachTurnKeepsEveryFrame() throws {
        let (serve, tap) = try recordAcrossTurns(split: true, segmentSeconds: 0, filesPerAngle: 1)
        let files = try stopAndCheckEveryFile(serve, tap)
        XCTAssertEqual(files.map(\.angle), [0, 90, 0], "one file per angle, in turn order: \(files)")
        try assertSeamless(files)
    }

    /// Without split-on-rotation a turn cuts no file: the timed segments go on (every file but
    /// the last holds at least segment-seconds of frames by ffprobe), each with the angle of
    /// its start — the files that began while the device was turned carry 90°.
    func testARecordingAcrossTurnsWithoutSplittingKeepsEveryFrame() throws {
        let (serve, tap) = try recordAcrossTurns(split: false, segmentSeconds: 3, filesPerAngle: 2)
        let files = try stopAndCheckEveryFile(serve, tap)
        try assertSeamless(files)
        for file in files.dropLast() {
            XCTAssertGreaterThanOrEqual(Double(file.frames), 3 * ServeProcess.fps - Double(file.lost),
                                        "\(file.name): cut short, by a turn? \(files)")
        }
        // The angle changes between two files, never inside one; the file under way at a turn
        // and the first one after it may hold either angle (the turn's announcement and the
        // session's own follow race), every other file the angle announced before its start.
        XCTAssertEqual(files.map(\.angle).reduce(into: [Int]()) { if $0.last != $1 { $0.append($1) } }, [0, 90, 0], "\(files)")
        let events = tap.events.filter { $0.name == "orientation" || $0.name == "recording-started" }
        var angle = 0, justTurned = true  // the first file began before the tap and any turn
        var announced: [String: (angle: Int, nearTurn: Bool)] = [:]
        for (i, event) in events.enumerated() {
            if event.name == "orientation" {
                angle = try XCTUnwrap(event.data["angle"] as? Int)
                justTurned = true
            } else if let name = event.data["file"] as? String {
                let nextIsTurn = events.dropFirst(i + 1).first?.name == "orientation"
                announced[name] = (angle, justTurned || nextIsTurn)
                justTurned = false
            }
        }
        announced[files[0].name] = (0, false)
        for file in files {
            let start = try XCTUnwrap(announced[file.name], "\(file.name) never announced: \(tap.raw)")
            if !start.nearTurn { XCTAssertEqual(file.angle, start.angle, "\(file.name): \(files)") }
        }
    }

    // MARK: Helpers

    /// A daemon recording continuously with a replayed accelerometer, through: an RTSP consumer
    /// upright, a turn to 90° and a consumer of the turned preview (240x320), then upright
    /// again; after each turn it waits for `filesPerAngle` more files to begin.
    private func recordAcrossTurns(split: Bool, segmentSeconds: Int, filesPerAngle: Int) throws -> (ServeProcess, EventTap) {
        let serve = try ServeProcess(self, [
            "camera": ["device": "test:clock"],  // each frame's capture time in its pixels: the seams' proof
            "rotation": ["accelerometer": "replay:-", "split-on-rotation": String(split)],
            "recording": ["continuous": "true", "segment-seconds": String(segmentSeconds)],
        ], withInput: true)
        serve.feed("0 0 9.81 0")  // upright
        let tap = try EventTap(serve, self)
        XCTAssertTrue(eventually(serve.log, timeout: .seconds(30)) { serve.log.contains("recording to ") })
        var client = try RTSPClient(serve.rtsp, frames: 30, caps: "video/x-raw,width=320,height=240")
        XCTAssertTrue(RTSPClient.gotEveryFrame(client.finish(timeout: 60)), "the upright RTSP consumer")

        // Replayed samples (milliseconds, then x y z in m/s²): gravity along -x is a quarter turn.
        for (count, sample, angle) in [(1, "100 -9.81 0 0", 90), (2, "200 0 9.81 0", 0)] {
            let begun = tap.named("recording-started").count
            serve.feed(sample)
            XCTAssertTrue(eventually(tap.raw, timeout: .seconds(30)) { tap.named("orientation").count >= count })
            XCTAssertEqual(tap.named("orientation").last?.data["angle"] as? Int, angle)
            if angle == 90 {
                client = try RTSPClient(serve.rtsp, frames: 30, caps: "video/x-raw,width=240,height=320")
                XCTAssertTrue(RTSPClient.gotEveryFrame(client.finish(timeout: 60)), "the turned RTSP consumer")
            }
            XCTAssertTrue(eventually(tap.raw, timeout: .seconds(60)) {
                tap.named("recording-started").count >= begun + filesPerAngle
            })
        }
        // A second in the last file too, so that each seam has frames on both sides to read.
        let last = try XCTUnwrap(tap.named("recording-started").last?.data["file"] as? String)
        serve.waitForRecordedFrames(30, in: last)
        return (serve, tap)
    }

    /// One file of a stopped recording as ffprobe and exiftool read it, with its facts.
    struct RecordedFile: CustomStringConvertible {
        var path: String
        var name: String
        var frames: Int
        var lost: Int
        var angle: Int
        var description: String { "\(name): \(frames) frames at \(angle)°" }
    }

    /// Stops the recording and checks every file of it by ffprobe against its facts (the
    /// `recording-stopped` events): frames, a first keyframe, no timestamp gap beyond the
    /// frames the facts say were lost, a clean decode, and the angle (ffprobe's matrix and
    /// exiftool's agree with the facts'). The files in recording order.
    @discardableResult
    private func stopAndCheckEveryFile(_ serve: ServeProcess, _ tap: EventTap) throws -> [RecordedFile] {
        let stop = try serve.curl("POST", "/recording/stop")
        XCTAssertEqual(stop.status, 200, stop.text)
        // The reply names every file of the recording; each has its facts in a recording-stopped.
        let names = try XCTUnwrap(try stop.json()["files"] as? [String])
        XCTAssertTrue(eventually(tap.raw, timeout: .seconds(30)) { tap.named("recording-stopped").count >= names.count })

        var files: [RecordedFile] = []
        var factsFrames = 0, probedFrames = 0, gaps = 0, lost = 0
        for event in tap.named("recording-stopped") {
            let facts = try XCTUnwrap(event.data["facts"] as? [String: Any])
            let path = try XCTUnwrap(facts["file"] as? String)
            let frames = try XCTUnwrap(facts["frames"] as? Int), fileLost = try XCTUnwrap(facts["frames_lost"] as? Int)
            factsFrames += frames
            lost += fileLost
            let probed = try IndependentReaders.ffprobeFrameCount(path)
            probedFrames += probed
            let packets = try PlumbProcess.run(PlumbProcess.tool("ffprobe"), ["-v", "error", "-select_streams", "v",
                "-show_entries", "packet=pts_time,flags", "-of", "csv=p=0", path]).stdout
                .split(separator: "\n").map { $0.split(separator: ",") }
            XCTAssertEqual(packets.first?.last.map(String.init)?.hasPrefix("K"), true, "\(path) starts off a keyframe")
            let times = packets.compactMap { Double($0[0]) }.sorted()
            gaps += zip(times, times.dropFirst()).map { $1 - $0 - 1 / ServeProcess.fps }
                .reduce(0) { $0 + Int(($1 * ServeProcess.fps).rounded()) }
            let decoded = try PlumbProcess.run(PlumbProcess.tool("ffmpeg"), ["-nostdin", "-v", "warning", "-i", path, "-f", "null", "-"])
            XCTAssertEqual(decoded.stderr, "", "\(path) does not decode cleanly")
            let angle = try XCTUnwrap(try IndependentReaders.ffprobeClockwise(path), path).degrees
            XCTAssertEqual(try IndependentReaders.exiftool("Rotation", path), angle, "\(path): exiftool against ffprobe")
            XCTAssertEqual(facts["rotation"] as? Int, angle, "\(path): the facts against ffprobe")
            files.append(RecordedFile(path: path, name: URL(fileURLWithPath: path).lastPathComponent, frames: probed, lost: fileLost, angle: angle))
        }
        // Files finalize in the background, so their events may come out of order.
        XCTAssertEqual(files.map(\.name).sorted(), names.sorted(), "a recording-stopped for each file")
        files.sort { (names.firstIndex(of: $0.name) ?? 0) < (names.firstIndex(of: $1.name) ?? 0) }
        XCTAssertEqual(probedFrames, factsFrames, "ffprobe's frames against the facts'")
        XCTAssertEqual(gaps, lost, "frames missing between timestamps against the facts' frames_lost")
        print("nothing-lost: files \(files.count) frames \(probedFrames) missing \(gaps) lost \(lost) angles \(files.map(\.angle))")
        return files
    }

    /// Each file begins on the frame after the previous file's last, by the capture times
    /// the "test:clock" camera drew into the pixels (decoded by ffmpeg, with ffprobe's
    /// timestamps): the clock at each file's time 0 is the least of (stamp − timestamp) over
    /// its frames (a stamp is drawn as its frame leaves the source, at or after its time), so
    /// the next file's time 0 comes one frame (33 ms) after the previous file's last frame;
    /// two frames (a frame lost between the files) or none (one in both) fail.
    private func assertSeamless(_ files: [RecordedFile], file: StaticString = #filePath, line: UInt = #line) throws {
        let frame = 1000 / ServeProcess.fps
        var reference: Int?
        // Per file: the clock (ms, against the first stamp read) at its time 0, its first and last frames' times.
        let clocks = try files.map { recorded -> (zero: Double, first: Double, last: Double) in
            let frames = try Self.pixelClock(recorded.path)
            let read = frames.compactMap { f in f.stamp.map { (pts: f.pts, stamp: Int($0)) } }
            XCTAssertGreaterThanOrEqual(read.count, frames.count - 2, "\(recorded.name): stamps unread", file: file, line: line)
            XCTAssertGreaterThanOrEqual(read.count, 15, "\(recorded.name): too few frames to time", file: file, line: line)
            let zero = read.map { f -> Double in
                let first = reference ?? f.stamp
                reference = first
                // Milliseconds modulo 2^24: the difference to the first stamp, wrapped to ±2^23.
                var since = (f.stamp - first) & 0xFF_FFFF
                if since >= 0x80_0000 { since -= 0x100_0000 }
                return Double(since) - f.pts * 1000
            }.min() ?? .nan
            return (zero, (frames.first?.pts ?? 0) * 1000, (frames.last?.pts ?? 0) * 1000)
        }
        var seams: [Double] = []
        for (a, b) in zip(clocks, clocks.dropFirst()) { seams.append(b.zero + b.first - (a.zero + a.last)) }
        print("nothing-lost seams: \(seams.map { String(format: "%.1f", $0) }) ms from a file's last frame to the next one's first")
        for (i, gap) in seams.enumerated() {
            XCTAssertEqual(gap, frame, accuracy: frame / 2, "between \(files[i].name) and \(files[i + 1].name): "
                           + "\(Int((gap / frame).rounded()) - 1) frames missing", file: file, line: line)
        }
    }

    /// The "test:clock" camera's stamps in a 320x240 file (Sources/Plumb/Session/PixelClock.swift:
    /// 32 blocks across the top of the luma, black 0 and white 1, 24 bits of milliseconds and
    /// an 8-bit XOR check), with each frame's time (s) by ffprobe; nil where the check fails.
    static func pixelClock(_ path: String) throws -> [(pts: Double, stamp: UInt32?)] {
        let (width, bits) = (320, 32)
        let row = URL(fileURLWithPath: path + ".row")
        defer { try? FileManager.default.removeItem(at: row) }
        // The stored pixels (no autorotate: the matrix is not applied), the middle row of the blocks.
        let r = try PlumbProcess.run(PlumbProcess.tool("ffmpeg"), ["-nostdin", "-v", "error", "-noautorotate", "-i", path,
            "-map", "0:v:0", "-fps_mode", "passthrough", "-vf", "format=gray,crop=\(width):1:0:15", "-f", "rawvideo", "-y", row.path])
        guard r.code == 0 else { throw ServeTestError(description: "ffmpeg: \(r.stderr)") }
        let bytes = [UInt8](try Data(contentsOf: row))
        let times = try IndependentReaders.ffprobeFrameTimes(path)
        let block = width / bits
        let stamps = stride(from: 0, to: bytes.count - width + 1, by: width).map { start -> UInt32? in
            let code = (0..<bits).reduce(UInt32(0)) { $0 << 1 | (bytes[start + $1 * block + block / 2] >= 128 ? 1 : 0) }
            let value = code >> 8
            return ((value >> 16) ^ (value >> 8) ^ value) & 0xFF == code & 0xFF ? value : nil
        }
        guard stamps.count == times.count else {
            throw ServeTestError(description: "\(path): \(stamps.count) frames decoded, \(times.count) timed by ffprobe")
        }
        return zip(times, stamps).map { ($0, $1) }
    }
}
