import Foundation
import PlumbTestSupport
import XCTest

/// `plumb serve` as a `Type=notify` service with a watchdog, against the test's own notify
/// socket (an abstract AF_UNIX datagram socket, as systemd makes): READY=1 once both
/// servers answer, STATUS= lines as the camera, recording and clients change, WATCHDOG=1
/// every half WATCHDOG_USEC while frames flow, STOPPING=1 on SIGTERM.
/// (ServeSupervisionTests stalls the camera in-process and sees the pings stop.)
final class ServeSystemdTests: XCTestCase {
    func testNotifiesReadyStatusWatchdogAndStopping() throws {
        let notify = try NotifySocket(self)
        let serve = try ServeProcess(self, environment: [
            "NOTIFY_SOCKET": notify.name,
            "WATCHDOG_USEC": "1000000",  // a ping every 0.5 s while frames flow
        ])
        // READY once serving: the control API answers by then (ServeProcess read its address from the log).
        eventually("\(notify.messages.map(\.text))\n\(serve.log)", timeout: .seconds(30)) { !notify.with("READY=1").isEmpty }
        let ready = try XCTUnwrap(notify.with("READY=1").first)
        XCTAssertTrue(ready.lines.contains { $0.hasPrefix("STATUS=camera running; not recording; 0 RTSP clients") },
                      ready.text)
        XCTAssertEqual(try serve.curl("GET", "/status").status, 200)
        XCTAssertTrue(serve.log.contains("systemd: told ready on \(notify.name), watchdog pinged every 0.5 seconds"),
                      serve.log)

        // Pings keep coming while the test pattern flows.
        eventually("\(notify.messages.map(\.text))", timeout: .seconds(30)) { notify.with("WATCHDOG=1").count >= 4 }

        // A recording and an RTSP client change the status line.
        let started = try serve.curl("POST", "/recording/start")
        XCTAssertEqual(started.status, 200, started.text)
        let file = try XCTUnwrap(try started.json()["file"] as? String)
        eventually("\(notify.statuses)", timeout: .seconds(20)) { notify.statuses.contains { $0.contains("recording \(file)") } }
        let client = try RTSPClient(serve.rtsp, frames: 200)
        eventually("\(notify.statuses)", timeout: .seconds(30)) { notify.statuses.contains { $0.hasSuffix("; 1 RTSP client") } }
        _ = client.finish(timeout: 60)
        eventually("\(notify.statuses)", timeout: .seconds(30)) { notify.statuses.last?.hasSuffix("; 0 RTSP clients") == true }
        XCTAssertEqual(notify.with("STOPPING=1").count, 0)

        let (code, log) = serve.stop()
        XCTAssertEqual(code, 0, log)
        XCTAssertEqual(notify.with("STOPPING=1").count, 1, "\(notify.messages.map(\.text))")
        // Nothing after STOPPING: the loops ended with it.
        XCTAssertEqual(notify.messages.last?.text, "STOPPING=1", "\(notify.messages.map(\.text))")
        // Each status change once: no line repeats the one before it.
        let statuses = notify.statuses
        XCTAssertEqual(zip(statuses, statuses.dropFirst()).filter { $0 == $1 }.count, 0, "\(statuses)")
    }

    /// Without NOTIFY_SOCKET (every other test) nothing is said to systemd.
    func testWithoutNotifySocketNothingIsSent() throws {
        let serve = try ServeProcess(self)
        let (code, log) = serve.stop()
        XCTAssertEqual(code, 0, log)
        XCTAssertFalse(log.contains("systemd:"), log)
    }
}
