import Foundation
import PlumbTestSupport
import XCTest

/// `plumb serve`'s config and command line: bad values stop it at once with exit 2 and a
/// message naming the file, line, group and key; flags override the file; a camera that
/// is not there leaves the API up, answering 503 and saying why; a taken address is exit 1.
final class ServeCommandLineTests: XCTestCase {
    private func serve(_ config: String, _ arguments: String...) throws -> (result: ProcessResult, dir: URL) {
        let dir = try temporaryDirectory(self)
        let file = dir.appendingPathComponent("plumb.ini")
        try config.write(to: file, atomically: true, encoding: .utf8)
        let r = try PlumbProcess.run(PlumbProcess.binary, ["serve", "--config", file.path] + arguments, cwd: dir, timeout: 30)
        return (r, dir)
    }

    func testConfigErrorsNameTheFileGroupAndKeyAndStartNothing() throws {
        let cases: [(config: String, expected: [String])] = [
            ("[camera]\nsise = 640x480\n", [":2: [camera] sise", "unknown key", "did you mean \"size\""]),
            ("[recording]\ncodec = vp9\n", [":2: [recording] codec = \"vp9\"", "expected h264 or h265"]),
            ("[camara]\ndevice = test\n", [":1: unknown group [camara] (did you mean [camera]?)"]),
            ("[camera]\nsize = 641x480\n", ["[camera] size = \"641x480\"", "even numbers"]),
            ("[preview]\nstall-seconds = 0\n", [":2: [preview] stall-seconds = \"0\"", "from 1 to 300"]),
            ("[http]\nlisten = localhost:8080\n", ["[http] listen", "ADDR:PORT"]),
            ("[rotation]\naccelerometer = replay:/nonexistent/samples.txt\n",
             ["[rotation] accelerometer", "/nonexistent/samples.txt does not exist"]),
            ("this is not ini\n", ["plumb.ini:1", "syntax error"]),
        ]
        for (config, expected) in cases {
            let (r, dir) = try serve(config)
            XCTAssertEqual(r.code, 2, "\(config): \(r.stderr)")
            let file = dir.appendingPathComponent("plumb.ini").path
            XCTAssertTrue(r.stderr.contains("plumb serve: \(file)"), "the message must name the file: \(r.stderr)")
            for text in expected {
                XCTAssertTrue(r.stderr.contains(text), "\(config): expected \"\(text)\" in: \(r.stderr)")
            }
            XCTAssertFalse(FileManager.default.fileExists(atPath: dir.appendingPathComponent("recordings").path),
                           "nothing may be created: \(config)")
        }
        let missing = try PlumbProcess.plumb("serve", "--config", "/nonexistent/plumb.ini")
        XCTAssertEqual(missing.code, 2)
        XCTAssertTrue(missing.stderr.contains("/nonexistent/plumb.ini: cannot read the config file: there is no such file"),
                      missing.stderr)
    }

    /// What GLib would read without a word — a NUL byte ending a value (`fps = 3\0 00` as 3),
    /// a group written twice (merged), bytes that are not UTF-8 — stops the daemon with the
    /// file and line (exit 2), and `--print-config` prints nothing changed either.
    func testConfigTextGLibWouldChangeIsAnErrorAtItsLine() throws {
        let cases: [(bytes: [UInt8], expected: String)] = [
            (Array("[camera]\nfps = 3".utf8) + [0] + Array(" 00\n".utf8), "plumb.ini:2: a NUL byte at column 8"),
            (Array("[camera]\nfps = 10\n[http]\nlisten = 127.0.0.1:0\n[camera]\nsize = 640x480\n".utf8),
             "plumb.ini:5: [camera] appears again (first at line 1)"),
            (Array("[camera]\nfps = 10\nfps = 20\n".utf8), "plumb.ini:3: [camera] fps: fps is set again (first at line 2)"),
            (Array("[camera]\n# caf".utf8) + [0xE9] + Array("\nfps = 10\n".utf8),
             "plumb.ini:2: not UTF-8 text at column 6 (byte 0xE9)"),
        ]
        for (bytes, expected) in cases {
            let dir = try temporaryDirectory(self)
            let file = dir.appendingPathComponent("plumb.ini")
            try Data(bytes).write(to: file)
            for extra in [[], ["--print-config"]] {
                let r = try PlumbProcess.run(PlumbProcess.binary, ["serve", "--config", file.path] + extra, cwd: dir,
                                             timeout: 30)
                XCTAssertEqual(r.code, 2, "\(expected) \(extra): \(r.stderr)")
                XCTAssertTrue(r.stderr.contains("plumb serve: \(dir.path)/\(expected)"), "expected \"\(expected)\" in: \(r.stderr)")
                XCTAssertEqual(r.stdout, "", "nothing is printed from a config that was refused")
            }
            XCTAssertFalse(FileManager.default.fileExists(atPath: dir.appendingPathComponent("recordings").path))
        }
    }

