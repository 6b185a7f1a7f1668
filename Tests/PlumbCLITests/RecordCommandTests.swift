import Foundation
import PlumbTestSupport
import XCTest

/// `plumb record` on the test pattern, checked with ffprobe: the frames and facts agree,
/// a signal finalizes the file, `kill -9` loses at most the last fragment, bad arguments
/// exit 2 and create nothing.
final class RecordCommandTests: XCTestCase {
    /// RecordingOptions' default fragment: what a crash may lose.
    private let fragment = 1.0

    private func facts(_ text: String) throws -> [String: Any] {
        let line = try XCTUnwrap(text.split(separator: "\n").last, "no facts in \(text)")
        return try XCTUnwrap(JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any], String(line))
    }

    private func fileSize(_ url: URL) throws -> Int {
        try XCTUnwrap(FileManager.default.attributesOfItem(atPath: url.path)[.size] as? Int)
    }

    /// ffprobe's box trace: a finalized (not only fragmented) MP4 has its index in a moov.
    private func hasMoov(_ url: URL) throws -> Bool {
        try PlumbProcess.run(PlumbProcess.tool("ffprobe"), ["-v", "trace", url.path]).stderr.contains("type:'moov'")
    }

    /// Starts a recording that would run `seconds`; returns once it says its first frame is in.
    /// Starts `plumb record` and returns when it says it records, with when it started: after
    /// the launch and before its line was read (a loaded machine reads it late).
    private func startRecording(_ file: URL, seconds: Int = 30) throws -> (Process, Pipe, Pipe, ClosedRange<Date>) {
        let launched = Date()
        let (p, o, e) = try PlumbProcess.start(PlumbProcess.binary, [
            "record", "--seconds", String(seconds), "--camera", "test", "--size", "320x240", "--fps", "30",
            "-o", file.path,
        ])
        guard PlumbProcess.waitFor("plumb record: recording ", in: e, timeout: 30) != nil else {
            kill(p.processIdentifier, SIGKILL)
            let r = PlumbProcess.finish(p, o, e, timeout: 10)
            XCTFail("the recording did not start: \(r.stderr)")
            throw CocoaError(.fileReadUnknown)
        }
        return (p, o, e, launched...Date())
    }

    func testTwoSecondsOfH264() throws {
        let dir = try temporaryDirectory(self)
        let file = dir.appendingPathComponent("two.mp4")
        let r = try PlumbProcess.plumb("record", "--seconds", "2", "--camera", "test", "--size", "320x240",
                                       "--fps", "30", "-o", file.path, timeout: 60)
        XCTAssertEqual(r.code, 0, r.stderr)
        XCTAssertTrue(r.stderr.contains("plumb record: recording \(file.path): h264 320x240 at 30 fps for 2 s"), r.stderr)
        XCTAssertFalse(r.stderr.contains("\r"), "no progress line when stderr is not a terminal: \(r.stderr)")
        let facts = try facts(r.stdout)
        let probe = try XCTUnwrap(Probe.read(file))
        XCTAssertEqual(probe.codec, "h264")
        XCTAssertEqual(probe.frames, 2 * 30, "frames = seconds × fps")
        XCTAssertEqual(probe.width, 320)
        XCTAssertEqual(probe.height, 240)
        XCTAssertTrue(try hasMoov(file))
        XCTAssertTrue(try ProbedVideo(file).firstPacketIsKeyframe)
        // The facts describe this file.
        XCTAssertEqual(facts["file"] as? String, file.path)
        XCTAssertEqual(facts["codec"] as? String, "h264")
        XCTAssertEqual(facts["encoder"] as? String, "x264enc")
        XCTAssertEqual(facts["frames"] as? Int, probe.frames)
        XCTAssertEqual(facts["width"] as? Int, probe.width)
        XCTAssertEqual(facts["height"] as? Int, probe.height)
        XCTAssertEqual(facts["bytes"] as? Int, try fileSize(file))
        XCTAssertEqual(facts["seconds"] as? Double ?? 0, probe.duration, accuracy: 0.1)
        XCTAssertNotNil(facts["started_at"] as? String)
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: dir.path), ["two.mp4"])
    }

    /// H.265 at another rate; without -o the name is timestamped in the current folder.
    func testH265WithADefaultName() throws {
        let dir = try temporaryDirectory(self)
        let r = try PlumbProcess.plumb("record", "--seconds", "1", "--camera", "test", "--size", "320x240",
                                       "--fps", "20", "--codec", "h265", cwd: dir, timeout: 60)
        XCTAssertEqual(r.code, 0, r.stderr)
        let facts = try facts(r.stdout)
        let path = try XCTUnwrap(facts["file"] as? String)
        let file = URL(fileURLWithPath: path)
        XCTAssertEqual(file.deletingLastPathComponent().path, dir.path)
        let name = file.lastPathComponent
        XCTAssertNotNil(try NSRegularExpression(pattern: #"^recording-\d{8}-\d{6}\.mp4$"#)
            .firstMatch(in: name, range: NSRange(name.startIndex..., in: name)), name)
        let probe = try XCTUnwrap(Probe.read(file))
        XCTAssertEqual(probe.codec, "hevc")
        XCTAssertEqual(facts["codec"] as? String, "h265")
        XCTAssertEqual(probe.frames, 20)
        XCTAssertEqual(facts["frames"] as? Int, probe.frames)
        XCTAssertEqual(facts["bytes"] as? Int, try fileSize(file))
    }

    /// `--seconds N` is N seconds on the frames' own clock: N × fps frames, less those the
    /// facts count as lost (none on an idle machine, some when the encoder falls behind),
    /// and a file N seconds long, in either codec, however late the stop comes after the last one.
    func testNSecondsAreExactlyNTimesFPSFramesAndNSeconds() throws {
        let dir = try temporaryDirectory(self)
        for (codec, seconds, fps) in [("h264", "1", 30), ("h264", "3", 30), ("h265", "1", 30), ("h265", "3", 30),
                                      ("h264", "2", 25), ("h265", "1.5", 20)] {
            let file = dir.appendingPathComponent("\(codec)-\(seconds)s-\(fps).mp4")
            let r = try PlumbProcess.plumb("record", "--seconds", seconds, "--fps", String(fps), "--codec", codec,
                                           "--camera", "test", "--size", "160x120", "-o", file.path, timeout: 60)
            let what = "\(codec), \(seconds) s at \(fps) fps"
            XCTAssertEqual(r.code, 0, "\(what): \(r.stderr)")
            let probe = try XCTUnwrap(Probe.read(file), what)
            let expected = Int(Double(seconds)! * Double(fps))
            let facts = try facts(r.stdout)
            let lost = try XCTUnwrap(facts["frames_lost"] as? Int, what)
            XCTAssertEqual(probe.frames + lost, expected, "\(what): frames ffprobe decoded, and those lost")
            XCTAssertEqual(facts["frames"] as? Int, probe.frames, what)
            XCTAssertEqual(lost > 0, r.stderr.contains("plumb record: warning: lost \(lost) of \(expected) frames"),
                           "\(what): \(r.stderr)")
            if lost == 0 {
                XCTAssertEqual(probe.duration, Double(seconds)!, accuracy: 0.001, "\(what): duration")
            } else {
                // The last frames may be among those lost on a busy machine.
                XCTAssertLessThanOrEqual(probe.duration, Double(seconds)! + 0.001, "\(what): duration")
            }
            XCTAssertEqual(facts["seconds"] as? Double ?? 0, probe.duration, accuracy: 0.001, what)
        }
    }

    /// A rate the pipeline cannot keep up with (1080p at 1000 fps is gigabytes a second of
    /// pattern to draw): the wall-clock backstop ends the recording, and the facts and stderr
    /// say the file is short and why, instead of a silent 0.7 s file for 1 s asked; exit 0.
    func testARecordingThatFallsBehindSaysSo() throws {
        let dir = try temporaryDirectory(self)
        let file = dir.appendingPathComponent("behind.mp4")
        let r = try PlumbProcess.plumb("record", "--seconds", "1", "--fps", "1000", "--camera", "test",
                                       "--size", "1920x1080", "-o", file.path, timeout: 120)
        XCTAssertEqual(r.code, 0, r.stderr)
        let facts = try facts(r.stdout)
        let reason = try XCTUnwrap(facts["cut_short"] as? String, r.stdout)
        XCTAssertTrue(reason.hasPrefix("the camera and the encoder could not keep up with 1920x1080 at 1000 fps"), reason)
        XCTAssertTrue(r.stderr.contains("plumb record: warning: \(reason)"), r.stderr)
        let probe = try XCTUnwrap(Probe.read(file))
        XCTAssertEqual(facts["frames"] as? Int, probe.frames)
        XCTAssertLessThan(probe.duration, 1)
        XCTAssertTrue(reason.contains("(\(probe.frames) frames) of the 1 s asked for"), reason)
    }

    /// Ctrl-C during a 30 s recording: EOS, a finalized MP4, its facts, exit 0.
    func testSIGINTFinalizesTheRecording() throws {
        let dir = try temporaryDirectory(self)
        let file = dir.appendingPathComponent("interrupted.mp4")
        let (p, o, e, _) = try startRecording(file)
        Thread.sleep(forTimeInterval: 1.5)  // recorded for a known time: the file's duration is checked against it
        kill(p.processIdentifier, SIGINT)
        let r = PlumbProcess.finish(p, o, e, timeout: 30)
        XCTAssertEqual(r.code, 0, r.stderr)
        XCTAssertTrue(r.stderr.contains("SIGINT: stopping, finalizing \(file.path)"), r.stderr)
        let facts = try facts(r.stdout)
        let probe = try XCTUnwrap(Probe.read(file), "ffprobe cannot read the file left by SIGINT")
        XCTAssertTrue(try hasMoov(file), "no moov box: the file was not finalized")
        XCTAssertEqual(probe.duration, 1.5, accuracy: 0.6)
        XCTAssertEqual(facts["frames"] as? Int, probe.frames)
        XCTAssertEqual(facts["bytes"] as? Int, try fileSize(file))
    }

    /// A second signal while the first one finalizes aborts at once (130); the file keeps
    /// its whole fragments. (SIGINT and SIGTERM together: two signals of one kind sent at
    /// once may merge into one in the kernel.)
    func testASecondSignalAborts() throws {
        let dir = try temporaryDirectory(self)
        let file = dir.appendingPathComponent("aborted.mp4")
        let (p, o, e, _) = try startRecording(file)
        Thread.sleep(forTimeInterval: 2.5)  // recorded for a known time: the file's duration is checked against it
        kill(p.processIdentifier, SIGINT)
        kill(p.processIdentifier, SIGTERM)
        let r = PlumbProcess.finish(p, o, e, timeout: 30)
        XCTAssertEqual(r.code, 130, r.stderr)
        XCTAssertTrue(r.stderr.contains("aborted by a second signal"), r.stderr)
        let probe = try XCTUnwrap(Probe.read(file), "ffprobe cannot read the aborted file")
        XCTAssertGreaterThanOrEqual(probe.duration, 2.5 - fragment - 0.2)
    }

    /// A recorder killed with SIGKILL (power cut, OOM killer) leaves a file that plays up
    /// to its last whole fragment.
    func testKillDashNineLosesAtMostTheLastFragment() throws {
        let dir = try temporaryDirectory(self)
        let file = dir.appendingPathComponent("killed.mp4")
        let (p, o, e, started) = try startRecording(file, seconds: 120)
        Thread.sleep(forTimeInterval: 3.5)  // recorded for a known time: the file's duration is checked against it
        kill(p.processIdentifier, SIGKILL)
        // At least this long since the recording started, at most `launchedBefore`.
        let elapsed = Date().timeIntervalSince(started.upperBound)
        let launchedBefore = Date().timeIntervalSince(started.lowerBound)
        let r = PlumbProcess.finish(p, o, e, timeout: 10)
        XCTAssertEqual(p.terminationReason, .uncaughtSignal)
        XCTAssertEqual(r.stdout, "")
        let video = try ProbedVideo(file)
        XCTAssertEqual(video.codec, "h264")
        XCTAssertTrue(video.firstPacketIsKeyframe)
        print("killed after \(elapsed) s of recording; the file holds \(video.seconds) s (\(video.packets) frames)")
        XCTAssertGreaterThanOrEqual(video.seconds, elapsed - fragment, "more than one fragment was lost")
        XCTAssertLessThanOrEqual(video.seconds, launchedBefore + 0.5, "more than it can have recorded")
        // Decodable to the end, not only listed.
        let decoded = try XCTUnwrap(Probe.read(file))
        XCTAssertEqual(decoded.frames, video.packets)
    }

    /// On a terminal, a `\r` progress line on stderr: elapsed/N, frames, bytes.
    func testProgressLineOnATerminal() throws {
        let dir = try temporaryDirectory(self)
        let file = dir.appendingPathComponent("tty.mp4")
        // script(1) runs the command on a pseudo-terminal.
        let command = [PlumbProcess.binary.path, "record", "--seconds", "1", "--camera", "test", "--size", "320x240",
                       "-o", file.path].joined(separator: " ")
        let r = try PlumbProcess.run(PlumbProcess.tool("script"), ["-qec", command, "/dev/null"], timeout: 60)
        XCTAssertEqual(r.code, 0, r.stdout + r.stderr)
        let line = try NSRegularExpression(pattern: #"\rrecording \d+\.\d/1 s, \d+ frames, \d+ kB"#)
        XCTAssertNotNil(line.firstMatch(in: r.stdout, range: NSRange(r.stdout.startIndex..., in: r.stdout)),
                        "no progress line in: \(r.stdout.debugDescription)")
        XCTAssertNotNil(try Probe.read(file))
    }

    /// Every bad argument: exit 2, a message saying what to fix, and no file anywhere.
    func testBadArgumentsExit2AndCreateNothing() throws {
        let dir = try temporaryDirectory(self)
        let existing = dir.appendingPathComponent("existing.mp4")
        try Data("precious".utf8).write(to: existing)
        let cases: [([String], String)] = [
            ([], "--seconds N is required"),
            (["--seconds", "0"], "--seconds 0: expected a number of seconds from 1 to 3600"),
            (["--seconds", "3601"], "--seconds 3601: expected a number of seconds from 1 to 3600"),
            (["--seconds", "-1"], "--seconds -1: expected a number of seconds from 1 to 3600"),
            (["--seconds", "ten"], "--seconds ten: expected a number of seconds"),
            (["--seconds", "nan"], "--seconds nan: expected a number of seconds"),
            (["--seconds", "1", "--size", "big"], "--size big: expected WIDTHxHEIGHT"),
            (["--seconds", "1", "--size", "321x240"], "a recording needs even width and height"),
            (["--seconds", "1", "--fps", "0"], "--fps 0: expected frames per second from 1 to 1000"),
            (["--seconds", "1", "--fps", "fast"], "--fps fast: expected frames per second"),
            (["--seconds", "1", "--codec", "vp9"], "--codec vp9: expected h264 or h265"),
            (["--seconds", "1", "--camera", "No Such Camera 9000"], "camera No Such Camera 9000: no camera has this name"),
            (["--seconds", "1", "--camera", "/dev/video-missing"], "camera /dev/video-missing: no such device"),
            (["--seconds", "1", "--camera", "/dev/null"], "this device is not a V4L2 video capture device"),
            (["--seconds", "1", "-o", "/nonexistent/folder/x.mp4"], "the folder /nonexistent/folder does not exist"),
            (["--seconds", "1", "-o", "/proc/x.mp4"], "cannot create files in /proc"),
            (["--seconds", "1", "-o", existing.path], "\(existing.path) already exists; add --force"),
            (["--seconds", "1", "-o", "-"], "-o -: this command writes a file"),
            (["--seconds", "1", "--quality", "50"], "unknown option --quality"),
            (["--seconds", "1", "--location", "gps"], "--location gps: expected gpsd, gpsd:HOST:PORT"),
            (["--seconds", "1", "--location", "gpsd:localhost"], "--location gpsd:localhost: expected gpsd:HOST:PORT"),
            (["--seconds", "1", "--location", "fixed:91,0"], "--location fixed:91,0: latitude 91 is out of range"),
            (["--seconds", "1", "--gps", "1"], "--gps 1: expected LAT,LON or LAT,LON,ALT"),
            (["--seconds", "1", "--gps", "1,2", "--location", "off"], "--location and --gps: give one"),
            (["--seconds", "1", "--location", "gpsd", "--max-fix-age", "0"], "--max-fix-age 0: expected a number of seconds"),
        ]
        for (args, words) in cases {
            let camera = args.contains("--camera") ? [] : ["--camera", "test"]
            let r = try PlumbProcess.run(PlumbProcess.binary, ["record"] + camera + args, cwd: dir, timeout: 30)
            XCTAssertEqual(r.code, 2, "\(args): \(r.stderr)")
            XCTAssertTrue(r.stderr.contains(words), "\(args): expected \"\(words)\" in: \(r.stderr)")
            XCTAssertEqual(r.stdout, "", "\(args)")
            XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: dir.path), ["existing.mp4"],
                           "\(args) left a file")
            XCTAssertEqual(try Data(contentsOf: existing), Data("precious".utf8), "\(args) touched the existing file")
        }
    }

    /// --force replaces an existing file with the recording.
    func testForceReplacesAnExistingFile() throws {
        let dir = try temporaryDirectory(self)
        let file = dir.appendingPathComponent("again.mp4")
        try Data("old".utf8).write(to: file)
        let r = try PlumbProcess.plumb("record", "--seconds", "1", "--camera", "test", "--size", "320x240",
                                       "-o", file.path, "--force", timeout: 60)
        XCTAssertEqual(r.code, 0, r.stderr)
        let probe = try XCTUnwrap(Probe.read(file))
        XCTAssertEqual(try facts(r.stdout)["frames"] as? Int, probe.frames)
    }
}
