import Foundation
import PlumbTestSupport
import XCTest

/// `plumb repair FOLDER`, run as a user would, on recordings made by real pipelines and
/// checked with ffprobe and ffmpeg.
final class RepairCommandTests: XCTestCase {
    private var folder: URL!

    override func setUpWithError() throws {
        folder = try temporaryDirectory(self).appendingPathComponent("recordings")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: false)
    }

    private func path(_ name: String) -> String { folder.appendingPathComponent(name).path }
    private func bytes(_ name: String) throws -> Data { try Data(contentsOf: folder.appendingPathComponent(name)) }

    /// A normal recording, one a crash cut in its fifth fragment, and one cut in its first.
    private func makeLeftovers() throws {
        try MuxedRecording.finished(path("2026-01-01T10-00-00Z.mp4"), frames: 45)
        try MuxedRecording.crashed(path("2026-01-01T10-05-00Z.mp4"), writes: 120)
        try MuxedRecording.crashed(path("2026-01-01T10-10-00Z.mp4"), writes: 10)
    }

    /// One line per file; a dry run says the same and changes nothing; the real run leaves
    /// the normal file, rewrites the crashed one into a normal MP4 with every frame ffmpeg
    /// found in it, moves the one with nothing playable to damaged/; a second run has
    /// nothing left to do.
    func testEachFileGetsOneLineAndADryRunChangesNothing() throws {
        try makeLeftovers()
        let crashedFrames = try IndependentReaders.frameHashes(path("2026-01-01T10-05-00Z.mp4"))
        XCTAssertGreaterThan(crashedFrames.count, 30)
        let before = try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted()
        let contents = try before.map { try bytes($0) }

        let dry = try PlumbProcess.plumb("repair", "--dry-run", folder.path)
        XCTAssertEqual(dry.code, 0, dry.stderr)
        let said = dry.stdout.split(separator: "\n").map(String.init)
        XCTAssertEqual(said.count, 3, dry.stdout)
        XCTAssertEqual(said.first, "2026-01-01T10-00-00Z.mp4: left as is (a normal MP4, 45 frames)")
        XCTAssertTrue(said.dropFirst().first?.hasPrefix("2026-01-01T10-05-00Z.mp4: would keep \(crashedFrames.count) frames, "
                                                        + "rewriting it as a normal MP4 (fragmented, never finalized; the ") == true,
                      dry.stdout)
        // What the crash left of it depends on how mp4mux groups its writes (1.22: the header
        // and part of a fragment; 1.26: nothing yet): either way nothing playable, moved.
        let moved = "2026-01-01T10-10-00Z.mp4: would move it to damaged/2026-01-01T10-10-00Z.mp4 "
        XCTAssertTrue(["(no movie header (moov): cut in its first fragment, before one was written)",
                       "(empty: nothing was ever written to it)"].contains { said.last == moved + $0 }, dry.stdout)
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted(), before, "a dry run moves nothing")
        XCTAssertEqual(try before.map { try bytes($0) }, contents, "a dry run writes nothing")

        let done = try PlumbProcess.plumb("repair", "--json", folder.path)
        XCTAssertEqual(done.code, 0, done.stderr)
        let lines = try done.stdout.split(separator: "\n").map {
            try XCTUnwrap(try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any], String($0))
        }
        XCTAssertEqual(lines.map { $0["file"] as? String }, before)
        XCTAssertEqual(lines.map { $0["action"] as? String }, ["left-as-is", "repaired", "moved"])
        XCTAssertEqual(lines.map { $0["frames"] as? Int }, [45, crashedFrames.count, 0])
        XCTAssertEqual(lines.map { $0["dry_run"] as? Bool }, [false, false, false])
        XCTAssertEqual(lines[2]["moved_to"] as? String, "damaged/2026-01-01T10-10-00Z.mp4")
        XCTAssertEqual(try bytes("2026-01-01T10-00-00Z.mp4"), contents[0], "the normal file is not rewritten")
        XCTAssertTrue(try IndependentReaders.isNormalMP4(path("2026-01-01T10-05-00Z.mp4")))
        XCTAssertEqual(try IndependentReaders.frameHashes(path("2026-01-01T10-05-00Z.mp4")), crashedFrames)
        XCTAssertTrue(try IndependentReaders.ffmpegSeeks(path("2026-01-01T10-05-00Z.mp4"), to: 1.2))
        XCTAssertEqual(try bytes("damaged/2026-01-01T10-10-00Z.mp4"), contents[2], "moved, never deleted or changed")

        let again = try PlumbProcess.plumb("repair", folder.path)
        XCTAssertEqual(again.code, 0, again.stderr)
        XCTAssertEqual(again.stdout.split(separator: "\n").filter { !$0.contains(": left as is (a normal MP4, ") }, [],
                       again.stdout)
        XCTAssertEqual(again.stdout.split(separator: "\n").count, 2)
    }

    /// Exit 2 for a command line that names no folder, with what to fix.
    func testUsageErrorsExit2() throws {
        let file = path("a.mp4")
        try Data().write(to: URL(fileURLWithPath: file))
        for (args, message) in [([], "missing FOLDER"), ([path("nowhere")], "no such folder"), ([file], "is not a folder"),
                                ([folder.path, "--force"], "unknown option --force")] {
            let r = try PlumbProcess.run(PlumbProcess.binary, ["repair"] + args)
            XCTAssertEqual(r.code, 2, "\(args): \(r.stderr)")
            XCTAssertTrue(r.stderr.contains(message), "\(args): \(r.stderr)")
        }
        XCTAssertTrue(FileManager.default.fileExists(atPath: file), "nothing was done")
    }

    /// Exit 1 when a file could not be moved where it should go; it stays where it was.
    func testAFileThatCannotBeMovedExits1() throws {
        try Data().write(to: URL(fileURLWithPath: path("empty.mp4")))
        try Data("in the way".utf8).write(to: URL(fileURLWithPath: path("damaged")))
        let r = try PlumbProcess.plumb("repair", folder.path)
        XCTAssertEqual(r.code, 1, r.stdout + r.stderr)
        XCTAssertTrue(r.stdout.hasPrefix("empty.mp4: error: "), r.stdout)
        XCTAssertTrue(r.stdout.contains("damaged is in the way: it is not a folder"), r.stdout)
        XCTAssertTrue(FileManager.default.fileExists(atPath: path("empty.mp4")))
    }

    /// A file another program is still writing is skipped (and goes on being written);
    /// once that program is gone, the next repair takes it.
    func testAFileStillBeingWrittenIsSkipped() throws {
        let writer = try MuxedRecording.live(path("live.mp4"))
        addTeardownBlock {
            if writer.isRunning { kill(writer.processIdentifier, SIGKILL) }
            writer.waitUntilExit()
        }
        eventually("the live recording did not get going", timeout: .seconds(30)) { (try? IndependentReaders.ffprobeDuration(self.path("live.mp4"))).flatMap { $0 } ?? 0 > 1 }
        let r = try PlumbProcess.plumb("repair", folder.path)
        XCTAssertEqual(r.code, 0, r.stderr)
        XCTAssertEqual(r.stdout, "live.mp4: skipped (still being written: it changed while plumb looked; "
                       + "repair it once it is finished)\n")
        XCTAssertTrue(writer.isRunning)
        let size = try bytes("live.mp4").count
        eventually("the writer goes on in the same file", timeout: .seconds(10)) { ((try? self.bytes("live.mp4").count) ?? 0) > size }

        kill(writer.processIdentifier, SIGKILL)
        writer.waitUntilExit()
        let after = try PlumbProcess.plumb("repair", folder.path)
        XCTAssertEqual(after.code, 0, after.stderr)
        XCTAssertTrue(after.stdout.hasPrefix("live.mp4: kept "), after.stdout)
        XCTAssertTrue(try IndependentReaders.isNormalMP4(path("live.mp4")))
    }

    /// A folder a running `plumb serve` records into is refused (exit 1), untouched: the
    /// daemon repairs it itself when it starts.
    func testAFolderADaemonRecordsIntoIsRefused() throws {
        let serve = try ServeProcess(self, ["recording": ["continuous": "true"]])
        XCTAssertTrue(serve.waitForLog("recording to "), serve.log)
        // Frames in the file before the stop: a recording stopped before its first frame is
        // a header without samples, which the repair after the stop would rightly move away.
        eventually("a frame in the recording: \(serve.log)", timeout: .seconds(60)) {
            let files = (try? FileManager.default.contentsOfDirectory(atPath: serve.folder.path)) ?? []
            return files.contains { $0.hasSuffix(".mp4")
                && ((try? IndependentReaders.ffprobeFrameCount(serve.folder.appendingPathComponent($0).path)) ?? 0) > 0 }
        }
        let r = try PlumbProcess.plumb("repair", "--dry-run", serve.folder.path)
        XCTAssertEqual(r.code, 1, r.stdout + r.stderr)
        XCTAssertEqual(r.stdout, "")
        XCTAssertTrue(r.stderr.contains("is in use by another plumb process (a running plumb serve records into it"), r.stderr)
        XCTAssertTrue(r.stderr.contains("stop it first"), r.stderr)
        XCTAssertEqual(serve.stop().code, 0)
        // Stopped, it lets go: the folder holds only its finished recording.
        let after = try PlumbProcess.plumb("repair", serve.folder.path)
        XCTAssertEqual(after.code, 0, after.stderr)
        XCTAssertTrue(after.stdout.contains(": left as is (a normal MP4, "), after.stdout)
    }
}
