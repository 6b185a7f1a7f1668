import Foundation
import PlumbTestSupport
import XCTest

/// `--accelerometer` / `--mount` on photo, record and run: every still and recording
/// carries the replayed orientation, read back by exiftool and ffprobe.
final class RotationOptionTests: XCTestCase {
    /// ffprobe's displaymatrix rotation (counter-clockwise) for Plumb's clockwise angle.
    let ffprobeRotation = [0: nil, 90: "-90", 180: "-180", 270: "90"]

    private func mp4Rotation(_ file: URL) throws -> (exiftool: String, ffprobe: String?) {
        let exif = try PlumbProcess.run(PlumbProcess.tool("exiftool"), ["-s3", "-Rotation", file.path])
        let probe = try PlumbProcess.run(PlumbProcess.tool("ffprobe"), ["-v", "error", "-show_streams", file.path])
        let line = probe.stdout.split(separator: "\n").first { $0.hasPrefix("rotation=") }
        return (exif.stdout.trimmingCharacters(in: .whitespacesAndNewlines), line.map { String($0.dropFirst(9)) })
    }

    func testPhotosAtEachAngle() throws {
        let dir = try temporaryDirectory(self)
        for (angle, orientation) in [(0, "1"), (90, "6"), (180, "3"), (270, "8")] {
            let file = dir.appendingPathComponent("p\(angle).jpg")
            let r = try PlumbProcess.plumb("photo", "--camera", "test", "--size", "320x240", "-o", file.path,
                                           "--accelerometer", "fixed:\(angle)")
            XCTAssertEqual(r.code, 0, r.stderr)
            let exif = try PlumbProcess.run(PlumbProcess.tool("exiftool"), ["-n", "-s3", "-Orientation", file.path])
            XCTAssertEqual(exif.stdout.trimmingCharacters(in: .whitespacesAndNewlines), orientation, "angle \(angle)")
            let facts = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any])
            XCTAssertEqual(facts["orientation"] as? Int, Int(orientation))
        }
        // A mount without a sensor: the device is taken as upright.
        let mounted = dir.appendingPathComponent("m.jpg")
        XCTAssertEqual(try PlumbProcess.plumb("photo", "--camera", "test", "-o", mounted.path, "--mount", "270").code, 0)
        let exif = try PlumbProcess.run(PlumbProcess.tool("exiftool"), ["-n", "-s3", "-Orientation", mounted.path])
        XCTAssertEqual(exif.stdout.trimmingCharacters(in: .whitespacesAndNewlines), "8")
    }

    /// The sensor is read from the moment the camera opens: a turn during the settle time is
    /// in the still, a turn after the shutter is not.
    func testAPhotoGetsTheTurnMadeWhileTheExposureSettles() throws {
        let dir = try temporaryDirectory(self)
        let replay = dir.appendingPathComponent("turn.txt")
        // Upright, turned 90° clockwise after 0.2 s, upside down after 30 s.
        try "0 0 9.81 0\n200 -9.81 0 0\n30000 0 -9.81 0\n".write(to: replay, atomically: true, encoding: .utf8)
        let file = dir.appendingPathComponent("settled.jpg")
        let r = try PlumbProcess.plumb("photo", "--camera", "test", "--size", "160x120", "-o", file.path,
                                       "--settle", "2000", "--accelerometer", "replay:\(replay.path)")
        XCTAssertEqual(r.code, 0, r.stderr)
        XCTAssertEqual(try exif(file)["Orientation"], "6", "the device was turned 90° clockwise when the shutter fired")
        let facts = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any])
        XCTAssertEqual(facts["orientation"] as? Int, 6)
    }

    func testRecordingCarriesTheMatrix() throws {
        let dir = try temporaryDirectory(self)
        for angle in [90, 270] {
            let file = dir.appendingPathComponent("r\(angle).mp4")
            let r = try PlumbProcess.plumb("record", "--seconds", "1", "--camera", "test", "--size", "320x240",
                                           "-o", file.path, "--accelerometer", "fixed:\(angle)")
            XCTAssertEqual(r.code, 0, r.stderr)
            let (exif, probe) = try mp4Rotation(file)
            XCTAssertEqual(exif, "\(angle)")
            XCTAssertEqual(probe, ffprobeRotation[angle]!)
            XCTAssertEqual(try Probe.read(file)?.width, 320, "pixels are not turned")
        }
    }

    func testSplitOnRotationMakesOneUprightFilePerAngle() throws {
        let dir = try temporaryDirectory(self)
        let replay = dir.appendingPathComponent("turns.txt")
        try "0 0 9.81 0\n1000 -9.81 0 0\n2000 0 -9.81 0\n".write(to: replay, atomically: true, encoding: .utf8)
        let file = dir.appendingPathComponent("split.mp4")
        let r = try PlumbProcess.plumb("record", "--seconds", "3", "--camera", "test", "--size", "320x240",
                                       "-o", file.path, "--accelerometer", "replay:\(replay.path)", "--split-on-rotation")
        XCTAssertEqual(r.code, 0, r.stderr)
        let facts = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any])
        let segments = try XCTUnwrap(facts["segments"] as? [[String: Any]])
        XCTAssertEqual(segments.map { $0["rotation"] as? Int }, [0, 90, 180])
        var total = 0
        for segment in segments {
            let url = URL(fileURLWithPath: try XCTUnwrap(segment["file"] as? String))
            let probe = try XCTUnwrap(Probe.read(url))
            XCTAssertEqual(probe.frames, segment["frames"] as? Int)
            total += probe.frames
            let angle = segment["rotation"] as! Int
            XCTAssertEqual(try mp4Rotation(url).exiftool, "\(angle)")
        }
        XCTAssertEqual(total, facts["frames"] as? Int, "the files' frames add up to the frames recorded")
    }

    func testBurnInTurnsPixelsAndWritesNoMatrix() throws {
        let dir = try temporaryDirectory(self)
        let file = dir.appendingPathComponent("burn.mp4")
        let r = try PlumbProcess.plumb("record", "--seconds", "1", "--camera", "test", "--size", "320x240",
                                       "-o", file.path, "--accelerometer", "fixed:90", "--burn-in")
        XCTAssertEqual(r.code, 0, r.stderr)
        let probe = try XCTUnwrap(Probe.read(file))
        XCTAssertEqual([probe.width, probe.height], [240, 320])
        XCTAssertEqual(try mp4Rotation(file).ffprobe, nil)
        XCTAssertEqual(try mp4Rotation(file).exiftool, "0")
    }

    func testRunTurnsTheRolesOfADescriptionFile() throws {
        let dir = try temporaryDirectory(self)
        let file = dir.appendingPathComponent("run.mp4")
        let r = try PlumbProcess.plumb("run", "pipelines/record-mp4.pipeline", "-D", "location=\(file.path)",
                                       "-D", "frames=30", "-D", "width=320", "-D", "height=240",
                                       "--accelerometer", "fixed:180")
        XCTAssertEqual(r.code, 0, r.stderr)
        XCTAssertTrue(r.stdout.contains("turning rec_mux"), r.stdout)
        let (exif, probe) = try mp4Rotation(file)
        XCTAssertEqual(exif, "180")
        XCTAssertEqual(probe, "-180")
        // Nothing to turn is said plainly.
        let bare = dir.appendingPathComponent("bare.pipeline")
        try "videotestsrc num-buffers=3 ! fakesink\n".write(to: bare, atomically: true, encoding: .utf8)
        let none = try PlumbProcess.plumb("run", bare.path, "--accelerometer", "fixed:90")
        XCTAssertEqual(none.code, 0)
        XCTAssertTrue(none.stderr.contains("has no preview_flip or rec_mux element"), none.stderr)
    }

    /// A device named on the command line or in the config must be there: a typo is exit 2
    /// saying what was looked for and where, with nothing opened or written.
    func testAMistypedAccelerometerIsAUsageError() throws {
        let dir = try temporaryDirectory(self)
        let photo = dir.appendingPathComponent("x.jpg").path, movie = dir.appendingPathComponent("x.mp4").path
        for (args, expected) in [
            (["photo", "--camera", "test", "-o", photo, "--accelerometer", "iio:/nonexistent"],
             "plumb photo: --accelerometer: no IIO device at /nonexistent; there are "),
            (["photo", "--camera", "test", "-o", photo, "--accelerometer", "iio:nosuchchip"],
             "plumb photo: --accelerometer: no IIO device named \"nosuchchip\" under /sys/bus/iio/devices ("),
            (["record", "--seconds", "1", "--camera", "test", "-o", movie, "--accelerometer", "iio:/nonexistent"],
             "plumb record: --accelerometer: no IIO device at /nonexistent; there are "),
            (["run", PlumbProcess.root.appendingPathComponent("pipelines/test-preview.pipeline").path,
              "--accelerometer", "iio:iio:device99"],
             "no IIO device at /sys/bus/iio/devices/iio:device99"),
            (["serve", "--set", "rotation.accelerometer=iio:/nonexistent", "--set", "camera.device=test"],
             "plumb serve: command line: rotation.accelerometer=iio:/nonexistent: no IIO device at /nonexistent"),
        ] {
            let r = try PlumbProcess.run(PlumbProcess.binary, args, cwd: dir, timeout: 30)
            XCTAssertEqual(r.code, 2, "\(args): \(r.stderr)")
            XCTAssertTrue(r.stderr.contains(expected), "\(args): expected \"\(expected)\" in: \(r.stderr)")
        }
        // The same in a config file names the file, group and key.
        let ini = dir.appendingPathComponent("plumb.ini")
        try "[camera]\ndevice = test\n[rotation]\naccelerometer = iio:/nonexistent\n".write(to: ini, atomically: true, encoding: .utf8)
        let r = try PlumbProcess.run(PlumbProcess.binary, ["serve", "--config", ini.path], cwd: dir, timeout: 30)
        XCTAssertEqual(r.code, 2, r.stderr)
        XCTAssertTrue(r.stderr.contains("plumb serve: \(ini.path): [rotation] accelerometer = \"iio:/nonexistent\": "
                                        + "no IIO device at /nonexistent"), r.stderr)
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: dir.path), ["plumb.ini"], "nothing written")
    }

    /// `iio:PATH` reads that device (here a fake sysfs device lying turned 90° clockwise);
    /// plain `iio` on a machine without an IIO accelerometer goes on at fixed:0 and says so.
    func testAnIIODeviceIsReadAndPlainIIOFallsBackSayingSo() throws {
        let dir = try temporaryDirectory(self)
        let device = dir.appendingPathComponent("iio:device0")
        try FileManager.default.createDirectory(at: device, withIntermediateDirectories: true)
        for (file, value) in [("name", "lis3dh"), ("in_accel_scale", "0.00980665"), ("in_accel_x_raw", "-1000"),
                              ("in_accel_y_raw", "0"), ("in_accel_z_raw", "0")] {
            try (value + "\n").write(to: device.appendingPathComponent(file), atomically: true, encoding: .utf8)
        }
        let turned = dir.appendingPathComponent("turned.jpg")
        let r = try PlumbProcess.plumb("photo", "--camera", "test", "--size", "160x120", "-o", turned.path,
                                       "--accelerometer", "iio:\(device.path)")
        XCTAssertEqual(r.code, 0, r.stderr)
        XCTAssertEqual(try exif(turned)["Orientation"], "6", "a device turned 90° clockwise: EXIF Orientation 6")

        let plain = dir.appendingPathComponent("plain.jpg")
        let p = try PlumbProcess.plumb("photo", "--camera", "test", "--size", "160x120", "-o", plain.path,
                                       "--accelerometer", "iio")
        XCTAssertEqual(p.code, 0, p.stderr)
        let devices = (try? FileManager.default.contentsOfDirectory(atPath: "/sys/bus/iio/devices")) ?? []
        let hasAccelerometer = devices.contains {
            FileManager.default.fileExists(atPath: "/sys/bus/iio/devices/\($0)/in_accel_x_raw")
        }
        if hasAccelerometer {
            XCTAssertFalse(p.stderr.contains("warning"), "this machine has an IIO accelerometer: \(p.stderr)")
        } else {
            XCTAssertTrue(p.stderr.contains("plumb photo: warning: --accelerometer iio: no IIO accelerometer under "
                                            + "/sys/bus/iio/devices"), p.stderr)
            XCTAssertTrue(p.stderr.contains("going on with fixed:0"), p.stderr)
            XCTAssertEqual(try exif(plain)["Orientation"], "1")
        }
    }

    func testBadRotationArgumentsExit2() throws {
        let dir = try temporaryDirectory(self)
        for args in [["photo", "--camera", "test", "-o", dir.appendingPathComponent("x.jpg").path, "--accelerometer", "nope"],
                     ["record", "--seconds", "1", "--camera", "test", "-o", dir.appendingPathComponent("x.mp4").path, "--mount", "10"],
                     ["run", "pipelines/test-preview.pipeline", "--accelerometer", "replay:/nonexistent"]] {
            let r = try PlumbProcess.run(PlumbProcess.binary, args)
            XCTAssertEqual(r.code, 2, "\(args): \(r.stderr)")
        }
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: dir.path), [], "nothing written")
    }
}
