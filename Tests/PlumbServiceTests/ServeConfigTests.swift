import Foundation
import PlumbTestSupport
import GStreamer
@testable import Plumb
import PlumbRotation
@testable import PlumbService
import Soup
import XCTest
import GLib
@testable import PlumbLocation

private struct ExpectedAnError: Error {}

final class ServeConfigTests: XCTestCase {
    private var directory: URL!

    override func setUpWithError() throws {
        directory = try temporaryDirectory(self, "plumb-config")
    }

    private func write(_ text: String, name: String = "plumb.ini") throws -> String {
        let url = directory.appendingPathComponent(name)
        try text.write(to: url, atomically: true, encoding: .utf8)
        return url.path
    }

    /// Loads `text` from a real file and returns the error it must raise.
    private func loadError(_ text: String, file: StaticString = #filePath, line: UInt = #line) throws -> ConfigError {
        let path = try write(text)
        do {
            let config = try ServeConfig.load(path: path)
            XCTFail("expected an error, got \(config)", file: file, line: line)
            throw ExpectedAnError()
        } catch let error as ConfigError {
            return error
        }
    }

    static let exampleFile = PlumbProcess.root.appendingPathComponent("config/plumb.example.ini").path

    // MARK: Defaults and the example file

    func testDefaultsAreTheDocumentedOnes() throws {
        let c = ServeConfig()
        XCTAssertEqual(c.camera.device, .auto)
        XCTAssertEqual(c.camera.size, VideoSize(width: 1280, height: 720))
        XCTAssertEqual(c.camera.fps, 30)
        XCTAssertNil(c.rotation.accelerometer, "auto")
        XCTAssertEqual(c.rotation.mount, .degrees0)
        XCTAssertEqual(c.rotation.facing, .back)
        XCTAssertEqual(c.rotation.hysteresis, 20)
        XCTAssertFalse(c.rotation.splitOnRotation)
        XCTAssertEqual(c.preview.port, 8554)
        XCTAssertEqual(c.preview.path, "/preview")
        XCTAssertEqual(c.preview.bitrate, 2000)
        XCTAssertFalse(c.preview.letterbox)
        XCTAssertNil(c.preview.auth)
        XCTAssertEqual(c.preview.stallSeconds, 5)
        XCTAssertTrue(c.preview.onDemand)
        XCTAssertEqual(c.recording.folder, "recordings")
        XCTAssertEqual(c.recording.codec, .h264)
        XCTAssertEqual(c.recording.segmentSeconds, 300)
        XCTAssertFalse(c.recording.continuous)
        XCTAssertNil(c.publish.url)
        XCTAssertEqual(c.http.listen.description, "127.0.0.1:8080")
        XCTAssertNil(c.http.token)
        XCTAssertEqual(c.location.source, .off)
        XCTAssertEqual(c.location.maxFixAge, 300)
        XCTAssertEqual(c.events.preSeconds, 5)
        XCTAssertEqual(c.events.postSeconds, 10)
        XCTAssertEqual(c.events.maxSeconds, 300)
        XCTAssertEqual(c.events.maxBufferBytes, 32 << 20)
        // An empty file and a file of empty groups change nothing.
        XCTAssertEqual(try ServeConfig.parse(text: ""), c)
        XCTAssertEqual(try ServeConfig.parse(text: "[camera]\n[http]\n# nothing\n"), c)
    }

    func testExampleFileLoadsToTheDefaults() throws {
        let config = try ServeConfig.load(path: Self.exampleFile)
        XCTAssertEqual(config, ServeConfig(), "the example file must set every key to its default")
    }

