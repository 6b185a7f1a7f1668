import Foundation
import PlumbTestSupport
import XCTest

/// The control page in a real browser (issue 13): Debian's chromium, headless, driven by
/// chromium-driver through selenium (Tests/Scripts/page_in_chromium.py), against a real
/// `plumb serve` whose accelerometer the test replays.
final class ServePageBrowserTests: XCTestCase {
    struct Seen: Decodable {
        var first_frame_ms: Int?
        var video_width: Int
        var video_height: Int
        var current_time_advance: Double
        var still_width: Int?
        var recordings_listed: [String]
        var thumbnail_width: Int?
        var download_href: String?
        var rotated_width: Int?
        var rotated_height: Int?
        var angle_shown: String?
        var rotated: Bool?
        var error_shown: String
        var viewers_shown: String
        var controls_reason: String
        var phone_overflow_px: Int
        var phone_outside: [String]
        var motion_state: String
        var motion_boxes: Int
        var motion_box_drawn: Bool
        var mask_after_drag: [[Double]]
        var mask_shown: Int
        var mask_line_shown: String
        var mask_after_clear: [[Double]]?
    }

    /// The video plays (640x480, currentTime advancing for 3 s), a still taken on the page
    /// appears, a recording started and stopped on the page is listed and its download
    /// plays (ffprobe), and a replayed rotation turns the video and the page shows the
    /// angle; with `[motion]` on, the ball is "motion" on the page with its boxes over the
    /// video, and a mask dragged on the video reaches GET /motion (and is cleared by the
    /// page's button); on a phone's screen (390 px) nothing is wider than the screen. The
    /// screenshots stay in .build/test-artifacts/ for a person to look at.
    func testThePagePlaysTakesAStillRecordsAndTurnsInChromium() throws {
        let serve = try ServeProcess(self, [
            "camera": ["size": "640x480"],
            "rotation": ["accelerometer": "replay:-"],
            "motion": ["enabled": "true", "event": "false"],
        ], withInput: true)
        serve.feed("0 0 9.81 0")  // upright
        let python = try TestVenv.ready()
        let artifacts = PlumbProcess.root.appendingPathComponent(".build/test-artifacts")
        try FileManager.default.createDirectory(at: artifacts, withIntermediateDirectories: true)
        let screenshot = artifacts.appendingPathComponent("control-page.png")
        try? FileManager.default.removeItem(at: screenshot)
        try? FileManager.default.removeItem(at: artifacts.appendingPathComponent("control-page-phone.png"))
        let rotateSignal = serve.dir.appendingPathComponent("rotate-now")
        let (browser, out, err) = try PlumbProcess.start(python, [TestVenv.script("page_in_chromium.py").path,
                                                                  serve.http + "/", screenshot.path, rotateSignal.path])
        addTeardownBlock { if browser.isRunning { kill(browser.processIdentifier, SIGKILL) } }
        // The script asks for the turn once the first checks are done.
        eventually("the page's signal to rotate, or the browser's exit", timeout: .seconds(120)) {
            FileManager.default.fileExists(atPath: rotateSignal.path) || !browser.isRunning
        }
        serve.feed("100 -9.81 0 0")  // 90° clockwise
        let result = PlumbProcess.finish(browser, out, err, timeout: 120)
        XCTAssertEqual(result.code, 0, result.stderr)
        let line = try XCTUnwrap(result.stdout.split(separator: "\n").last, result.stderr)
        let seen = try JSONDecoder().decode(Seen.self, from: Data(line.utf8))
        print("chromium saw: \(line); screenshot \(screenshot.path)")

        XCTAssertEqual(seen.video_width, 640)
        XCTAssertEqual(seen.video_height, 480)
        XCTAssertGreaterThan(seen.current_time_advance, 2.5, "the video plays")
        XCTAssertEqual(seen.still_width, 640, "the still appears on the page")
        XCTAssertEqual(seen.error_shown, "")
        XCTAssertEqual(seen.viewers_shown, "1 viewer")
        XCTAssertEqual(seen.controls_reason, "camera test has no V4L2 controls (only V4L2 cameras such as /dev/video0 have them)",
                       "the controls panel says why it is empty")

        XCTAssertEqual(seen.recordings_listed.count, 1, "\(seen.recordings_listed)")
        XCTAssertEqual(seen.thumbnail_width, 320, "the list shows the recording's thumbnail")
        let href = try XCTUnwrap(seen.download_href)
        let download = serve.dir.appendingPathComponent("downloaded.mp4")
        XCTAssertEqual(try serve.curl("GET", href, output: download).status, 200)
        let probe = try XCTUnwrap(try Probe.read(download))
        XCTAssertEqual(probe.codec, "h264")
        XCTAssertGreaterThan(probe.frames, 30, "\(probe)")

        XCTAssertEqual(seen.motion_state, "motion", "the page shows the ball's motion")
        XCTAssertGreaterThan(seen.motion_boxes, 0, "the start's boxes are over the video")
        XCTAssertTrue(seen.motion_box_drawn, "a box is drawn inside the picture")
        XCTAssertEqual(seen.mask_after_drag.count, 1, "the dragged mask reached GET /motion: \(seen.mask_after_drag)")
        if let mask = seen.mask_after_drag.first, mask.count == 4 {
            for (got, want) in zip(mask, [0.1, 0.2, 0.3, 0.5]) {
                XCTAssertEqual(got, want, accuracy: 0.03, "the rectangle dragged from (10 %, 20 %) to (40 %, 70 %): \(mask)")
            }
        }
        XCTAssertEqual(seen.mask_shown, 1, "the mask is drawn over the video")
        let keepLine = "to keep it: [motion] mask = " + (seen.mask_after_drag.first ?? []).map { v in
            v == v.rounded() ? String(Int(v)) : String(v)
        }.joined(separator: ",")
        XCTAssertEqual(seen.mask_line_shown, keepLine, "the page shows the line that keeps the mask")
        XCTAssertEqual(seen.mask_after_clear, [], "the clear button empties the mask")

        XCTAssertEqual(seen.rotated, true, "the video turned")
        XCTAssertEqual(seen.rotated_width, 480)
        XCTAssertEqual(seen.rotated_height, 640)
        XCTAssertEqual(seen.angle_shown, "90")
        XCTAssertTrue(FileManager.default.fileExists(atPath: screenshot.path), "the screenshot is saved")

        XCTAssertLessThanOrEqual(seen.phone_overflow_px, 0, "the page is wider than a phone's screen")
        XCTAssertEqual(seen.phone_outside, [], "off a phone's screen")
        let phone = artifacts.appendingPathComponent("control-page-phone.png")
        XCTAssertTrue(FileManager.default.fileExists(atPath: phone.path), "the phone screenshot is saved")
    }

