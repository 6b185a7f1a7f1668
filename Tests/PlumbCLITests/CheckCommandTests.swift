import Foundation
import PlumbTestSupport
import XCTest

/// `plumb check`: every shipped pipeline passes; each class of error is reported
/// as FILE:LINE:COL: error: ... with exit 2.
final class CheckCommandTests: XCTestCase {
    func testEveryShippedPipelinePasses() throws {
        let dir = PlumbProcess.root.appendingPathComponent("pipelines")
        let files = try FileManager.default.contentsOfDirectory(atPath: dir.path).filter { $0.hasSuffix(".pipeline") }
        XCTAssertGreaterThanOrEqual(files.count, 3)
        for file in files {
            // The v4l2 preview's window sink is swapped for fakesink: no display here.
            let extra = file.hasPrefix("v4l2") ? ["-D", "sink=fakesink"] : []
            let r = try PlumbProcess.run(PlumbProcess.binary, ["check", "pipelines/\(file)"] + extra)
            XCTAssertEqual(r.code, 0, "\(file): \(r.stderr)")
            XCTAssertTrue(r.stdout.contains("ok"), r.stdout)
        }
    }

    func testRolesAreReported() throws {
        let r = try PlumbProcess.plumb("check", "pipelines/test-preview.pipeline")
        XCTAssertEqual(r.code, 0, r.stderr)
        XCTAssertTrue(r.stdout.contains("preview_flip=preview_flip"), r.stdout)
        XCTAssertTrue(r.stdout.contains("src=src"), r.stdout)
    }

    /// Without a camera the v4l2 pipeline is valid but its device is missing: a
    /// warning naming the device line, or an error with --strict.
    func testMissingCameraIsAWarningUnlessStrict() throws {
        let dir = try temporaryDirectory(self)
        let file = try write(dir, "cam.pipeline", "# var: device=/dev/video-missing\nv4l2src device=${device}\n  ! fakesink\n")
        let lenient = try PlumbProcess.plumb("check", file)
        XCTAssertEqual(lenient.code, 0, lenient.stderr)
        XCTAssertTrue(lenient.stderr.contains("\(file):2:1: warning: cannot reach READY"), lenient.stderr)
        let strict = try PlumbProcess.plumb("check", "--strict", file)
        XCTAssertEqual(strict.code, 2)
        XCTAssertTrue(strict.stderr.contains("\(file):2:1: error: cannot reach READY"), strict.stderr)
        XCTAssertTrue(strict.stderr.contains("/dev/video-missing"), strict.stderr)
    }

    func testErrorsPointAtTheirLineAndColumn() throws {
        let dir = try temporaryDirectory(self)
        let cases: [(String, String, String)] = [
            // (file body, expected "LINE:COL: error:", expected words)
            ("# name: x\nvideotestsrc num-buffers=3\n  ! nosuchelement ! fakesink\n", "3:5", "no element \"nosuchelement\""),
            ("videotestsrc num-buffers=3 foo=1 ! fakesink\n", "1:28", "has no property \"foo\""),
            ("videotestsrc num-buffers=abc ! fakesink\n", "1:26", "\"abc\" is not a valid value for property \"num-buffers\""),
            ("videotestsrc\n  pattern=nope ! fakesink\n", "2:11", "expected one of: smpte"),
            ("videotestsrc num-buffers=99999999999 ! fakesink\n", "1:26", "expected gint from -1 to 2147483647"),
            ("videotestsrc\n  ! video/x-raw,format=XYZ ! fakesink\n", "2:5", "can't handle caps"),
            ("videotestsrc ! audioconvert ! fakesink\n", "1:14", "could not link videotestsrc to audioconvert"),
            ("videotestsrc ! video/x-raw,width=(int)many ! fakesink\n", "1:16", "is not valid caps"),
            ("# var: w=10\nvideotestsrc ! fakesink name=${sink}\n", "2:30", "undefined variable \"sink\""),
            ("# var: sink\nvideotestsrc ! ${sink}\n", "2:16", "has no default: give it with -D sink=VALUE"),
            ("videotestsrc ! ! fakesink\n", "1:16", "syntax error"),
            ("videotestsrc ! fakesink name=\n", "1:29", "\"name=\" has no value"),
            ("videotestsrc ! fakesink : ( )\n", "1:27", "an empty bin"),
            ("videotestsrc ! fakesink name=\"open\n", "1:30", "unterminated quote"),
            ("videotestsrc ! filesink location=/nonexistent/dir/x.mp4\n", "1:34", "the folder \"/nonexistent/dir\" does not exist"),
            ("videotestsrc ! identity name=preview_flip ! fakesink\n", "1:16", "needs videoflip"),
            // The generated name of the 11th element starts with the 2nd's: each is put back whole.
            ("videotestsrc ! queue" + String(repeating: " ! identity", count: 8) + " ! audioconvert ! fakesink\n", "1:110",
             "could not link identity to audioconvert\n"),
        ]
        for (n, (body, place, words)) in cases.enumerated() {
            let file = try write(dir, "case\(n).pipeline", body)
            let r = try PlumbProcess.plumb("check", file)
            XCTAssertEqual(r.code, 2, "case \(n): \(r.stdout) \(r.stderr)")
            XCTAssertTrue(r.stderr.hasPrefix("\(file):\(place): error: "), "case \(n): \(r.stderr)")
            XCTAssertTrue(r.stderr.contains(words), "case \(n): \(r.stderr)")
        }
    }