    /// Every field of the typed struct (found by reflection, not from the key
    /// table) is a key of the example file, with the default value, and the
    /// example holds nothing else.
    func testExampleFileDocumentsEveryKeyOfTheStruct() throws {
        let example = KeyFile()
        try example.load(path: Self.exampleFile)
        var structKeys: [String] = []
        for group in Mirror(reflecting: ServeConfig()).children {
            let groupName = try XCTUnwrap(group.label)
            for field in Mirror(reflecting: group.value).children {
                structKeys.append("\(groupName).\(hyphenated(try XCTUnwrap(field.label)))")
            }
        }
        let exampleKeys = example.groups.flatMap { g in example.keys(in: g).map { "\(g).\($0)" } }
        XCTAssertEqual(Set(exampleKeys), Set(structKeys))
        XCTAssertEqual(exampleKeys.count, structKeys.count, "no key appears twice")
        XCTAssertEqual(Set(ServeConfig.keys.map(\.path)), Set(structKeys), "the key table covers the struct")
        XCTAssertEqual(structKeys.count, 58)
        // Each key is documented by a comment right above it, and set to the table's default.
        let lines = try String(contentsOfFile: Self.exampleFile, encoding: .utf8).split(separator: "\n", omittingEmptySubsequences: false)
        for key in ServeConfig.keys {
            XCTAssertEqual(example.rawValue(group: key.group, key: key.name) ?? "<missing>", key.defaultValue, key.path)
            let i = try XCTUnwrap(lines.firstIndex { $0.hasPrefix("\(key.name) =") }, key.path)
            XCTAssertTrue(lines[i - 1].hasPrefix("#"), "\(key.path) has a comment above it")
        }
    }

    private func hyphenated(_ camel: String) -> String {
        camel.reduce(into: "") { out, c in
            if c.isUppercase { out += "-" + c.lowercased() } else { out.append(c) }
        }
    }

    // MARK: Values

    func testEveryKeyParsesFromAFile() throws {
        let path = try write("""
            # every key, none at its default
            [camera]
            device = /dev/video2
            size = 640x480
            fps = 15
            image-folder = /srv/pictures
            [rotation]
            accelerometer = replay:/tmp/motion.txt
            mount = 90
            facing = front
            hysteresis = 12.5
            split-on-rotation = yes
            [preview]
            port = 9554
            path = /cam/front
            bitrate = 800
            letterbox = true
            auth = digest:viewer:se:cret
            stall-seconds = 30
            [recording]
            folder = /var/lib/plumb/recordings
            codec = h265
            segment-seconds = 0
            continuous = TRUE
            [publish]
            url = rtsp://mediamtx.local:8554/cam1
            [http]
            listen = [::1]:0
            token = 0123456789abcdef0123
            [location]
            source = gpsd:192.168.1.5:2948
            max-fix-age = 30.5
            """)
        let c = try ServeConfig.load(path: path)
        XCTAssertEqual(c.camera.device, .path("/dev/video2"))
        XCTAssertEqual(c.camera.size, VideoSize(width: 640, height: 480))
        XCTAssertEqual(c.camera.fps, 15)
        XCTAssertEqual(c.camera.imageFolder, "/srv/pictures")
        XCTAssertThrowsError(try ServeConfig.parse(text: "[camera]\nimage-folder = pictures\n")) { error in
            XCTAssertTrue("\(error)".contains("an absolute folder path"), "\(error)")
        }
        XCTAssertEqual(c.rotation.accelerometer, .replay(.file("/tmp/motion.txt")))
        XCTAssertEqual(c.rotation.mount, .degrees90)
        XCTAssertEqual(c.rotation.facing, .front)
        XCTAssertEqual(c.rotation.hysteresis, 12.5)
        XCTAssertTrue(c.rotation.splitOnRotation)
        XCTAssertEqual(c.preview.port, 9554)
        XCTAssertEqual(c.preview.path, "/cam/front")
        XCTAssertEqual(c.preview.bitrate, 800)
        XCTAssertTrue(c.preview.letterbox)
        XCTAssertEqual(c.preview.auth, PreviewCredentials(method: .digest, user: "viewer", password: "se:cret"))
        XCTAssertEqual(c.preview.stallSeconds, 30)
        XCTAssertEqual(c.recording.folder, "/var/lib/plumb/recordings")
        XCTAssertEqual(c.recording.codec, .h265)
        XCTAssertEqual(c.recording.segmentSeconds, 0)
        XCTAssertTrue(c.recording.continuous)
        XCTAssertEqual(c.publish.url, "rtsp://mediamtx.local:8554/cam1")
        XCTAssertEqual(c.http.listen, ListenAddress(host: "::1", port: 0))
        XCTAssertEqual(c.http.token, "0123456789abcdef0123")
        XCTAssertEqual(c.location.source, .gpsd(host: "192.168.1.5", port: 2948))
        XCTAssertEqual(c.location.maxFixAge, 30.5)
    }