    /// With `[http] token` the page asks for the token once: a wrong one is refused in the
    /// API's words; the right one is traded for a session cookie that is `HttpOnly` (the
    /// page's script sees no cookie) and `SameSite=Strict`, holds no token, and carries the
    /// video (WHEP), the status, an EventSource and a still, and survives a reload without
    /// asking again. The token is in no URL the page asked for, nowhere in the page's
    /// storage and nowhere in the daemon's log.
    func testThePageAsksForTheTokenOnceAndRunsOnAnHttpOnlyCookie() throws {
        let token = "page-token-\(UInt32.random(in: 100_000...999_999))"
        let serve = try ServeProcess(self, ["camera": ["size": "640x480"], "http": ["token": token]])
        let python = try TestVenv.ready()
        let artifacts = PlumbProcess.root.appendingPathComponent(".build/test-artifacts")
        try FileManager.default.createDirectory(at: artifacts, withIntermediateDirectories: true)
        let screenshot = artifacts.appendingPathComponent("control-page-signed-in.png")
        try? FileManager.default.removeItem(at: screenshot)
        let result = try PlumbProcess.run(python, [TestVenv.script("page_sign_in.py").path, serve.http + "/", token,
                                                   screenshot.path], timeout: 180)
        XCTAssertEqual(result.code, 0, result.stderr)
        let line = try XCTUnwrap(result.stdout.split(separator: "\n").last, result.stderr)
        print("chromium signing in saw: \(line)")
        let seen = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])

        XCTAssertEqual(seen["asked_for_token"] as? Bool, true, "the page asks for the token")
        XCTAssertEqual(seen["video_before_sign_in"] as? Int, 0, "no video before signing in")
        XCTAssertTrue((seen["wrong_token_error"] as? String ?? "").contains("the bearer token is wrong"), "\(seen)")
        XCTAssertEqual(seen["asked_again_after_wrong"] as? Bool, true)
        XCTAssertEqual(seen["signed_in"] as? Bool, true)
        XCTAssertEqual(seen["token_field_after"] as? String, "", "the page keeps no copy of the token")
        XCTAssertEqual(seen["video_width"] as? Int, 640, "the video plays on the cookie")
        XCTAssertGreaterThan(seen["current_time_advance"] as? Double ?? 0, 1.5)
        XCTAssertEqual(seen["angle_shown"] as? String, "0", "the status reaches the page on the cookie")
        XCTAssertEqual(seen["events_open"] as? Bool, true, "an EventSource opens on the cookie")
        XCTAssertEqual(seen["still_width"] as? Int, 640, "a still is taken and shown on the cookie")
        XCTAssertEqual(seen["error_after_sign_in"] as? String, "", "the refused try's error is gone")

        XCTAssertEqual(seen["document_cookie"] as? String, "", "the page's script can read the session cookie")
        let cookies = try XCTUnwrap(seen["cookies"] as? [[String: Any]])
        XCTAssertEqual(cookies.count, 1, "\(cookies)")
        XCTAssertEqual(cookies.first?["httpOnly"] as? Bool, true, "\(cookies)")
        XCTAssertEqual(cookies.first?["sameSite"] as? String, "Strict", "\(cookies)")
        XCTAssertEqual(cookies.first?["value_is_token"] as? Bool, false, "the cookie is not the token")
        XCTAssertFalse((seen["storage"] as? String ?? token).contains(token), "the token in the page's storage")
        let urls = try XCTUnwrap(seen["requested_urls"] as? [String])
        XCTAssertTrue(urls.contains { $0.hasSuffix("/whep") }, "the page's requests are listed: \(urls)")
        XCTAssertFalse(urls.contains { $0.contains(token) }, "the token in a URL: \(urls)")

        XCTAssertEqual(seen["asked_after_reload"] as? Bool, false, "a reload asks for the token again")
        XCTAssertEqual(seen["reload_video_width"] as? Int, 640)
        XCTAssertGreaterThan(seen["reload_time_advance"] as? Double ?? 0, 1.5)
        XCTAssertTrue(FileManager.default.fileExists(atPath: screenshot.path), "the screenshot is saved")
        let (code, log) = serve.stop()
        XCTAssertEqual(code, 0, log)
        XCTAssertFalse(log.contains(token), "the token in the daemon's log")
    }
}