    /// autovideosink looks for a display at READY; without one libwayland prints
    /// "error: XDG_RUNTIME_DIR is invalid or not set in the environment." on stderr. The check
    /// passes, so no line may say "error:": what a library printed comes out as a warning.
    func testLibraryNoiseOnStderrIsAWarningNotAnError() throws {
        let dir = try temporaryDirectory(self)
        let file = try write(dir, "auto.pipeline", "videotestsrc num-buffers=1 ! videoconvert ! autovideosink\n")
        let r = try PlumbProcess.run(PlumbProcess.tool("env"), ["-u", "XDG_RUNTIME_DIR", "-u", "WAYLAND_DISPLAY", "-u", "DISPLAY",
                                                                "-u", "GST_DEBUG", PlumbProcess.binary.path, "check", file])
        XCTAssertEqual(r.code, 0, r.stderr)
        XCTAssertTrue(r.stdout.contains("ok"), r.stdout)
        let lines = r.stderr.split(separator: "\n")
        XCTAssertFalse(lines.contains { $0.hasPrefix("error:") || $0.contains(": error:") }, r.stderr)
        // waylandsink (gstreamer1.0-plugins-bad) brings libwayland, which prints it here.
        XCTAssertTrue(lines.contains { $0.contains("XDG_RUNTIME_DIR") }, "no noise to turn into a warning: \(r.stderr)")
        for line in lines where line.contains("XDG_RUNTIME_DIR") {
            XCTAssertTrue(line.hasPrefix("\(file): warning: a library printed during the check: \""), String(line))
        }
    }

    func testMissingFile() throws {
        let r = try PlumbProcess.plumb("check", "/nonexistent/x.pipeline")
        XCTAssertEqual(r.code, 2)
        XCTAssertEqual(r.stderr, "/nonexistent/x.pipeline:1:1: error: no such pipeline file\n")
    }

    func testDefinesOverrideDefaultsAndUnknownDefinesAreErrors() throws {
        let dir = try temporaryDirectory(self)
        let file = try write(dir, "v.pipeline", "# var: pattern=ball\nvideotestsrc pattern=${pattern} ! fakesink\n")
        XCTAssertEqual(try PlumbProcess.plumb("check", file, "-D", "pattern=snow").code, 0)
        let bad = try PlumbProcess.plumb("check", file, "-D", "pattern=nope")
        XCTAssertEqual(bad.code, 2)
        XCTAssertTrue(bad.stderr.hasPrefix("\(file):2:22: error:"), bad.stderr)
        let unknown = try PlumbProcess.plumb("check", file, "-D", "patern=snow")
        XCTAssertEqual(unknown.code, 2)
        XCTAssertTrue(unknown.stderr.contains("no variable \"patern\" is declared in this file (declared: pattern)"), unknown.stderr)
        let malformed = try PlumbProcess.plumb("check", file, "-D", "pattern")
        XCTAssertEqual(malformed.code, 2)
        XCTAssertTrue(malformed.stderr.contains("expected -D NAME=VALUE"), malformed.stderr)
    }

