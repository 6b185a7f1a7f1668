import Foundation
import PlumbTestSupport
import XCTest

/// `[scan]` in a real `plumb serve` on an `image:` camera showing a QR code made by
/// qrencode: a `barcode` event on /events (curl), `GET /scans`, a still saved with it.
final class ServeScanTests: XCTestCase {
    private func codePicture(_ text: String) throws -> URL {
        let pictures = try TestPictures(self)
        return try pictures.picture(codes: [(try pictures.qr(text), x: 64, y: 96)])
    }

    func testADetectionIsABarcodeEventAScanAndAStill() throws {
        let picture = try codePicture("visitor-pass-31")
        let blank = picture.deletingLastPathComponent().appendingPathComponent("blank.png")
        let made = try PlumbProcess.run(PlumbProcess.tool("ffmpeg"), [
            "-v", "error", "-y", "-f", "lavfi", "-i", "color=white:s=640x480", "-frames:v", "1", blank.path])
        XCTAssertEqual(made.code, 0, made.stderr)
        // The code comes into view once the event stream listens (a switch to its camera):
        // a detection made before a client connects is not sent to it.
        let serve = try ServeProcess(self, [
            "camera": ["device": "image:" + blank.path, "size": "640x480",
                       "image-folder": picture.deletingLastPathComponent().path],
            "scan": ["enabled": "true", "types": "qr", "photo": "true", "rate": "10"],
        ])
        let tap = try EventTap(serve, self)
        eventually("the event stream did not open: \(tap.raw)", timeout: .seconds(10)) { tap.raw.contains("retry:") }
        let switched = try serve.curl("POST", "/camera?device=image:\(picture.path)")
        XCTAssertEqual(switched.status, 200, switched.text)
        eventually(tap.raw, timeout: .seconds(60)) { !tap.named("barcode").isEmpty }
        let event = try XCTUnwrap(tap.named("barcode").first).data
        XCTAssertEqual(event["symbology"] as? String, "qr")
        XCTAssertEqual(event["text"] as? String, "visitor-pass-31")
        let bounds = try XCTUnwrap(event["bounds"] as? [String: Double])
        XCTAssertEqual(bounds["x"] ?? -1, 64.0 / 640, accuracy: 0.02)
        XCTAssertEqual(bounds["y"] ?? -1, 96.0 / 480, accuracy: 0.02)
        // The still saved with it: a JPEG of the camera's picture, as ffprobe reads it.
        let photo = try XCTUnwrap(event["photo"] as? String, "\(event)")
        let probe = try PlumbProcess.run(PlumbProcess.tool("ffprobe"), [
            "-v", "error", "-show_entries", "stream=codec_name,width,height", "-of", "csv=p=0",
            serve.folder.appendingPathComponent(photo).path])
        XCTAssertEqual(probe.stdout.trimmingCharacters(in: .whitespacesAndNewlines), "mjpeg,640,480", probe.stderr)

        // The code stays in view: still one detection a while later.
        Thread.sleep(forTimeInterval: 2)  // the thing tested: no second detection over this time
        XCTAssertEqual(tap.named("barcode").count, 1, tap.raw)
        let scans = try serve.curl("GET", "/scans")
        XCTAssertEqual(scans.status, 200, scans.text)
        let reply = try scans.json()
        XCTAssertEqual(reply["enabled"] as? Bool, true)
        let list = try XCTUnwrap(reply["scans"] as? [[String: Any]])
        XCTAssertEqual(list.count, 1, scans.text)
        XCTAssertEqual(list.first?["text"] as? String, "visitor-pass-31")
        XCTAssertEqual(list.first?["photo"] as? String, photo)
        let bad = try serve.curl("GET", "/scans?limit=0")
        XCTAssertEqual(bad.status, 400, bad.text)
        XCTAssertTrue(bad.error.contains("limit=0"), bad.text)
        XCTAssertEqual(serve.stop().code, 0)
    }

    /// Off by default: no scans, and /scans says so.
    func testScanningIsOffUnlessAsked() throws {
        let picture = try codePicture("nobody-reads-this")
        let serve = try ServeProcess(self, ["camera": ["device": "image:" + picture.path, "size": "640x480"]])
        Thread.sleep(forTimeInterval: 1.5)  // the thing tested: nothing scanned over this time
        let reply = try serve.curl("GET", "/scans").json()
        XCTAssertEqual(reply["enabled"] as? Bool, false)
        XCTAssertEqual((reply["scans"] as? [Any])?.count, 0)
        XCTAssertEqual(serve.stop().code, 0)
    }
}
