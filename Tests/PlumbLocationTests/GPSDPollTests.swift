import Foundation
@testable import PlumbLocation
import PlumbTestSupport
import XCTest

/// The client asks gpsd for the fix it holds (`?POLL;`) instead of waiting for its next
/// report; a capture waits a bounded time for the receiver's word (the poll's answer, or
/// the first report when the answer had none); and when there is no location the reason is
/// read from the same snapshot that decided. The POLL lines are gpsd 3.22's own.
final class GPSDPollTests: XCTestCase {
    private static let version = #"{"class":"VERSION","release":"3.22","rev":"3.22","proto_major":3,"proto_minor":14}"# + "\n"
    /// gpsd 3.22 polled between two sentences of a cycle: the position, not yet the time.
    private static let pollWithFix = #"{"class":"POLL","time":"2026-12-03T16:39:36.559Z","active":1,"tpv":[{"class":"TPV","device":"/dev/pts/2","mode":3,"lat":-34.608630000,"lon":-58.382300000,"altHAE":39.5000,"altMSL":25.3000,"alt":25.3000,"epv":29.900,"magvar":-9.2,"geoidSep":14.200,"eph":17.100,"sep":30.400}],"gst":[{"class":"GST","device":"/dev/pts/2"}],"sky":[{"class":"SKY","device":"/dev/pts/2","vdop":1.30,"hdop":0.90,"pdop":1.60}]}"# + "\n"
    /// A receiver that answers without a position.
    private static let pollNoFix = #"{"class":"POLL","time":"2026-12-03T16:39:57.923Z","active":1,"tpv":[{"class":"TPV","device":"/dev/pts/4","mode":1}],"gst":[{"class":"GST","device":"/dev/pts/4"}],"sky":[{"class":"SKY","device":"/dev/pts/4","vdop":99.90,"hdop":99.90,"pdop":99.90,"nSat":0,"uSat":0}]}"# + "\n"
    /// gpsd's first report as it opens a receiver: a GSA's mode, no position yet.
    private static let firstReport = #"{"class":"TPV","device":"/dev/pts/1","mode":3,"epv":29.900,"eph":17.100,"sep":30.400}"# + "\n"
    /// gpsd without a receiver.
    private static let pollNone = #"{"class":"POLL","time":"2026-12-03T16:40:06.775Z","active":0,"tpv":[],"gst":[],"sky":[]}"# + "\n"

    private func server() throws -> FakeGPSD {
        let server = try FakeGPSD()
        addTeardownBlock { server.stop() }
        return server
    }

    private func provider(_ port: UInt16, maxFixAge: Duration = .seconds(300)) -> LocationProvider {
        let provider = LocationProvider(source: .gpsd(host: "127.0.0.1", port: port), maxFixAge: maxFixAge,
                                        backoff: Backoff(initial: .milliseconds(50), maximum: .milliseconds(200)),
                                        clockSynchronized: { true })
        addTeardownBlock { provider.stop() }
        return provider
    }

