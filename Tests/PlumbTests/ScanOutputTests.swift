import Foundation
import GLib
@testable import Plumb
import PlumbRotation
import PlumbTestSupport
import Synchronization
import XCTest

/// Scanning as an output: QR codes made by qrencode and linear codes by zint, placed by
/// ffmpeg on a white picture (`TestPictures`), shown through an `image:` camera, read by the scan branch.
final class ScanOutputTests: XCTestCase {
    private var pictures: TestPictures!

    override func setUpWithError() throws {
        pictures = try TestPictures(self)
    }

    private func qr(_ text: String, module: Int = 6) throws -> (TestPictures.Code, Int) {
        let code = try pictures.qr(text, module: module)
        return (code, code.width)
    }

    private func picture(width: Int = 640, height: Int = 480, codes: [(TestPictures.Code, x: Int, y: Int)],
                         transpose: Int? = nil) throws -> URL {
        try pictures.picture(width: width, height: height, codes: codes, transpose: transpose)
    }

    private func open(_ image: URL, width: Int = 640, height: Int = 480) async throws -> CaptureSession {
        let session = try await CaptureSession.open(try CameraSource.resolve("image:" + image.path),
                                                    size: VideoSize(width: width, height: height), rate: FrameRate(30))
        addTeardownBlock { await session.close() }
        return session
    }

    /// Attaches a scanner, lets it scan `frames` frames, detaches it; what it reported.
    private func scan(_ session: CaptureSession, _ options: ScanOptions, frames: Int = 20,
                      rotation: RotationAngle = .degrees0) async throws -> [ScanDetection] {
        await session.setRotation(rotation)
        let output = try ScanOutput(options: options)
        let recorder = Recorder(output.detections)
        try await session.attach(output)
        await eventually("\(frames) frames scanned (\(output.framesScanned) so far)", timeout: .seconds(60)) {
            output.framesScanned >= frames
        }
        try await session.detach(output)
        // The stream ends with the branch: everything reported is in.
        await eventually("detections did not end at detach", timeout: .seconds(10)) { recorder.isFinished }
        return recorder.all
    }

    private func assertBounds(_ b: NormalizedRect, _ e: NormalizedRect, tolerance: Double = 0.02,
                              file: StaticString = #filePath, line: UInt = #line) {
        for (got, want, name) in [(b.x, e.x, "x"), (b.y, e.y, "y"), (b.width, e.width, "width"), (b.height, e.height, "height")] {
            XCTAssertEqual(got, want, accuracy: tolerance, "\(name): bounds \(b), expected \(e)", file: file, line: line)
        }
    }