    // MARK: - A check writes no file

    /// The shipped recording pipeline, checked in a folder that holds its default
    /// `recording.mp4`: the file keeps every byte and its modification time.
    func testCheckLeavesTheRecordingItWouldWriteUntouched() throws {
        let dir = try temporaryDirectory(self)
        let recording = dir.appendingPathComponent("recording.mp4")
        let bytes = Data((0..<65_536).map { _ in UInt8.random(in: 0...255) })
        try bytes.write(to: recording)
        let then = Date(timeIntervalSince1970: 1_600_000_000)
        try FileManager.default.setAttributes([.modificationDate: then], ofItemAtPath: recording.path)
        let pipeline = PlumbProcess.root.appendingPathComponent("pipelines/record-mp4.pipeline").path
        for extra in [[], ["--strict"]] {
            let r = try PlumbProcess.run(PlumbProcess.binary, ["check", pipeline] + extra, cwd: dir)
            XCTAssertEqual(r.code, 0, r.stderr)
            XCTAssertEqual(try Data(contentsOf: recording), bytes, "check \(extra) changed recording.mp4")
            let attributes = try FileManager.default.attributesOfItem(atPath: recording.path)
            XCTAssertEqual(attributes[.modificationDate] as? Date, then, "check \(extra) touched recording.mp4")
        }
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: dir.path), ["recording.mp4"])
        // `run` still writes it.
        let run = try PlumbProcess.run(PlumbProcess.binary, ["run", pipeline, "-D", "frames=15", "-D", "width=320",
                                                             "-D", "height=240"], cwd: dir, timeout: 60)
        XCTAssertEqual(run.code, 0, run.stderr)
        let probe = try XCTUnwrap(Probe.read(recording), "ffprobe cannot read what run wrote")
        XCTAssertEqual(probe.frames, 15)
    }

    /// Every kind of sink that writes files (plain, pattern, splitting, HLS, GIO, a URI,
    /// one inside a bin, a debug sink) passes the check and leaves the folder empty; a
    /// check that fails on a missing camera (a warning, or exit 2 with --strict) too.
    func testCheckCreatesNoFile() throws {
        let dir = try temporaryDirectory(self)
        let out = dir.appendingPathComponent("out")
        try FileManager.default.createDirectory(at: out, withIntermediateDirectories: true)
        let encoded = "videotestsrc num-buffers=10 ! x264enc ! h264parse"
        let sinks = [
            "videotestsrc num-buffers=10 ! filesink location=\(out.path)/plain.bin",
            "videotestsrc num-buffers=10 ! multifilesink location=\(out.path)/frame%05d.bin",
            "\(encoded) ! splitmuxsink location=\(out.path)/part%02d.mp4 max-size-time=1000000000",
            "\(encoded) ! hlssink2 location=\(out.path)/seg%05d.ts playlist-location=\(out.path)/live.m3u8",
            "\(encoded) ! mpegtsmux ! hlssink location=\(out.path)/old%05d.ts playlist-location=\(out.path)/old.m3u8",
            "videotestsrc num-buffers=10 ! giosink location=file://\(out.path)/gio.bin",
            "videotestsrc num-buffers=10 ! file://\(out.path)/uri.bin",
            "videotestsrc num-buffers=10 ! bin.( name=b queue ! filesink location=\(out.path)/in-bin.bin )",
            "videotestsrc num-buffers=10 ! ( queue ! filesink location=\(out.path)/in-parens.bin )",
            "videotestsrc num-buffers=10 ! videocodectestsink location=\(out.path)/checksums.txt",
        ]
        for (n, body) in sinks.enumerated() {
            let file = try write(dir, "sink\(n).pipeline", body + "\n")
            let r = try PlumbProcess.plumb("check", file, cwd: out)
            XCTAssertEqual(r.code, 0, "\(body): \(r.stderr)")
            XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: out.path), [], body)
        }
        let camera = try write(dir, "cam.pipeline", "# var: device=/dev/video-missing\nv4l2src device=${device}\n"
                                + "  ! videoconvert ! x264enc ! mp4mux ! filesink location=\(out.path)/camera.mp4\n")
        let lenient = try PlumbProcess.plumb("check", camera)
        XCTAssertEqual(lenient.code, 0, lenient.stderr)
        XCTAssertTrue(lenient.stderr.contains("warning: cannot reach READY"), lenient.stderr)
        let strict = try PlumbProcess.plumb("check", "--strict", camera)
        XCTAssertEqual(strict.code, 2, strict.stderr)
        XCTAssertTrue(strict.stderr.hasPrefix("\(camera):2:1: error: cannot reach READY"), strict.stderr)
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: out.path), [])
    }

    /// Where a sink would write is checked by looking: a missing folder, a file where the
    /// folder should be, a folder where the file should be, a read-only file system — each
    /// an error at the location's value (through a variable: at its `${`).
    func testSinkLocationsThatCannotBeWrittenAreErrorsAtTheLocation() throws {
        let dir = try temporaryDirectory(self)
        let aFile = try write(dir, "plain.txt", "x")
        let readOnly = try mountSmallDisk(self, size: "64k")
        let remount = try PlumbProcess.run(PlumbProcess.tool("mount"), ["-o", "remount,ro", readOnly.path])
        XCTAssertEqual(remount.code, 0, remount.stderr)
        let cases: [(location: String, words: String)] = [
            ("\(dir.path)/missing/x.mp4", "the folder \"\(dir.path)/missing\" does not exist"),
            ("\(aFile)/x.mp4", "\"\(aFile)\" is not a folder"),
            (dir.path, "it is a folder, not a file"),
            ("\(readOnly.path)/x.mp4", "the folder \"\(readOnly.path)\" is not writable (Read-only file system)"),
        ]
        for (n, (location, words)) in cases.enumerated() {
            let file = try write(dir, "loc\(n).pipeline", "# var: location=\(location)\nvideotestsrc num-buffers=1\n"
                                    + "  ! filesink location=${location}\n")
            let r = try PlumbProcess.plumb("check", file)
            XCTAssertEqual(r.code, 2, "\(location): \(r.stdout)")
            XCTAssertTrue(r.stderr.hasPrefix("\(file):3:23: error: cannot write \"\(location)\""), r.stderr)
            XCTAssertTrue(r.stderr.contains(words), r.stderr)
        }
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: readOnly.path), [])
        // HLS's playlist is a second file, in a folder of its own.
        let hls = try write(dir, "hls.pipeline", "videotestsrc ! x264enc ! h264parse\n"
                                + " ! hlssink2 location=\(dir.path)/s%05d.ts playlist-location=/nonexistent/live.m3u8\n")
        let r = try PlumbProcess.plumb("check", hls)
        XCTAssertEqual(r.code, 2)
        XCTAssertTrue(r.stderr.hasPrefix("\(hls):2:\(50 + dir.path.count): error: cannot write \"/nonexistent/live.m3u8\""),
                      r.stderr)
    }

    // MARK: - Links and names

    /// A missing `!` leaves an element with an unlinked always-pad: GStreamer's parser
    /// accepts it and the pipeline fails only once playing ("not-linked", no place).
    func testUnlinkedElementsAreErrorsAtTheirPlace() throws {
        let dir = try temporaryDirectory(self)
        let cases: [(String, String, String)] = [
            ("videotestsrc name=src\n ! videoconvert\n fakesink\n", "3:2", "missing \"!\" before fakesink? The output of videoconvert (2:4)"),
            ("videotestsrc ! videoconvert\n", "1:16", "the output of videoconvert goes nowhere: its src pad is not linked"),
            ("videotestsrc ! fakesink\n  fakesink name=alone\n", "2:3", "nothing feeds fakesink: its sink pad is not linked"),
            ("videotestsrc ! ( queue ! videoconvert )\n", "1:26", "the output of videoconvert goes nowhere"),
            ("videotestsrc name=src! fakesink\n", "1:24", "missing \"!\" before fakesink? The output of videotestsrc (1:1) "
                + "and the input of fakesink are not linked (the \"!\" of name=src! is part of its value"),
            // A URI makes an element too (here filesrc): one left unlinked is as much an error.
            ("videotestsrc ! fakesink\n  file:///dev/null\n", "2:3", "the output of file:///dev/null goes nowhere"),
        ]
        for (n, (body, place, words)) in cases.enumerated() {
            let file = try write(dir, "link\(n).pipeline", body)
            let r = try PlumbProcess.plumb("check", file)
            XCTAssertEqual(r.code, 2, "case \(n): \(r.stdout) \(r.stderr)")
            XCTAssertTrue(r.stderr.hasPrefix("\(file):\(place): error: \(words)"), "case \(n): \(r.stderr)")
        }
        // Not errors: a free pad beside a linked one, a pad linked once data flows, request
        // pads, an element linked through a reference rather than the `!` after it.
        let sound = [
            "videotestsrc num-buffers=1 ! textoverlay text=hi ! fakesink\n",
            "videotestsrc num-buffers=1 ! jpegenc ! decodebin ! videoconvert ! fakesink\n",
            "videotestsrc num-buffers=1 ! tee name=t ! queue ! fakesink t. ! queue ! fakesink\n",
            "videotestsrc num-buffers=1 name=v  v. ! fakesink\n",
        ]
        for (n, body) in sound.enumerated() {
            let file = try write(dir, "sound\(n).pipeline", body)
            let r = try PlumbProcess.plumb("check", file)
            XCTAssertEqual(r.code, 0, "\(body): \(r.stderr)")
        }
    }

    /// A second element of a name is an error at its `name=` (it crashed the check,
    /// exit 132, when both were on one line), and so are linking an element to itself and
    /// naming one element twice.
    func testDuplicateNamesAndSelfLinksAreErrorsNotCrashes() throws {
        let dir = try temporaryDirectory(self)
        let cases: [(String, String, String)] = [
            ("videotestsrc name=src ! fakesink name=src\n", "1:34", "duplicate element name \"src\": videotestsrc at 1:14 already has it"),
            ("videotestsrc name=src\n  ! fakesink name=src\n", "2:14", "duplicate element name \"src\": videotestsrc at 1:14"),
            ("videotestsrc name=a ! queue name=\"b\" ! ( fakesink name=b )\n", "1:51", "duplicate element name \"b\": queue at 1:29"),
            ("videotestsrc ! identity name=i ! i.\n", "1:16", "could not link i to i"),
            // One element named twice: GObject keeps the first and prints a critical warning.
            ("videotestsrc name=a\n  name=b ! fakesink\n", "2:3", "\"name\" is set twice on videotestsrc (first at 1:14)"),
        ]
        for (n, (body, place, words)) in cases.enumerated() {
            let file = try write(dir, "name\(n).pipeline", body)
            let r = try PlumbProcess.plumb("check", file)
            XCTAssertEqual(r.code, 2, "case \(n): \(r.stderr)")
            XCTAssertTrue(r.stderr.hasPrefix("\(file):\(place): error: \(words)"), "case \(n): \(r.stderr)")
        }
        // A name like the ones the check gives unnamed elements is the user's to take.
        let taken = try write(dir, "taken.pipeline", "videotestsrc name=plumb_e2 ! queue ! fakesink\n")
        let r = try PlumbProcess.plumb("check", taken)
        XCTAssertEqual(r.code, 0, r.stderr)
    }

    private func write(_ dir: URL, _ name: String, _ body: String) throws -> String {
        let url = dir.appendingPathComponent(name)
        try body.write(to: url, atomically: true, encoding: .utf8)
        return url.path
    }
}