    func testAPollAnswerIsParsed() throws {
        guard case .poll(let active, let fixes) = try GPSDMessage.parse(Array(Self.pollWithFix.utf8.dropLast())) else {
            return XCTFail("not a POLL")
        }
        XCTAssertEqual(active, 1)
        XCTAssertEqual(fixes.count, 1)
        XCTAssertEqual(fixes.first?.mode, .threeD)
        XCTAssertEqual(fixes.first?.latitude, -34.60863)
        XCTAssertEqual(fixes.first?.altitude, 25.3)
        XCTAssertEqual(fixes.first?.device, "/dev/pts/2")
        XCTAssertNil(fixes.first?.time, "polled mid-cycle: no time yet")
        XCTAssertEqual(try GPSDMessage.parse(Array(Self.pollNone.utf8.dropLast())), .poll(active: 0, fixes: []))
        XCTAssertThrowsError(try GPSDMessage.parse(Array(#"{"class":"POLL","active":1,"tpv":[{"mode":3,"lon":2}]}"#.utf8)),
                             "half a position is malformed, in a POLL as in a TPV")
    }

    /// The client asks for the held fix right after the watch, and a capture waiting for the
    /// answer returns when it comes, with the fix held: no report needed.
    func testTheHeldFixIsAskedForAndWaitedFor() async throws {
        let gpsd = try server()
        let provider = provider(gpsd.port)
        provider.start()
        await eventually(gpsd.request) { gpsd.request.contains("?POLL;\n") }
        XCTAssertEqual(gpsd.request, #"?WATCH={"enable":true,"json":true};"# + "\n?POLL;\n", "the poll follows the watch")
        // Before the answer, a wait ends at its deadline.
        let early = await provider.waitForGPSD(until: .now + .milliseconds(100))
        XCTAssertFalse(early)
        XCTAssertEqual(provider.reading().whyNone, "gpsd has not answered yet")

        async let answered = provider.waitForGPSD(until: .now + .seconds(60))
        gpsd.send(Self.version + Self.pollWithFix)
        let waitedFor = await answered
        XCTAssertTrue(waitedFor)
        let reading = provider.reading()
        XCTAssertNil(reading.whyNone)
        XCTAssertEqual(try XCTUnwrap(reading.location).latitude, -34.60863)
        XCTAssertEqual(reading.location?.altitude, 25.3)
        XCTAssertEqual(provider.client?.snapshot.polled, true)
        XCTAssertEqual(provider.client?.snapshot.receivers, 1)
        // Once answered, later waits return at once.
        let again = await provider.waitForGPSD(until: .now)
        XCTAssertTrue(again)
    }

    /// gpsd run without -n (Debian's default) opens its receiver when a client watches and
    /// answers the poll that follows before the receiver has reported: no receiver yet, or
    /// one at mode 0 (gpsd 3.22's answers, polled right after the watch). That says nothing,
    /// so a capture waits on for the receiver's first report instead of going without GPS
    /// (a one-shot photo never had gpsd's fix).
    func testAPollAnsweredBeforeTheReceiverReportedIsNoAnswer() async throws {
        let gpsd = try server()
        let provider = provider(gpsd.port)
        provider.start()
        await eventually(gpsd.request) { gpsd.request.contains("?POLL;\n") }
        // Then gpsd's first report, before any sentence with the position: not an answer
        // either (nor a line to skip).
        gpsd.send(Self.version + Self.pollNone
                  + #"{"class":"POLL","time":"2026-12-04T05:28:20.862Z","active":1,"tpv":[{"class":"TPV","device":"/dev/pts/1","mode":0}]}"# + "\n"
                  + Self.firstReport)
        await eventually("both answers read") { provider.client?.snapshot.receivers == 1 }
        gpsd.send(Self.pollNone)
        await eventually("the report and the third answer read") { provider.client?.snapshot.receivers == 0 }
        let early = await provider.waitForGPSD(until: .now + .milliseconds(100))
        XCTAssertFalse(early, "the wait ended without the receiver's word")
        XCTAssertEqual(provider.client?.snapshot.skippedLines, 0)
        XCTAssertNil(provider.client?.snapshot.fix)
        XCTAssertEqual(provider.reading().whyNone, "gpsd has no GPS receiver that reports")

        async let answered = provider.waitForGPSD(until: .now + .seconds(60))
        gpsd.send(#"{"class":"TPV","device":"/dev/pts/1","mode":3,"lat":-34.608630000,"lon":-58.382300000,"altHAE":39.5000,"altMSL":25.3000,"alt":25.3000,"magvar":-9.2,"geoidSep":14.200,"eph":17.100}"# + "\n")
        let waitedFor = await answered
        XCTAssertTrue(waitedFor)
        XCTAssertEqual(try XCTUnwrap(provider.reading().location).latitude, -34.60863)
    }

    /// A report of a fix without its position does not replace the fix held.
    func testAFixWithoutItsPositionLeavesTheHeldFix() throws {
        var snapshot = GPSDClient.Snapshot()
        let received = ContinuousClock.now
        GPSDClient.hold(GPSFix(mode: .threeD, latitude: 1, longitude: 2, device: "/dev/pts/1"), at: received, in: &snapshot)
        guard case .tpv(let report) = try GPSDMessage.parse(Array(Self.firstReport.utf8.dropLast())) else {
            return XCTFail("not a TPV")
        }
        GPSDClient.hold(report, at: received + .seconds(1), in: &snapshot)
        XCTAssertEqual(snapshot.fix?.latitude, 1)
        XCTAssertEqual(snapshot.received, received)
    }

    /// A receiver that reports without a position is an answer too: the wait ends with it.
    func testANoFixReportEndsTheWait() async throws {
        let gpsd = try server()
        let provider = provider(gpsd.port)
        provider.start()
        await eventually(gpsd.request) { gpsd.request.contains("?POLL;\n") }
        async let answered = provider.waitForGPSD(until: .now + .seconds(60))
        gpsd.send(Self.version + Self.pollNone + #"{"class":"TPV","device":"/dev/pts/4","mode":1}"# + "\n")
        let waitedFor = await answered
        XCTAssertTrue(waitedFor)
        XCTAssertEqual(provider.reading().whyNone, "gpsd reports no fix: its receiver does not know where it is (mode 1)")
    }

    /// gpsd unreachable: the wait ends with the first failed attempt, not at its deadline.
    func testAnUnreachableGPSDEndsTheWait() async throws {
        let port = try ReservedPort(self).port  // held, never listening: gpsd's connection is refused
        let provider = provider(port)
        provider.start()
        let started = ContinuousClock.now
        let ended = await provider.waitForGPSD(until: started + .seconds(60))
        XCTAssertTrue(ended)
        XCTAssertLessThan(ContinuousClock.now - started, .seconds(30), "it waited for the deadline")
        XCTAssertEqual(provider.reading().whyNone?.hasPrefix("gpsd is unavailable: "), true, "\(provider.reading())")
        XCTAssertEqual(provider.reading().whyNone?.contains("refused"), true, "\(provider.reading())")
    }

    /// Each reason as gpsd gives it: connected but the poll unanswered, no receiver, a
    /// receiver without a fix.
    func testTheReasonIsGPSDs() async throws {
        let gpsd = try server()
        let provider = provider(gpsd.port)
        provider.start()
        await eventually("gpsd.connections == 1") { gpsd.connections == 1 }
        gpsd.send(Self.version)
        await eventually("provider.client?.snapshot.state == .connected") { provider.client?.snapshot.state == .connected }
        XCTAssertEqual(provider.reading().whyNone, "gpsd has not answered the poll for its fix yet")
        gpsd.send(Self.pollNone)
        await eventually("provider.client?.snapshot.polled == true") { provider.client?.snapshot.polled == true }
        XCTAssertEqual(provider.reading(), LocationProvider.Reading(whyNone: "gpsd has no GPS receiver that reports"))
        // A receiver gpsd has not heard from yet.
        gpsd.send(#"{"class":"POLL","active":1,"tpv":[{"class":"TPV","device":"/dev/pts/4","mode":0}]}"# + "\n")
        await eventually("provider.client?.snapshot.receivers == 1") { provider.client?.snapshot.receivers == 1 }
        XCTAssertEqual(provider.reading().whyNone, "gpsd's receiver has not reported a fix yet")
        gpsd.send(Self.pollNoFix)
        await eventually("provider.client?.snapshot.fix != nil") { provider.client?.snapshot.fix != nil }
        XCTAssertEqual(provider.reading().whyNone, "gpsd reports no fix: its receiver does not know where it is (mode 1)")
        gpsd.send(#"{"class":"TPV","device":"/dev/pts/4","mode":0}"# + "\n")
        await eventually("provider.client?.snapshot.fix?.mode == .unknown") { provider.client?.snapshot.fix?.mode == .unknown }
        XCTAssertEqual(provider.reading().whyNone, "gpsd's receiver has not reported a fix yet (mode 0)")
    }

    /// A fix older than max-fix-age: the reason gives its age at the moment that decided,
    /// never less than the limit (the report said "0.0 s old" when a fix came in between).
    func testAStaleFixsReasonIsItsAgeWhenRead() throws {
        var snapshot = GPSDClient.Snapshot()
        snapshot.state = .connected
        snapshot.fix = GPSFix(mode: .threeD, latitude: 1, longitude: 2)
        let received = ContinuousClock.now
        snapshot.received = received
        XCTAssertEqual(LocationProvider.whyNone(snapshot, now: received + .milliseconds(412_340), maxFixAge: .seconds(300)),
                       "gpsd's last fix is 412.4 s old, more than the 300 s allowed (max fix age)")
        XCTAssertEqual(LocationProvider.whyNone(snapshot, now: received + .milliseconds(1001), maxFixAge: .seconds(1)),
                       "gpsd's last fix is 1.1 s old, more than the 1 s allowed (max fix age)")
        // gpsd gone as well: that is said first.
        snapshot.state = .unavailable("the connection was closed")
        XCTAssertEqual(LocationProvider.whyNone(snapshot, now: received + .seconds(400), maxFixAge: .seconds(300)),
                       "gpsd is unavailable: the connection was closed")
    }
}