    /// One code held in view for 20 scanned frames is one detection with its data, type,
    /// quality and where it lies.
    func testACodeInViewIsReportedOnceWithItsDataAndBounds() async throws {
        let (code, side) = try qr("PLUMB-parcel-0042 ✓")
        let session = try await open(try picture(codes: [(code, x: 64, y: 96)]))
        let found = try await scan(session, ScanOptions(types: [.qr], rate: 10, width: 640))
        XCTAssertEqual(found.count, 1, "\(found.map(\.jsonLine))")
        let d = try XCTUnwrap(found.first)
        print("scan-detection: \(d.jsonLine)")
        XCTAssertEqual(d.symbology, .qr)
        XCTAssertEqual(d.text, "PLUMB-parcel-0042 ✓")
        XCTAssertEqual(d.data, Data("PLUMB-parcel-0042 ✓".utf8))
        XCTAssertGreaterThan(d.quality, 0)
        assertBounds(d.bounds, NormalizedRect(x: 64 / 640, y: 96 / 480, width: Double(side) / 640, height: Double(side) / 480))
        // The JSON line says the same.
        let json = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(d.jsonLine.utf8)) as? [String: Any])
        XCTAssertEqual(json["symbology"] as? String, "qr")
        XCTAssertEqual(json["text"] as? String, "PLUMB-parcel-0042 ✓")
        XCTAssertNil(json["base64"])
    }

    /// Only the region of interest is scanned: of two codes, the one outside it is not reported.
    func testACodeOutsideTheRegionIsNotReported() async throws {
        let (left, _) = try qr("left-code")
        let (right, _) = try qr("right-code")
        let session = try await open(try picture(codes: [(left, x: 40, y: 150), (right, x: 420, y: 150)]))
        let both = try await scan(session, ScanOptions(types: [.qr]))
        XCTAssertEqual(Set(both.compactMap(\.text)), ["left-code", "right-code"])
        let rightHalf = try await scan(session, ScanOptions(types: [.qr], region: try NormalizedRect.parse("0.5,0,0.5,1")))
        XCTAssertEqual(rightHalf.compactMap(\.text), ["right-code"])
        // Bounds are still of the whole picture, not of the region.
        let r = try XCTUnwrap(rightHalf.first).bounds
        XCTAssertEqual(r.x, 420.0 / 640, accuracy: 0.02)
    }

    /// The device turned a quarter: the sensor's frames hold the picture turned
    /// counter-clockwise and the capture angle is 90°. The bounds reported are those of the
    /// upright picture — the same as with the device held upright — and so is the region.
    func testBoundsAndRegionAreThoseOfTheUprightPicture() async throws {
        let (code, side) = try qr("turned")
        let upright = NormalizedRect(x: 64 / 640, y: 96 / 480, width: Double(side) / 640, height: Double(side) / 480)
        // transpose=2: the upright 640x480 picture as a sensor turned with the device sees it, 480x640.
        let sensor = try picture(codes: [(code, x: 64, y: 96)], transpose: 2)
        let session = try await open(sensor, width: 480, height: 640)
        let turned = try await scan(session, ScanOptions(types: [.qr]), rotation: .degrees90)
        print("scan-turned: \(turned.map(\.jsonLine)) upright \(upright)")
        XCTAssertEqual(turned.count, 1)
        assertBounds(try XCTUnwrap(turned.first).bounds, upright)
        // Without the angle the same frames give the sensor's own bounds: the check can fail.
        let raw = try await scan(session, ScanOptions(types: [.qr]), rotation: .degrees0)
        let r = try XCTUnwrap(raw.first).bounds
        XCTAssertGreaterThan(abs(r.y - upright.y) + abs(r.x - upright.x), 0.1, "\(r)")
        // The upright picture's left quarter holds the code; its right half does not.
        let left = try await scan(session, ScanOptions(types: [.qr], region: try .parse("0,0,0.5,1")), rotation: .degrees90)
        XCTAssertEqual(left.count, 1)
        let right = try await scan(session, ScanOptions(types: [.qr], region: try .parse("0.5,0,0.5,1")), rotation: .degrees90)
        XCTAssertEqual(right.count, 0)
    }

    /// A symbology not chosen is not reported.
    func testOnlyTheChosenTypesAreReported() async throws {
        let (code, _) = try qr("not-an-ean")
        let session = try await open(try picture(codes: [(code, x: 100, y: 100)]))
        let others = try await scan(session, ScanOptions(types: [.ean13, .code128]))
        XCTAssertEqual(others.count, 0)
        let withQR = try await scan(session, ScanOptions(types: [.qr, .ean13]))
        XCTAssertEqual(withQR.count, 1)
    }

    /// Linear codes made by zint: EAN-13, EAN-8, UPC-A, Code 128 and Code 39 in one picture,
    /// each decoded once with its data (check digit included) and its symbology; `types`
    /// selects: a code of a type not chosen is not reported.
    func testLinearCodesAreDecodedWithTheirSymbologyAndTypesSelect() async throws {
        let codes: [(TestPictures.Code, x: Int, y: Int)] = [
            (try pictures.barcode("CODE128", "PLUMB-parcel-0042"), x: 20, y: 20),
            (try pictures.barcode("EANX", "400638133393", height: 30), x: 20, y: 120),
            (try pictures.barcode("EANX", "9638507", height: 30), x: 340, y: 120),
            (try pictures.barcode("UPCA", "03600029145", height: 30), x: 20, y: 240),
            (try pictures.barcode("CODE39", "PLUMB-42"), x: 340, y: 240),
        ]
        let expected: [Symbology: String] = [.code128: "PLUMB-parcel-0042", .ean13: "4006381333931",
                                             .ean8: "96385074", .upca: "036000291452", .code39: "PLUMB-42"]
        let session = try await open(try picture(codes: codes))
        let all = try await scan(session, ScanOptions(types: [.ean13, .ean8, .upca, .code128, .code39], rate: 10))
        print("scan-linear: \(all.map(\.jsonLine))")
        XCTAssertEqual(all.count, 5, "each code once: \(all.map(\.jsonLine))")
        XCTAssertEqual(Dictionary(all.map { ($0.symbology, $0.text ?? "") }, uniquingKeysWith: { a, b in a + "|" + b }), expected)
        // Where each lies: the centre of its bounds is inside its own picture.
        for d in all {
            let (code, x, y) = codes[[Symbology.code128, .ean13, .ean8, .upca, .code39].firstIndex(of: d.symbology)!]
            let cx = (d.bounds.x + d.bounds.width / 2) * 640, cy = (d.bounds.y + d.bounds.height / 2) * 480
            XCTAssertTrue((Double(x)...Double(x + code.width)).contains(cx) && (Double(y)...Double(y + code.height)).contains(cy),
                          "\(d.jsonLine) is not within \(code.width)x\(code.height) at \(x),\(y)")
        }
        let chosen = try await scan(session, ScanOptions(types: [.ean8, .code39], rate: 10))
        XCTAssertEqual(chosen.map(\.symbology).sorted { $0.rawValue < $1.rawValue }, [.code39, .ean8], "\(chosen.map(\.jsonLine))")
        let one = try await scan(session, ScanOptions(types: [.code128], rate: 10))
        XCTAssertEqual(one.map(\.text), ["PLUMB-parcel-0042"])
    }

    /// The branch scans at its own reduced rate, and attaching and detaching it leave the
    /// camera running with nothing left behind.
    func testItScansAtItsRateAndAttachesAndDetachesLive() async throws {
        let (code, _) = try qr("rate")
        let session = try await open(try picture(codes: [(code, x: 100, y: 100)]))
        let elements = await session.elementCount
        let pads = await session.teePadCount
        let output = try ScanOutput(options: ScanOptions(types: [.qr], rate: 5))
        try await session.attach(output)
        let before = await session.frameCount
        try await session.waitForFrames(60, timeout: .seconds(60))
        let camera = await session.frameCount - before
        try await session.detach(output)
        // 5 of every 30 frames at most (plus the one in flight at each end).
        XCTAssertLessThanOrEqual(output.framesScanned, camera * 5 / 30 + 3, "\(output.framesScanned) of \(camera)")
        XCTAssertGreaterThan(output.framesScanned, 0)
        try await session.waitForFrames(10, timeout: .seconds(30))
        let elementsAfter = await session.elementCount
        let padsAfter = await session.teePadCount
        XCTAssertLessThanOrEqual(elementsAfter, elements + 1, "a spare head at most")
        XCTAssertEqual(padsAfter, pads)
    }

    /// Scanning at the camera's full rate, with four codes in every frame, slows no other
    /// branch: a recording made meanwhile has no gap above two frame intervals (by
    /// ffprobe's packet times) — or, on a machine so loaded that the camera itself lost
    /// frames, none wider than the camera's own gap and one interval (as the test below).
    func testScanningLeavesNoGapInARecording() async throws {
        var codes: [(TestPictures.Code, x: Int, y: Int)] = []
        for (i, (x, y)) in [(20, 20), (340, 20), (20, 250), (340, 250)].enumerated() {
            codes.append((try qr("parcel-\(i)-" + String(repeating: "x", count: 40), module: 4).0, x: x, y: y))
        }
        let session = try await open(try picture(codes: codes))
        let collected = Counter()
        let output = try ScanOutput(options: ScanOptions(types: [.qr], rate: 30)) { _ in collected.increment() }
        try await session.attach(output)
        let movie = try temporaryDirectory(self).appendingPathComponent("while-scanning.mp4")
        let recording = try await session.startRecording(to: movie)
        try await session.waitForFrames(120, timeout: .seconds(60))
        let facts = try await recording.stop()
        try await session.detach(output)
        // The camera's own frames (each frame's time as it entered the zoom, before the tee).
        let camera = await session.zoomLog.map { Double($0.pts) / 1e9 }
        let cameraGap = zip(camera, camera.dropFirst()).map { $1 - $0 }.max() ?? 0
        let allowed = max(2.0 / 30, cameraGap + 1.0 / 30) + 0.001
        XCTAssertEqual(collected.value, 4, "each code once")
        XCTAssertGreaterThan(output.framesScanned, 10)
        let r = try PlumbProcess.run(PlumbProcess.tool("ffprobe"), ["-v", "error", "-select_streams", "v:0",
                                                                  "-show_entries", "packet=pts_time", "-of", "csv=p=0", movie.path])
        let times = r.stdout.split(separator: "\n").compactMap { Double($0.trimmingCharacters(in: .punctuationCharacters)) }.sorted()
        XCTAssertGreaterThan(times.count, 90, r.stderr)
        let gaps = zip(times, times.dropFirst()).map { $1 - $0 }
        let widest = gaps.max() ?? 0
        print("scan-gap: \(times.count) frames, widest gap \(widest) s, \(output.framesScanned) frames scanned; "
              + "camera: \(camera.count) frames, widest gap \(cameraGap) s; lost by the camera \(facts.framesLostByCamera), "
              + "by the recording's encoder \(facts.framesLostByEncoder)")
        XCTAssertLessThanOrEqual(widest, allowed, "a gap of \(widest) s, the camera's widest was \(cameraGap) s")
    }

    /// Codes arriving 10 per second: 16 QR codes in a 4x4 grid, the zoom at 4x jumping to
    /// the next cell every 100 ms, so each tenth of a second the outputs see another code.
    /// With the scanner at the camera's rate, the recording (ffprobe's packet times) and the
    /// RTSP preview (the packets an ffprobe consumer of the stream read) have no gap above
    /// two frame intervals — or, on a machine so loaded that the camera itself lost frames,
    /// none wider than the camera's own gap and one interval.
    func testCodesArriving10PerSecondLeaveNoFrameGapOnThePreviewOrTheRecording() async throws {
        var codes: [(TestPictures.Code, x: Int, y: Int)] = []
        for i in 0..<16 {
            let code = try pictures.qr("code-\(i)", module: 3)
            codes.append((code, x: (i % 4) * 160 + (160 - code.width) / 2, y: (i / 4) * 120 + (120 - code.height) / 2))
        }
        let session = try await open(try picture(codes: codes))
        let preview = EncodedPreviewOutput(encoding: PreviewEncoding(keyframeInterval: 3000))
        try await session.attach(preview)
        let rtsp = try ServedPreview.start(self, stream: preview.stream)
        let found = Counter()
        let texts = Mutex<Set<String>>([])
        let scanner = try ScanOutput(options: ScanOptions(types: [.qr], rate: 30, forgetAfter: .milliseconds(300))) { d in
            found.increment()
            _ = texts.withLock { $0.insert(d.text ?? "") }
        }
        try await session.attach(scanner)
        let movie = try temporaryDirectory(self).appendingPathComponent("codes-10-per-second.mp4")
        // The preview's consumer: ffprobe reads 5 s of the RTSP stream, each packet's time.
        let consumer = try PlumbProcess.start(PlumbProcess.tool("ffprobe"), ["-v", "warning", "-rtsp_transport", "tcp",
                                                                            "-read_intervals", "%+5", "-select_streams", "v:0",
                                                                            "-show_entries", "packet=pts_time", "-of", "csv=p=0", rtsp.url])
        let recording = try await session.startRecording(to: movie)
        try await session.waitForFrames(15, timeout: .seconds(30))
        let shows = 40
        for i in 0..<shows {
            try await session.setZoom(4, centerX: (Double(i % 4) + 0.5) / 4, centerY: (Double(i / 4 % 4) + 0.5) / 4)
            try await Task.sleep(for: .milliseconds(100))  // the thing tested: a new code shown ten times a second
        }
        _ = try await recording.stop()
        let consumed = PlumbProcess.finish(consumer.0, consumer.1, consumer.2, timeout: 40)
        try await session.detach(scanner)
        // The camera's own frames (each frame's time as it entered the zoom): a machine too
        // loaded to run the camera on time shows here, and no output can have what it lost.
        let camera = await session.zoomLog.map { Double($0.pts) / 1e9 }
        let cameraGap = zip(camera, camera.dropFirst()).map { $1 - $0 }.max() ?? 0
        let allowed = max(2.0 / 30, cameraGap + 1.0 / 30) + 0.002
        print("scan-10-per-second camera: \(camera.count) frames, widest gap \(cameraGap) s; gaps allowed up to \(allowed) s")
        print("scan-10-per-second: \(found.value) detections of \(texts.withLock { $0.count }) codes in \(shows) shows, "
              + "\(scanner.framesScanned) frames scanned")
        XCTAssertEqual(consumed.code, 0, consumed.stderr)
        XCTAssertEqual(consumed.stderr.trimmingCharacters(in: .whitespacesAndNewlines), "", "the RTSP consumer warned")
        XCTAssertGreaterThanOrEqual(texts.withLock { $0.count }, 10, "the scanner missed most codes")
        XCTAssertGreaterThanOrEqual(found.value, 20, "the scanner missed most shows")
        let recorded = try PlumbProcess.run(PlumbProcess.tool("ffprobe"), ["-v", "error", "-select_streams", "v:0",
                                                                         "-show_entries", "packet=pts_time", "-of", "csv=p=0", movie.path])
        for (name, r, least) in [("recording", recorded, 90), ("preview", consumed, 100)] {
            let times = r.stdout.split(separator: "\n").compactMap { Double($0.trimmingCharacters(in: .punctuationCharacters)) }.sorted()
            XCTAssertGreaterThan(times.count, least, "\(name): \(r.stderr)")
            let widest = zip(times, times.dropFirst()).map { $1 - $0 }.max() ?? 0
            let wide = zip(times, times.dropFirst()).filter { $1 - $0 > 1.5 / 30 }.map { "\($0)->\($1)" }
            print("scan-10-per-second \(name): \(times.count) frames from \(times.first ?? 0) to \(times.last ?? 0), "
                  + "widest gap \(widest) s; gaps above 1.5 intervals: \(wide)")
            XCTAssertLessThanOrEqual(widest, allowed, "the \(name) has a gap of \(widest) s, the camera's widest was \(cameraGap) s")
        }
    }

    /// A code that leaves the view (the zoom takes the picture to the far corner for half a
    /// second of frames) and comes back is new again only when it was away longer than
    /// `forgetAfter`.
    func testACodeBackInViewIsNewAgainOnlyAfterTheForgetTime() async throws {
        let (code, _) = try qr("comes-and-goes")
        let session = try await open(try picture(codes: [(code, x: 40, y: 40)]))
        for (forget, expected) in [(Duration.milliseconds(100), 2), (.seconds(60), 1)] {
            try await session.setZoom(1)
            let output = try ScanOutput(options: ScanOptions(types: [.qr], rate: 30, forgetAfter: forget))
            let recorder = Recorder(output.detections)
            try await session.attach(output)
            await recorder.wait(timeout: .seconds(30)) { $0.count == 1 }
            try await session.setZoom(8, centerX: 1, centerY: 1)
            let away = output.framesScanned
            await eventually("output.framesScanned >= away + 15", timeout: .seconds(30)) { output.framesScanned >= away + 15 }
            try await session.setZoom(1)
            let back = output.framesScanned
            await eventually("output.framesScanned >= back + 15", timeout: .seconds(30)) { output.framesScanned >= back + 15 }
            try await session.detach(output)
            await eventually("recorder.isFinished", timeout: .seconds(10)) { recorder.isFinished }
            XCTAssertEqual(recorder.all.count, expected, "forget after \(forget): \(recorder.all.map(\.jsonLine))")
        }
    }

    func testBadOptionsAreRefused() {
        XCTAssertThrowsError(try ScanOutput(options: ScanOptions(rate: 0))) { XCTAssertTrue("\($0)".contains("scan rate")) }
        XCTAssertThrowsError(try NormalizedRect.parse("0.5,0.5,0.6,0.2")) { XCTAssertTrue("\($0)".contains("inside the picture")) }
        XCTAssertThrowsError(try NormalizedRect.parse("1,2")) { XCTAssertTrue("\($0)".contains("x,y,width,height")) }
        XCTAssertThrowsError(try Symbology.parseList("qr,aztec")) { XCTAssertTrue("\($0)".contains("aztec")) }
        XCTAssertEqual(try Symbology.parseList("QR, ean13"), [.qr, .ean13])
    }
}