    func testValueForms() throws {
        func parse(_ group: String, _ key: String, _ value: String) throws -> ServeConfig {
            try ServeConfig.parse(text: "[\(group)]\n\(key) = \(value)\n")
        }
        XCTAssertEqual(try parse("camera", "device", "test").camera.device, .test)
        XCTAssertEqual(try parse("camera", "device", "USB Camera: HD Webcam").camera.device, .name("USB Camera: HD Webcam"))
        XCTAssertEqual(try parse("rotation", "accelerometer", "iio").rotation.accelerometer, .iio(.any))
        XCTAssertEqual(try parse("rotation", "accelerometer", "iio:/sys/bus/iio/devices/iio:device0").rotation.accelerometer,
                       .iio(.path("/sys/bus/iio/devices/iio:device0")))
        XCTAssertEqual(try parse("rotation", "accelerometer", "sensor-proxy").rotation.accelerometer, .sensorProxy(.system))
        XCTAssertEqual(try parse("rotation", "accelerometer", "fixed:270").rotation.accelerometer, .fixed(.degrees270))
        XCTAssertEqual(try parse("rotation", "accelerometer", "replay:-").rotation.accelerometer, .replay(.standardInput))
        XCTAssertEqual(try parse("preview", "auth", "basic:admin:pw").preview.auth, PreviewCredentials(method: .basic, user: "admin", password: "pw"))
        XCTAssertEqual(try parse("http", "listen", "0.0.0.0:80").http.listen, ListenAddress(host: "0.0.0.0", port: 80))
        // GKeyFile escapes are undone: \s is a leading space, trimmed like any other.
        XCTAssertEqual(try parse("recording", "folder", "/srv/my\\sclips").recording.folder, "/srv/my clips")
        // Trailing blanks (which GKeyFile keeps) are ignored.
        XCTAssertEqual(try parse("camera", "fps", "25 \t ").camera.fps, 25)
        // A bad escape is a bad value.
        XCTAssertThrowsError(try parse("recording", "folder", "/srv/bad\\qescape")) { error in
            XCTAssertTrue("\(error)".contains("[recording] folder"), "\(error)")
        }
        // Empty means "off" for the optional keys.
        XCTAssertNil(try parse("publish", "url", "").publish.url)
        XCTAssertNil(try parse("http", "token", "").http.token)
        XCTAssertEqual(try parse("location", "source", "gpsd").location.source, .gpsd(host: "127.0.0.1", port: 2947))
        XCTAssertEqual(try parse("location", "source", "fixed:-34.6,-58.4,25").location.source,
                       .fixed(GeoLocation(latitude: -34.6, longitude: -58.4, altitude: 25)))
        XCTAssertEqual(try parse("location", "source", "off").location.source, .off)
        // [events]: seconds as numbers, the ring's bound as a size.
        XCTAssertEqual(try parse("events", "pre-seconds", "0").events.preSeconds, 0)
        XCTAssertEqual(try parse("events", "post-seconds", "2.5").events.postSeconds, 2.5)
        XCTAssertEqual(try parse("events", "max-buffer-bytes", "64K").events.maxBufferBytes, 64 << 10)
        XCTAssertEqual(try parse("events", "max-buffer-bytes", "1G").events.maxBufferBytes, 1 << 30)
    }

    /// `[rotation] accelerometer` is read once, by the engine's own parser: every form
    /// `--accelerometer` takes is the same `AccelerometerSpec` in the file (the bus of the
    /// sensor proxy, a device by name, upper-case kinds), and prints back to itself.
    func testAccelerometerTakesWhatAccelerometerSpecTakes() throws {
        let forms = ["iio", "iio:lis3dh", "iio:iio:device2", "iio:/sys/bus/iio/devices/iio:device0",
                     "sensor-proxy", "sensor-proxy:session", "sensor-proxy:unix:path=/run/test-bus",
                     "replay:/tmp/motion.txt", "replay:-", "fixed:90", "FIXED:180", "IIO"]
        for form in forms {
            let expected = try AccelerometerSpec(parsing: form)
            let config = try ServeConfig.parse(text: "[rotation]\naccelerometer = \(form)\n")
            XCTAssertEqual(config.rotation.accelerometer, expected, form)
            XCTAssertEqual(try ServeConfig.parse(text: config.iniText()), config, form)
        }
        XCTAssertNil(try ServeConfig.parse(text: "[rotation]\naccelerometer = auto\n").rotation.accelerometer)
        // What the spec refuses, the file refuses, at its line.
        for bad in ["auto:1", "iio:", "sensor-proxy:nowhere", "fixed:360", "replay:"] {
            let error = try loadError("[camera]\nfps = 30\n[rotation]\naccelerometer = \(bad)\n")
            XCTAssertEqual(error.line, 4, bad)
            XCTAssertEqual(error.key, "accelerometer", bad)
            XCTAssertThrowsError(try AccelerometerSpec(parsing: bad), bad)
        }
    }