    func testCommandLineOverridesAndItsErrors() throws {
        // --set and --listen override the file; --print-config shows the result, which reads back.
        let (printed, dir) = try serve("[camera]\nsize = 1920x1080\nfps = 25\n", "--set", "camera.size=640x480",
                                       "--listen", "0.0.0.0:9090", "--print-config")
        XCTAssertEqual(printed.code, 0, printed.stderr)
        XCTAssertTrue(printed.stdout.contains("size=640x480"), printed.stdout)
        XCTAssertTrue(printed.stdout.contains("fps=25"), printed.stdout)
        XCTAssertTrue(printed.stdout.contains("listen=0.0.0.0:9090"), printed.stdout)
        let copy = dir.appendingPathComponent("printed.ini")
        try printed.stdout.write(to: copy, atomically: true, encoding: .utf8)
        let reread = try PlumbProcess.plumb("serve", "--config", copy.path, "--print-config")
        XCTAssertEqual(reread.code, 0, reread.stderr)
        XCTAssertEqual(reread.stdout, printed.stdout, "the printed config must read back to itself")

        for (arguments, expected) in [
            (["--set", "camera.fps=0"], "command line: camera.fps=0: expected a whole number of frames per second from 1 to 240"),
            (["--set", "camera.colour=red"], "unknown setting \"camera.colour\""),
            (["--set", "camerasize"], "expected GROUP.KEY=VALUE"),
            (["--listen", "8080"], "command line: http.listen=8080"),
            (["--bogus"], "unknown option --bogus"),
        ] {
            let r = try PlumbProcess.run(PlumbProcess.binary, ["serve"] + arguments, cwd: dir)
            XCTAssertEqual(r.code, 2, "\(arguments): \(r.stderr)")
            XCTAssertTrue(r.stderr.contains(expected), "\(arguments): expected \"\(expected)\" in \(r.stderr)")
        }
    }

    /// A camera that cannot be opened: the daemon serves anyway, every camera request is
    /// 503 with the reason, and it keeps retrying. A second daemon on the same API port
    /// cannot start (exit 1, saying the port is taken); it has its own recordings folder, as
    /// two daemons never share one.
    func testNoCameraIs503AndATakenPortIsExit1() throws {
        let dir = try temporaryDirectory(self)
        let notACamera = dir.appendingPathComponent("video0")
        try Data("not a device".utf8).write(to: notACamera)
        let serve = try ServeProcess(self, ["camera": ["device": notACamera.path]])
        XCTAssertTrue(serve.log.contains("camera unavailable: camera \(notACamera.path): this is not a device file"), serve.log)

        let status = try serve.curl("GET", "/status")
        XCTAssertEqual(status.status, 200)
        XCTAssertEqual(try status.json()["state"] as? String, "unavailable")
        XCTAssertTrue((try status.json()["problem"] as? String ?? "").contains("not a device file"), status.text)
        for (method, path) in [("POST", "/photo"), ("POST", "/clip?seconds=1"), ("POST", "/recording/start")] {
            let r = try serve.curl(method, path)
            XCTAssertEqual(r.status, 503, "\(method) \(path): \(r.text)")
            XCTAssertTrue(r.error.contains("the camera is unavailable: camera \(notACamera.path)"), r.error)
        }
        let event = try serve.curl("POST", "/event")
        XCTAssertEqual(event.status, 503, event.text)
        XCTAssertTrue(event.error.contains("the camera is unavailable: camera \(notACamera.path)"), event.error)
        XCTAssertEqual(try serve.curl("GET", "/recordings").text, "[]")

        let port = try XCTUnwrap(serve.http.split(separator: ":").last)
        let second = try PlumbProcess.run(PlumbProcess.binary, ["serve", "--config", serve.configFile.path,
                                                               "--listen", "127.0.0.1:\(port)", "--set",
                                                               "recording.folder=\(dir.appendingPathComponent("second").path)"],
                                          timeout: 30)
        XCTAssertEqual(second.code, 1, second.stderr)
        XCTAssertTrue(second.stderr.contains("the port is already in use"), second.stderr)

        let (code, log) = serve.stop(SIGTERM)
        XCTAssertEqual(code, 0, log)
    }

