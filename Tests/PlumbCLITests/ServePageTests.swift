import Foundation
import PlumbTestSupport
import XCTest

/// The control page at `/` and the auth that works for it (issue 13): the page is served
/// without the token, the token is traded once for an HttpOnly, SameSite=Strict cookie
/// the API accepts, and other sites' pages are refused. Real daemon, real curl.
final class ServePageTests: XCTestCase {
    static let token = "0123456789abcdef0123"

    func testThePageIsServedWithoutTheTokenAndNothingElseOfTheFolder() throws {
        let serve = try ServeProcess(self, ["http": ["token": Self.token]])
        let page = try serve.curl("GET", "/", authorized: false)
        XCTAssertEqual(page.status, 200)
        XCTAssertEqual(page.headers["content-type"], "text/html; charset=utf-8")
        XCTAssertTrue(page.text.contains("<video id=\"live\""), page.text)
        XCTAssertTrue(page.headers["content-security-policy"]?.contains("frame-ancestors 'none'") == true)
        for (name, type) in [("plumb.js", "text/javascript; charset=utf-8"), ("plumb.css", "text/css; charset=utf-8")] {
            let file = try serve.curl("GET", "/page/\(name)", authorized: false)
            XCTAssertEqual(file.status, 200, name)
            XCTAssertEqual(file.headers["content-type"], type, name)
            let source = try String(contentsOf: PlumbProcess.root.appendingPathComponent("web/\(name)"), encoding: .utf8)
            XCTAssertEqual(file.text, source, name)
        }
        for bad in ["/page/..%2Fplumb.ini", "/page/.hidden.js", "/page/index.txt"] {
            let reply = try serve.curl("GET", bad, authorized: false)
            XCTAssertEqual(reply.status, 404, bad)
            XCTAssertFalse(reply.error.isEmpty, bad)
        }
        // The API itself still wants the token.
        XCTAssertEqual(try serve.curl("GET", "/status", authorized: false).status, 401)
    }

    func testTheTokenIsTradedOnceForAnHttpOnlyStrictCookieTheAPIAccepts() throws {
        let serve = try ServeProcess(self, ["http": ["token": Self.token]])
        XCTAssertEqual(try serve.curl("POST", "/session", authorized: false).status, 401)
        let wrong = try serve.curl("POST", "/session", authorized: false, extra: ["-H", "Authorization: Bearer wrong-token-wrong-token"])
        XCTAssertEqual(wrong.status, 401)
        XCTAssertNil(wrong.headers["set-cookie"])

        let traded = try serve.curl("POST", "/session")
        XCTAssertEqual(traded.status, 200, traded.text)
        let cookie = try XCTUnwrap(traded.headers["set-cookie"])
        XCTAssertTrue(cookie.hasPrefix("plumb_session="), cookie)
        XCTAssertTrue(cookie.contains("HttpOnly"), cookie)
        XCTAssertTrue(cookie.contains("SameSite=Strict"), cookie)
        XCTAssertFalse(cookie.contains(Self.token), "the cookie is not the token")
        let pair = String(cookie.prefix { $0 != ";" })
        let withCookie = ["-H", "Cookie: \(pair)"]

        XCTAssertEqual(try serve.curl("GET", "/status", authorized: false, extra: withCookie).status, 200)
        XCTAssertEqual(try serve.curl("GET", "/recordings", authorized: false, extra: withCookie).status, 200)
        let photo = try serve.curl("POST", "/photo", authorized: false, extra: withCookie)
        XCTAssertEqual(photo.status, 200, photo.text)
        XCTAssertEqual(photo.headers["content-type"], "image/jpeg")
        // A made-up session and the token in a URL are refused.
        XCTAssertEqual(try serve.curl("GET", "/status", authorized: false,
                                      extra: ["-H", "Cookie: plumb_session=00ff"]).status, 401)
        XCTAssertEqual(try serve.curl("GET", "/status?token=\(Self.token)", authorized: false).status, 401)

        let ended = try serve.curl("DELETE", "/session", authorized: false, extra: withCookie)
        XCTAssertEqual(ended.status, 204)
        XCTAssertTrue(ended.headers["set-cookie"]?.contains("Max-Age=0") == true)
        XCTAssertEqual(try serve.curl("GET", "/status", authorized: false, extra: withCookie).status, 401)
        XCTAssertFalse(serve.log.contains(Self.token), "the token is never logged")
    }