    /// Each bad value is refused with the file, the line, the group, the key, the
    /// value and what would be accepted.
    func testBadValuesNameFileLineGroupKeyAndAcceptedValues() throws {
        let cases: [(group: String, key: String, value: String, accepted: String)] = [
            ("camera", "device", "", "auto, test, a device path"),
            ("camera", "size", "big", "WIDTHxHEIGHT"),
            ("camera", "size", "1280x", "WIDTHxHEIGHT"),
            ("camera", "size", "641x480", "even numbers"),
            ("camera", "size", "99999x480", "from 16 to 8192"),
            ("camera", "fps", "0", "from 1 to 240"),
            ("camera", "fps", "30fps", "from 1 to 240"),
            ("rotation", "accelerometer", "gyro", "iio, iio:PATH, sensor-proxy, replay:FILE or fixed:ANGLE"),
            ("rotation", "accelerometer", "fixed:45", "fixed:ANGLE"),
            ("rotation", "accelerometer", "replay:", "replay:FILE"),
            ("rotation", "mount", "45", "0, 90, 180 or 270"),
            ("rotation", "facing", "left", "back or front"),
            ("rotation", "hysteresis", "50", "from 0 to 40"),
            ("rotation", "hysteresis", "nan", "from 0 to 40"),
            ("rotation", "split-on-rotation", "maybe", "true or false"),
            ("preview", "port", "70000", "from 1 to 65535"),
            ("preview", "port", "-1", "from 1 to 65535"),
            ("preview", "path", "preview", "starting with /"),
            ("preview", "path", "/pre view", "starting with /"),
            ("preview", "bitrate", "fast", "kbit/s"),
            ("preview", "letterbox", "2", "true or false"),
            ("preview", "auth", "basic:admin", "basic:USER:PASSWORD"),
            ("preview", "auth", "ntlm:a:b", "none, basic:USER:PASSWORD or digest:USER:PASSWORD"),
            ("preview", "stall-seconds", "0", "a whole number of seconds from 1 to 300"),
            ("preview", "stall-seconds", "2.5", "a whole number of seconds from 1 to 300"),
            ("preview", "stall-seconds", "301", "a whole number of seconds from 1 to 300"),
            ("preview", "on-demand", "sometimes", "true or false"),
            ("recording", "codec", "vp9", "h264 or h265"),
            ("recording", "segment-seconds", "86401", "0 (one file per recording)"),
            ("recording", "continuous", "always", "true or false"),
            ("publish", "url", "http://example.com/x", "rtsp://HOST[:PORT]/PATH"),
            ("publish", "url", "rtsp://server", "rtsp://HOST[:PORT]/PATH"),
            ("http", "listen", "8080", "ADDR:PORT"),
            ("http", "listen", "localhost:8080", "ADDR:PORT"),
            ("http", "listen", "127.0.0.1:99999", "ADDR:PORT"),
            ("http", "listen", "::1:8080", "[::1]:8080"),
            ("http", "token", "short", "at least 16 printable ASCII characters"),
            ("location", "source", "gps", "gpsd, gpsd:HOST:PORT, fixed:LAT,LON or fixed:LAT,LON,ALT"),
            ("location", "source", "gpsd:host", "gpsd:HOST:PORT"),
            ("location", "source", "fixed:91,0", "fixed:LAT,LON"),
            ("location", "max-fix-age", "0", "from 0.1 to 86400"),
            ("location", "max-fix-age", "5m", "a number of seconds"),
            ("events", "pre-seconds", "-1", "a number of seconds from 0 to 60"),
            ("events", "pre-seconds", "61", "a number of seconds from 0 to 60"),
            ("events", "post-seconds", "10s", "a number of seconds from 0 to 3600"),
            ("events", "max-seconds", "0", "a number of seconds from 1 to 86400"),
            ("events", "max-buffer-bytes", "12Q", "a size from 64K to 1G"),
            ("events", "max-buffer-bytes", "1K", "a size from 64K to 1G"),
            ("events", "max-buffer-bytes", "2G", "a size from 64K to 1G"),
        ]
        for c in cases {
            // Two lines of padding so the line number is not trivially 1 or 2.
            let error = try loadError("# config\n\n[\(c.group)]\n\(c.key) = \(c.value)\n")
            let label = "[\(c.group)] \(c.key) = \(c.value)"
            XCTAssertEqual(error.line, 4, label)
            XCTAssertEqual(error.group, c.group, label)
            XCTAssertEqual(error.key, c.key, label)
            XCTAssertEqual(error.value, c.value, label)
            let text = error.description
            XCTAssertTrue(text.hasPrefix(directory.appendingPathComponent("plumb.ini").path + ":4: [\(c.group)] \(c.key) = \"\(c.value)\": expected "), text)
            XCTAssertTrue(text.contains(c.accepted), "\(text) should name \(c.accepted)")
        }
    }