/// Duplicate suppression on the frames' clock.
final class ScanDeduplicatorTests: XCTestCase {
    func testACodeIsNewAgainOnlyAfterItWasOutOfViewLongerThanTheTime() {
        let a = ScanDeduplicator.Key(symbology: .qr, data: Data("a".utf8))
        let b = ScanDeduplicator.Key(symbology: .ean13, data: Data("4006381333931".utf8))
        var d = ScanDeduplicator(forgetAfter: .milliseconds(500))
        let ms: UInt64 = 1_000_000
        XCTAssertEqual(d.newCodes([a], at: 0), [a])
        XCTAssertEqual(d.newCodes([a, a], at: 100 * ms), [], "still in view")
        XCTAssertEqual(d.newCodes([a, b], at: 200 * ms), [b])
        XCTAssertEqual(d.newCodes([], at: 300 * ms), [])
        XCTAssertEqual(d.newCodes([a], at: 600 * ms), [], "gone 400 ms: not long enough")
        XCTAssertEqual(d.newCodes([b], at: 1_300 * ms), [b], "gone 1.1 s")
        XCTAssertEqual(d.newCodes([a], at: 1_101 * ms), [a], "gone 501 ms")
        XCTAssertEqual(d.newCodes([a], at: 1_200 * ms), [], "back in view")
    }
}
