import Foundation
import PlumbTestSupport
import XCTest

/// `plumb photo` on the test pattern, checked with exiftool: the file, its EXIF and the
/// printed facts agree; bad arguments exit 2 and create nothing; a signal writes nothing.
final class PhotoCommandTests: XCTestCase {
    /// The facts line printed on stdout (or stderr for `-o -`).
    private func facts(_ text: String) throws -> [String: Any] {
        let line = try XCTUnwrap(text.split(separator: "\n").last, "no facts in \(text)")
        return try XCTUnwrap(JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any], String(line))
    }

    /// "yyyy:MM:dd HH:mm:ss" in the local zone: how EXIF DateTimeOriginal reads an ISO 8601 time.
    private func exifDate(_ iso: String) throws -> String {
        let parser = ISO8601DateFormatter()
        parser.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        let date = try XCTUnwrap(parser.date(from: iso), iso)
        let f = DateFormatter()
        f.locale = Locale(identifier: "en_US_POSIX")
        f.timeZone = .current
        f.dateFormat = "yyyy:MM:dd HH:mm:ss"
        return f.string(from: date)
    }

    private func fileSize(_ url: URL) throws -> Int {
        try XCTUnwrap(FileManager.default.attributesOfItem(atPath: url.path)[.size] as? Int)
    }

    func testAPhotoOfTheTestPatternCarriesItsFactsAsEXIF() throws {
        let dir = try temporaryDirectory(self)
        let file = dir.appendingPathComponent("shot.jpg")
        let r = try PlumbProcess.plumb("photo", "--camera", "test", "--size", "320x240", "-o", file.path,
                                       "--quality", "80")
        XCTAssertEqual(r.code, 0, r.stderr)
        let facts = try facts(r.stdout)
        let tags = try exif(file)
        XCTAssertEqual(tags["FileType"], "JPEG")
        XCTAssertEqual(tags["Make"], "Plumb")
        XCTAssertEqual(tags["Model"], "Plumb test pattern")
        XCTAssertEqual(tags["Orientation"], "1")
        XCTAssertEqual(tags["DateTimeOriginal"], try exifDate(facts["taken_at"] as? String ?? ""))
        XCTAssertNil(tags["GPSLatitude"])
        XCTAssertNil(tags["Error"])
        // The facts describe this file.
        XCTAssertEqual(facts["file"] as? String, file.path)
        XCTAssertEqual(facts["bytes"] as? Int, try fileSize(file))
        XCTAssertEqual(facts["width"] as? Int, 320)
        XCTAssertEqual(facts["height"] as? Int, 240)
        XCTAssertEqual(tags["ImageWidth"], "320")
        XCTAssertEqual(tags["ImageHeight"], "240")
        XCTAssertEqual(facts["camera"] as? String, "Plumb test pattern")
        XCTAssertEqual(facts["orientation"] as? Int, 1)
        XCTAssertEqual(facts["quality"] as? Int, 80)
        XCTAssertEqual(facts["gps"] as? Bool, false)
        // Nothing else is left in the folder (no temporary file).
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: dir.path), ["shot.jpg"])
    }

    func testGPSTagsAreWritten() throws {
        let dir = try temporaryDirectory(self)
        let file = dir.appendingPathComponent("gps.jpg")
        let r = try PlumbProcess.plumb("photo", "--camera", "test", "--size", "320x240", "-o", file.path,
                                       "--gps", "-33.8568,151.2153,12.5")
        XCTAssertEqual(r.code, 0, r.stderr)
        XCTAssertEqual(try facts(r.stdout)["gps"] as? Bool, true)
        let tags = try exif(file)
        XCTAssertEqual(Double(tags["GPSLatitude"] ?? "") ?? 0, -33.8568, accuracy: 1e-4)
        XCTAssertEqual(tags["GPSLatitudeRef"], "S")
        XCTAssertEqual(Double(tags["GPSLongitude"] ?? "") ?? 0, 151.2153, accuracy: 1e-4)
        XCTAssertEqual(tags["GPSLongitudeRef"], "E")
        XCTAssertEqual(Double(tags["GPSAltitude"] ?? "") ?? 0, 12.5, accuracy: 0.5)
    }

    /// Without -o the name is timestamped in the current folder, and a second photo in the
    /// same second gets a new name instead of replacing the first.
    func testDefaultNamesAreTimestampedAndNeverReplaceAFile() throws {
        let dir = try temporaryDirectory(self)
        var files: [String] = []
        for _ in 0..<2 {
            let r = try PlumbProcess.plumb("photo", "--camera", "test", "--size", "160x120", cwd: dir)
            XCTAssertEqual(r.code, 0, r.stderr)
            let path = try XCTUnwrap(try facts(r.stdout)["file"] as? String)
            XCTAssertEqual(URL(fileURLWithPath: path).deletingLastPathComponent().path, dir.path)
            files.append(URL(fileURLWithPath: path).lastPathComponent)
        }
        let pattern = try NSRegularExpression(pattern: #"^photo-\d{8}-\d{6}(-\d+)?\.jpg$"#)
        for name in files {
            XCTAssertNotNil(pattern.firstMatch(in: name, range: NSRange(name.startIndex..., in: name)), name)
        }
        XCTAssertEqual(Set(try FileManager.default.contentsOfDirectory(atPath: dir.path)), Set(files))
        XCTAssertEqual(Set(files).count, 2)
        // -o FOLDER: the timestamped name inside it.
        let sub = dir.appendingPathComponent("sub")
        try FileManager.default.createDirectory(at: sub, withIntermediateDirectories: false)
        let r = try PlumbProcess.plumb("photo", "--camera", "test", "--size", "160x120", "-o", sub.path)
        XCTAssertEqual(r.code, 0, r.stderr)
        let inside = try FileManager.default.contentsOfDirectory(atPath: sub.path)
        XCTAssertEqual(inside.count, 1)
        XCTAssertEqual(try facts(r.stdout)["file"] as? String, sub.appendingPathComponent(inside[0]).path)
    }

    /// `-o -`: the JPEG on stdout, the facts on stderr.
    func testStdoutGetsTheJPEGAndStderrTheFacts() throws {
        let dir = try temporaryDirectory(self)
        let r = try PlumbProcess.plumb("photo", "--camera", "test", "--size", "320x240", "-o", "-", cwd: dir)
        XCTAssertEqual(r.code, 0, r.stderr)
        XCTAssertEqual(Array(r.stdoutData.prefix(2)), [0xFF, 0xD8], "stdout is not a JPEG")
        let facts = try facts(r.stderr)
        XCTAssertEqual(facts["bytes"] as? Int, r.stdoutData.count)
        XCTAssertNil(facts["file"])
        let file = dir.appendingPathComponent("piped.jpg")
        try r.stdoutData.write(to: file)
        XCTAssertEqual(try exif(file)["ImageWidth"], "320")
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: dir.path), ["piped.jpg"])
    }

    /// An existing file is kept unless --force is given.
    func testAnExistingFileIsReplacedOnlyWithForce() throws {
        let dir = try temporaryDirectory(self)
        let file = dir.appendingPathComponent("keep.jpg")
        try Data("precious".utf8).write(to: file)
        let refused = try PlumbProcess.plumb("photo", "--camera", "test", "--size", "160x120", "-o", file.path)
        XCTAssertEqual(refused.code, 2)
        XCTAssertTrue(refused.stderr.contains("already exists; add --force"), refused.stderr)
        XCTAssertEqual(try Data(contentsOf: file), Data("precious".utf8))
        let forced = try PlumbProcess.plumb("photo", "--camera", "test", "--size", "160x120", "-o", file.path, "--force")
        XCTAssertEqual(forced.code, 0, forced.stderr)
        XCTAssertEqual(try exif(file)["FileType"], "JPEG")
        XCTAssertEqual(try facts(forced.stdout)["bytes"] as? Int, try fileSize(file))
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: dir.path), ["keep.jpg"])
    }

    /// --settle-frames waits for frames, --settle for time; both still take the photo.
    func testSettling() throws {
        let dir = try temporaryDirectory(self)
        for (n, args) in [["--settle-frames", "5"], ["--settle", "300"]].enumerated() {
            let file = dir.appendingPathComponent("s\(n).jpg")
            let start = Date()
            let r = try PlumbProcess.run(PlumbProcess.binary,
                                         ["photo", "--camera", "test", "--size", "160x120", "-o", file.path] + args)
            XCTAssertEqual(r.code, 0, r.stderr)
            XCTAssertEqual(try exif(file)["FileType"], "JPEG")
            if args[0] == "--settle" { XCTAssertGreaterThanOrEqual(Date().timeIntervalSince(start), 0.3) }
        }
    }

    /// The first SIGTERM or Ctrl-C before the photo is taken closes the camera and writes nothing.
    func testASignalBeforeThePhotoWritesNothing() throws {
        let dir = try temporaryDirectory(self)
        let file = dir.appendingPathComponent("never.jpg")
        let (p, o, e) = try PlumbProcess.start(PlumbProcess.binary, ["photo", "--camera", "test", "--size", "160x120",
                                                                     "--settle", "30000", "-o", file.path], cwd: dir)
        // The camera streams (its source's thread runs; the photo waits 30 s for the settle).
        eventually("plumb photo's camera to stream", timeout: .seconds(30)) {
            threadNames(of: p.processIdentifier).contains("src:src")
        }
        kill(p.processIdentifier, SIGTERM)
        let r = PlumbProcess.finish(p, o, e, timeout: 20)
        XCTAssertEqual(r.code, 130, r.stderr)
        XCTAssertTrue(r.stderr.contains("SIGTERM: stopped before the photo was taken; nothing was written"), r.stderr)
        XCTAssertEqual(r.stdout, "")
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: dir.path), [])
    }

    /// Every bad argument: exit 2, a message saying what to fix, and no file anywhere.
    func testBadArgumentsExit2AndCreateNothing() throws {
        let dir = try temporaryDirectory(self)
        let plainFile = dir.appendingPathComponent("plain")
        try Data().write(to: plainFile)
        let cases: [([String], String)] = [
            (["--size", "320"], "--size 320: expected WIDTHxHEIGHT"),
            (["--size", "0x240"], "--size 0x240: expected WIDTHxHEIGHT"),
            (["--size", "99999x240"], "each side 1 to 16384"),
            (["--quality", "0"], "--quality 0: expected a JPEG quality from 1 to 100"),
            (["--quality", "101"], "--quality 101: expected a JPEG quality from 1 to 100"),
            (["--quality", "high"], "--quality high: expected a JPEG quality"),
            (["--settle", "-5"], "--settle -5: expected milliseconds from 0 to 60000"),
            (["--settle", "soon"], "--settle soon: expected milliseconds"),
            (["--settle-frames", "x"], "--settle-frames x: expected a number of frames"),
            (["--settle", "10", "--settle-frames", "3"], "give one or the other"),
            (["--gps", "91,0"], "latitude 91 is out of range (-90 to 90)"),
            (["--gps", "0,181"], "longitude 181 is out of range (-180 to 180)"),
            (["--gps", "north,east"], "expected LAT,LON or LAT,LON,ALT"),
            (["--gps", "1,2,3,4"], "expected LAT,LON or LAT,LON,ALT"),
            (["--location", "gps"], "--location gps: expected gpsd, gpsd:HOST:PORT"),
            (["--location", "gpsd:host:port"], "--location gpsd:host:port: the port \"port\" is not a number"),
            (["--location", "fixed:0,181"], "--location fixed:0,181: longitude 181 is out of range"),
            (["--location", "fixed:1,2", "--gps", "1,2"], "--location and --gps: give one"),
            (["--max-fix-age", "soon"], "--max-fix-age soon: expected a number of seconds from 0.1 to 86400"),
            (["--camera", "No Such Camera 9000"], "camera No Such Camera 9000: no camera has this name"),
            (["--camera", "No Such Camera 9000"], "(`plumb devices` lists the cameras)"),
            (["--camera", "/dev/video-missing"], "camera /dev/video-missing: no such device"),
            (["--camera", "/dev/video-missing"], "--camera test opens the test pattern"),
            (["--camera", "/dev/null"], "camera /dev/null: this device is not a V4L2 video capture device"),
            (["--camera", plainFile.path], "this is not a device file"),
            (["-o", "/nonexistent/folder/x.jpg"], "the folder /nonexistent/folder does not exist"),
            (["-o", plainFile.path + "/x.jpg"], "\(plainFile.path) is not a folder"),
            (["-o", "/proc/x.jpg"], "cannot create files in /proc"),
            (["-o", "/dev/null"], "it exists and is not a regular file"),
            (["--bogus"], "unknown option --bogus"),
            (["extra"], "unexpected argument \"extra\""),
        ]
        for (args, words) in cases {
            // A real camera name is given for every case but the camera's own, so a missing
            // camera on this machine is never the reason for the exit code.
            let camera = args.contains("--camera") ? [] : ["--camera", "test"]
            let r = try PlumbProcess.run(PlumbProcess.binary, ["photo"] + camera + args, cwd: dir, timeout: 30)
            XCTAssertEqual(r.code, 2, "\(args): \(r.stderr)")
            XCTAssertTrue(r.stderr.contains(words), "\(args): expected \"\(words)\" in: \(r.stderr)")
            XCTAssertEqual(r.stdout, "", "\(args)")
            XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: dir.path), ["plain"], "\(args) left a file")
        }
    }
}