    func testUnknownGroupIsAnErrorWithItsLineAndTheKnownGroups() throws {
        let error = try loadError("[camera]\nfps = 25\n\n[camra]\ndevice = test\n")
        XCTAssertEqual(error.line, 4)
        XCTAssertEqual(error.group, "camra")
        XCTAssertNil(error.key)
        let text = error.description
        XCTAssertTrue(text.contains("plumb.ini:4: unknown group [camra] (did you mean [camera]?)"), text)
        XCTAssertTrue(text.contains("[camera], [rotation], [preview], [recording], [publish], [http], [location]"), text)
    }

    func testUnknownKeyIsAnErrorWithItsLineAndTheGroupsKeys() throws {
        let error = try loadError("[http]\nlisten = 127.0.0.1:8080\n\n[recording]\ncodec = h264\nsegment-second = 60\n")
        XCTAssertEqual(error.line, 6)
        XCTAssertEqual(error.group, "recording")
        XCTAssertEqual(error.key, "segment-second")
        XCTAssertTrue(error.description.contains("unknown key \"segment-second\" in [recording] (did you mean \"segment-seconds\"?)"), error.description)
        XCTAssertTrue(error.description.contains("folder, codec, encoder, segment-seconds, continuous"), error.description)
        // Keys are case-sensitive, as GKeyFile reads them; the message points at the right spelling.
        let upper = try loadError("[camera]\nFPS = 30\n")
        XCTAssertTrue(upper.description.contains("(did you mean \"fps\"?)"), upper.description)
        // A localized key, which GKeyFile would hide, is refused too.
        let localized = try loadError("[camera]\ndevice = test\ndevice[de] = test\n")
        XCTAssertEqual(localized.key, "device[de]")
        XCTAssertEqual(localized.line, 3)
    }

    func testSyntaxErrorsNameTheLine() throws {
        let error = try loadError("[camera]\nfps = 30\nthis line is not a key\n")
        XCTAssertEqual(error.line, 3)
        XCTAssertTrue(error.description.contains("plumb.ini:3: syntax error"), error.description)
        let noGroup = try loadError("fps = 30\n[camera]\n")
        XCTAssertEqual(noGroup.line, 1)
    }

    /// Loads raw bytes from a real file and returns the error they must raise.
    private func loadError(bytes: [UInt8], file: StaticString = #filePath, line: UInt = #line) throws -> ConfigError {
        let url = directory.appendingPathComponent("plumb.ini")
        try Data(bytes).write(to: url)
        do {
            let config = try ServeConfig.load(path: url.path)
            XCTFail("expected an error, got \(config)", file: file, line: line)
            throw ExpectedAnError()
        } catch let error as ConfigError {
            return error
        }
    }