    /// No config file, as `make run` starts it: the camera if there is one, else the test
    /// pattern; rotation from a sensor if there is one, else fixed — each said on stderr —
    /// and both addresses. (Ports and folder are moved out of the way of a real daemon.)
    func testWithoutAConfigFileItSaysWhatItFoundAndWhereItListens() throws {
        let dir = try temporaryDirectory(self)
        let (p, o, e) = try PlumbProcess.start(PlumbProcess.binary, [
            "serve", "--set", "preview.address=127.0.0.1", "--set", "preview.port=0", "--listen", "127.0.0.1:0",
            "--set", "recording.folder=\(dir.path)", "--set", "camera.size=320x240",
        ], cwd: dir)
        let log = try XCTUnwrap(PlumbProcess.waitFor("plumb serve: ready", in: e, timeout: 60), "plumb serve did not get ready")
        kill(p.processIdentifier, SIGTERM)
        let r = PlumbProcess.finish(p, o, e, timeout: 60)
        XCTAssertEqual(r.code, 0, log + r.stderr)
        let camera = log.contains("camera: the test pattern (no camera found; [camera] device = auto)")
            || log.contains(", the first camera found")
        XCTAssertTrue(camera, "which camera must be said: \(log)")
        let rotation = log.contains("rotation: fixed at 0 degrees (no accelerometer found; [rotation] accelerometer = auto)")
            || log.contains("rotation: IIO accelerometer") || log.contains("rotation: iio-sensor-proxy")
        XCTAssertTrue(rotation, "where the angle comes from must be said: \(log)")
        XCTAssertTrue(log.contains("RTSP preview: rtsp://127.0.0.1:"), log)
        XCTAssertTrue(log.contains("control API: http://127.0.0.1:"), log)
        XCTAssertTrue(r.stderr.contains("SIGTERM: finalizing every file and stopping"), r.stderr)
    }

    /// `--listen` on an address open to the network without `[http] token` starts, but
    /// says so: on stderr and in every `GET /status`. On loopback, or with a token, it
    /// says nothing. (The open daemon binds 0.0.0.0 for a few seconds: the point.)
    func testAControlAPIOpenToTheNetworkWithoutATokenIsWarnedAbout() throws {
        let warning = "the control API listens on 0.0.0.0, open to the network, without a token"
        let open = try ServeProcess(self, arguments: ["--listen", "0.0.0.0:0"])
        XCTAssertTrue(open.log.contains("plumb serve: warning: \(warning): anyone who reaches this machine"), open.log)
        let port = try XCTUnwrap(URL(string: open.http)?.port, open.log)
        let status = try HTTPReply.curl(["http://127.0.0.1:\(port)/status"], in: open.dir).json()
        let warnings = try XCTUnwrap(status["warnings"] as? [String], "\(status)")
        XCTAssertEqual(warnings.count, 1, "\(warnings)")
        XCTAssertTrue(warnings.first?.hasPrefix(warning) == true, "\(warnings)")
        XCTAssertTrue(warnings.first?.contains("set [http] token") == true, "\(warnings)")
        XCTAssertEqual(open.stop().code, 0)

        for (settings, arguments) in [([String: String](), ["--listen", "127.0.0.1:0"]),
                                      (["token": "0123456789abcdef0123"], ["--listen", "0.0.0.0:0"])] {
            let quiet = try ServeProcess(self, ["http": settings], arguments: arguments)
            XCTAssertFalse(quiet.log.contains("warning"), quiet.log)
            let status = try quiet.curl("GET", "/status").json()
            XCTAssertEqual(status["warnings"] as? [String], [], "\(arguments) \(settings)")
            XCTAssertEqual(quiet.stop().code, 0)
        }
    }
}