    /// A page of another site cannot drive the camera through the visitor's browser.
    func testRequestsFromAnotherOriginAreRefused() throws {
        let serve = try ServeProcess(self)
        let port = try XCTUnwrap(URL(string: serve.http)?.port)
        let evil = try serve.curl("POST", "/recording/start", extra: ["-H", "Origin: http://evil.example"])
        XCTAssertEqual(evil.status, 403)
        XCTAssertTrue(evil.error.contains("cross-origin request from http://evil.example refused"), evil.text)
        XCTAssertEqual(try serve.curl("GET", "/status").json()["recording"].flatMap { ($0 as? [String: Any])?["state"] as? String },
                       "idle", "nothing was started")
        let own = try serve.curl("POST", "/recording/start", extra: ["-H", "Origin: http://127.0.0.1:\(port)"])
        XCTAssertEqual(own.status, 200, own.text)
        XCTAssertEqual(try serve.curl("POST", "/recording/stop").status, 200)
    }

    /// `[http] allowed-origins` lets a named site's page in, and only that one.
    func testAConfiguredOriginIsAllowed() throws {
        let serve = try ServeProcess(self, ["http": ["allowed-origins": "https://dashboard.example:8443, http://nvr.lan"]])
        XCTAssertEqual(try serve.curl("GET", "/status", extra: ["-H", "Origin: https://dashboard.example:8443"]).status, 200)
        XCTAssertEqual(try serve.curl("GET", "/status", extra: ["-H", "Origin: http://nvr.lan"]).status, 200)
        XCTAssertEqual(try serve.curl("GET", "/status", extra: ["-H", "Origin: https://dashboard.example"]).status, 403)
    }

    /// The recordings list's thumbnails: a JPEG of the file's first keyframe, 320 wide
    /// (ffprobe reads it), made on the first request and then served from the cache.
    func testAThumbnailIsMadeOnceFromTheFirstKeyframe() throws {
        let serve = try ServeProcess(self, ["camera": ["size": "640x480"]])
        let started = try serve.curl("POST", "/recording/start")
        XCTAssertEqual(started.status, 200, started.text)
        serve.waitForRecordedFrames(1, in: try XCTUnwrap(started.json()["file"] as? String, started.text))
        let name = try XCTUnwrap(try serve.curl("POST", "/recording/stop").json()["file"] as? String)
        let first = serve.dir.appendingPathComponent("thumb1.jpg"), second = serve.dir.appendingPathComponent("thumb2.jpg")
        let made = try serve.curl("GET", "/recordings/\(name)/thumbnail", output: first)
        XCTAssertEqual(made.status, 200, made.text)
        XCTAssertEqual(made.headers["content-type"], "image/jpeg")
        let probe = try runTool("ffprobe", ["-v", "error", "-show_entries", "stream=codec_name,width,height",
                                            "-of", "csv=p=0", first.path])
        XCTAssertEqual(probe.trimmingCharacters(in: .whitespacesAndNewlines), "mjpeg,320,240")
        let cache = serve.folder.appendingPathComponent(".thumbnails/\(name).jpg")
        let madeAt = try XCTUnwrap(try FileManager.default.attributesOfItem(atPath: cache.path)[.modificationDate] as? Date)
        XCTAssertEqual(try serve.curl("GET", "/recordings/\(name)/thumbnail", output: second).status, 200)
        XCTAssertEqual(try Data(contentsOf: first), try Data(contentsOf: second))
        XCTAssertEqual(try FileManager.default.attributesOfItem(atPath: cache.path)[.modificationDate] as? Date, madeAt,
                       "the second came from the cache")
        let listed = try XCTUnwrap(try JSONSerialization.jsonObject(with: try serve.curl("GET", "/recordings").body) as? [[String: Any]])
        XCTAssertEqual(listed.compactMap { $0["name"] as? String }, [name], "the cache is not a recording")
        let missing = try serve.curl("GET", "/recordings/none.mp4/thumbnail")
        XCTAssertEqual(missing.status, 404)
        XCTAssertTrue(missing.error.contains("no recording named"), missing.text)
    }
}