    /// GLib would end the value at the NUL (`fps = 3\0 00` read as 3): an error at its line,
    /// from a file and from text alike.
    func testNULByteIsAnErrorAtItsLine() throws {
        let text = "[camera]\nsize = 640x480\nfps = 3\u{0} 00\n"
        let error = try loadError(bytes: Array(text.utf8))
        XCTAssertEqual(error.line, 3, error.description)
        XCTAssertTrue(error.description.hasSuffix("plumb.ini:3: a NUL byte at column 8: a config file is text, "
                                                  + "and GLib would end the line's value there; remove it"), error.description)
        XCTAssertThrowsError(try ServeConfig.parse(text: text)) { error in
            XCTAssertEqual((error as? ConfigError)?.line, 3, "\(error)")
        }
    }

    /// Bytes that are not UTF-8: the error names the line and the column.
    func testNonUTF8IsAnErrorAtItsLine() throws {
        // Latin-1 "café" in a comment on line 3.
        let bytes: [UInt8] = Array("[camera]\nfps = 30\n# caf".utf8) + [0xE9] + Array("\nsize = 640x480\n".utf8)
        let error = try loadError(bytes: bytes)
        XCTAssertEqual(error.line, 3, error.description)
        XCTAssertTrue(error.description.hasSuffix("plumb.ini:3: not UTF-8 text at column 6 (byte 0xE9); save the file as UTF-8"),
                      error.description)
        // Overlong forms and surrogates are not UTF-8 either.
        for bad: [UInt8] in [[0xC0, 0xAF], [0xED, 0xA0, 0x80], [0xF4, 0x90, 0x80, 0x80], [0xE2, 0x82]] {
            let e = try loadError(bytes: Array("[camera]\ndevice = ".utf8) + bad + [0x0A])
            XCTAssertEqual(e.line, 2, "\(bad): \(e)")
            XCTAssertTrue(e.message.contains("not UTF-8"), "\(bad): \(e)")
        }
        // Well-formed multi-byte text is fine.
        XCTAssertEqual(try ServeConfig.load(path: try write("# café → 📷\n[camera]\nfps = 25\n")).camera.fps, 25)
    }

    /// Issue 22: a file that starts with a UTF-8 byte-order mark (Notepad writes one) was
    /// refused with a message quoting the invisible mark. It is skipped; one later in the
    /// file is text like any other, and NUL columns still count from the first character.
    func testAByteOrderMarkAtTheStartIsSkipped() throws {
        let bom: [UInt8] = [0xEF, 0xBB, 0xBF]
        let url = directory.appendingPathComponent("bom.ini")
        try Data(bom + Array("[camera]\nfps = 25\n[http]\nlisten = 127.0.0.1:9\n".utf8)).write(to: url)
        let config = try ServeConfig.load(path: url.path)
        XCTAssertEqual(config.camera.fps, 25)
        XCTAssertEqual(config.http.listen, try ServeConfig.parse(text: "[http]\nlisten = 127.0.0.1:9\n").http.listen)
        XCTAssertEqual(try ServeConfig.parse(text: "\u{FEFF}[camera]\nfps = 24\n").camera.fps, 24)
        // The mark does not shift columns: a NUL right after it is at column 1.
        let nul = try loadError(bytes: bom + [0] + Array("\n[camera]\n".utf8))
        XCTAssertTrue(nul.description.hasSuffix("plumb.ini:1: a NUL byte at column 1: a config file is text, "
                                                + "and GLib would end the line's value there; remove it"), nul.description)
    }

    /// A group written twice would be merged, a key written twice would keep its last value:
    /// each is an error at the second one's line that names the first.
    func testRepeatedGroupsAndKeysAreErrorsNamingBothLines() throws {
        let group = try loadError("[camera]\nfps = 10\n[http]\nlisten = 127.0.0.1:8080\n [camera] \nsize = 640x480\n")
        XCTAssertEqual(group.line, 5)
        XCTAssertEqual(group.group, "camera")
        XCTAssertTrue(group.description.hasSuffix("plumb.ini:5: [camera] appears again (first at line 1); "
                                                  + "write each group once, with all its keys under it"), group.description)
        let key = try loadError("[camera]\nfps = 10\n# the real rate:\nfps = 20\n")
        XCTAssertEqual(key.line, 4)
        XCTAssertEqual(key.key, "fps")
        XCTAssertTrue(key.description.contains("plumb.ini:4: [camera] fps: fps is set again (first at line 2)"),
                      key.description)
        // The same key in two groups is two keys.
        XCTAssertEqual(try ServeConfig.parse(text: "[preview]\nport = 8554\n[http]\nlisten = 127.0.0.1:1\n").preview.port, 8554)
    }

    /// What fuzzing found GKeyFile refusing (or reading) where Plumb found no line: each error
    /// names its line now.
    func testFuzzFindingsNameTheirLine() throws {
        let cases: [(text: String, line: Int, says: String)] = [
            // A key name with a bracket in it (GLib: "Invalid key name").
            ("[camera]\nfps = 30\nsi]ze = 640x480\n", 3, "syntax error: Invalid key name"),
            // A control character in a group name (GLib: "Invalid group name").
            ("[camera]\nfps = 30\n[re\rcording]\n", 3, "syntax error: Invalid group name"),
            // GLib drops the ASCII blanks before "=" (g_ascii_isspace: CR and FF too, not VT).
            ("[http]\nlisten\r = 127.0.0.1:8080\nlistn = 1\n", 3, "unknown key \"listn\""),
            ("[camera]\nfps\u{0C} = 0\n", 2, "expected a whole number"),
            ("[camera]\nfps\u{0B} = 0\n", 2, "unknown key"),
            // A combining mark after "=" or "[" makes one Character with it, not for GLib.
            ("[camera]\nfps =\u{301}30\n", 2, "expected a whole number"),
            ("[\u{301}camera]\nfps = 30\n", 1, "unknown group"),
        ]
        for (text, line, says) in cases {
            let error = try loadError(text)
            XCTAssertEqual(error.line, line, "\(text.debugDescription): \(error)")
            XCTAssertTrue(error.message.contains(says), "\(text.debugDescription): \(error)")
        }
    }

    /// CRLF files (GKeyFile reads them) get line numbers too.
    func testCRLFLinesAreNamed() throws {
        let error = try loadError("[camera]\r\nsize = 640x480\r\nfps = 0\r\n")
        XCTAssertEqual(error.line, 3, error.description)
        XCTAssertEqual(try ServeConfig.parse(text: "[camera]\r\nfps = 12\r\n").camera.fps, 12)
        let repeated = try loadError("[camera]\r\nfps = 1\r\n[camera]\r\n")
        XCTAssertEqual(repeated.line, 3, repeated.description)
    }

    func testUnreadableFiles() throws {
        let missing = directory.appendingPathComponent("nope.ini").path
        XCTAssertThrowsError(try ServeConfig.load(path: missing)) { error in
            XCTAssertEqual((error as? ConfigError)?.description, "\(missing): cannot read the config file: there is no such file")
        }
        XCTAssertThrowsError(try ServeConfig.load(path: directory.path)) { error in
            XCTAssertTrue("\(error)".contains("it is a directory"), "\(error)")
        }
        let binary = directory.appendingPathComponent("binary.ini")
        try Data([0x5B, 0x63, 0x5D, 0x0A, 0xFF, 0xFE, 0x0A]).write(to: binary)
        XCTAssertThrowsError(try ServeConfig.load(path: binary.path)) { error in
            XCTAssertTrue("\(error)".contains("binary.ini:2: not UTF-8 text at column 1 (byte 0xFF)"), "\(error)")
        }
    }

    // MARK: Command-line overrides

    func testOverridesWinOverTheFile() throws {
        let path = try write("[camera]\ndevice = /dev/video0\nfps = 15\n[http]\nlisten = 127.0.0.1:9000\n")
        let config = try ServeConfig.load(path: path).applying(overrides: [
            "camera.device": "test",
            "http.listen": "0.0.0.0:8081",
            "recording.continuous": "true",
        ])
        XCTAssertEqual(config.camera.device, .test)
        XCTAssertEqual(config.camera.fps, 15, "keys not overridden keep the file's value")
        XCTAssertEqual(config.http.listen.description, "0.0.0.0:8081")
        XCTAssertTrue(config.recording.continuous)
        // Typed setters are just the fields.
        var typed = config
        typed.http.listen = try ListenAddress(parsing: "[::1]:9090")
        XCTAssertEqual(typed.http.listen.port, 9090)
    }

    /// `[camera] controls`: NAME=VALUE items, kept in order; checked against the camera only
    /// when it opens (the daemon's tests), but a malformed list is refused with its key.
    func testCameraControlsParseAndMalformedOnesNameTheKey() throws {
        let config = try ServeConfig.parse(text: "[camera]\ncontrols = exposure=manual, exposure-time=0.01 ,brightness=200\n")
        XCTAssertEqual(config.camera.controls?.assignments.map { "\($0.name)=\($0.value)" },
                       ["exposure=manual", "exposure-time=0.01", "brightness=200"])
        XCTAssertEqual(try ServeConfig.parse(text: config.iniText()).camera.controls, config.camera.controls)
        XCTAssertNil(try ServeConfig.parse(text: "[camera]\ncontrols =\n").camera.controls)
        XCTAssertEqual(try ServeConfig().applying(overrides: ["camera.controls": "gain=10"]).camera.controls?.assignments.first?.value, "10")
        XCTAssertThrowsError(try ServeConfig.parse(text: "[camera]\ncontrols = exposure manual\n")) { error in
            let e = error as! ConfigError
            XCTAssertEqual(e.group, "camera")
            XCTAssertEqual(e.key, "controls")
            XCTAssertEqual(e.line, 2)
            XCTAssertTrue(e.description.contains("expected NAME=VALUE items separated by commas"), e.description)
        }
        XCTAssertThrowsError(try ServeConfig().applying(overrides: ["camera.controls": "=5"])) { error in
            XCTAssertTrue("\(error)".contains("camera.controls==5: expected NAME=VALUE"), "\(error)")
        }
    }

    func testBadOverridesSayWhatToFix() throws {
        XCTAssertThrowsError(try ServeConfig().applying(overrides: ["camera.size": "huge"])) { error in
            let e = error as! ConfigError
            XCTAssertEqual(e.origin, .commandLine)
            XCTAssertEqual(e.description, "command line: camera.size=huge: expected WIDTHxHEIGHT with even numbers from 16 to 8192, e.g. 1280x720")
        }
        XCTAssertThrowsError(try ServeConfig().applying(overrides: ["camera.fsp": "30"])) { error in
            XCTAssertTrue("\(error)".contains("unknown setting \"camera.fsp\" (did you mean \"camera.fps\"?)"), "\(error)")
        }
        XCTAssertThrowsError(try ServeConfig().applying(overrides: ["fps": "30"])) { error in
            XCTAssertTrue("\(error)".contains("settings are GROUP.KEY"), "\(error)")
        }
    }

    // MARK: Writing the config back

    func testIniTextReadsBackToTheSameConfig() throws {
        var config = ServeConfig()
        config.camera.device = .name("HD Webcam: video0")
        config.rotation.accelerometer = .fixed(.degrees180)
        config.rotation.hysteresis = 22.5
        config.preview.auth = PreviewCredentials(method: .basic, user: "u", password: "p:w")
        config.recording.folder = " leading space"
        config.publish.url = "rtsps://nvr:322/cam"
        config.http.token = "abcdefghijklmnopqrstuvwxyz"
        config.location.source = .fixed(GeoLocation(latitude: 48.8584, longitude: 2.2945, altitude: 35.5))
        config.location.maxFixAge = 12.5
        config.events.preSeconds = 2.5
        config.events.maxBufferBytes = 1536 << 10
        let text = config.iniText()
        XCTAssertEqual(try ServeConfig.parse(text: text), config)
        // And it is readable by GKeyFile itself, key for key.
        let file = KeyFile()
        try file.load(text: text)
        XCTAssertEqual(try file.string(group: "recording", key: "folder"), " leading space")
        XCTAssertEqual(file.groups, ServeConfig.groups)

        let redacted = config.iniText(redactingSecrets: true)
        XCTAssertFalse(redacted.contains("p:w"))
        XCTAssertFalse(redacted.contains("abcdefghijklmnopqrstuvwxyz"))
        XCTAssertTrue(redacted.contains("token=***"), redacted)
        XCTAssertTrue(ServeConfig().iniText(redactingSecrets: true).contains("auth=none"))
    }
}
