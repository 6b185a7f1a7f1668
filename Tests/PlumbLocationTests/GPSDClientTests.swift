import Foundation
@testable import PlumbLocation
import PlumbTestSupport
import Synchronization
import XCTest

/// The gpsd client against a fake gpsd on a loopback socket: the watch request, the fix,
/// garbage skipped and counted, outages logged once, reconnection with backoff, and a
/// provider that never waits.
final class GPSDClientTests: XCTestCase {
    private static let version = #"{"class":"VERSION","release":"3.22","rev":"3.22","proto_major":3,"proto_minor":14}"# + "\n"
    private static let tpv = #"{"class":"TPV","device":"/dev/ttyACM0","mode":3,"time":"2019-03-14T12:31:06.000Z","lat":-34.60863,"lon":-58.3823,"altMSL":25.3,"eph":17.1,"speed":1.389,"track":84.4}"# + "\n"

    private func server(port: UInt16 = 0) throws -> FakeGPSD {
        let server = try FakeGPSD(port: port)
        addTeardownBlock { server.stop() }
        return server
    }

    private func client(_ port: UInt16, backoff: Backoff = Backoff(initial: .milliseconds(50), maximum: .milliseconds(200)),
                        log: Lines = Lines()) -> GPSDClient {
        let client = GPSDClient(host: "127.0.0.1", port: port, backoff: backoff) { log.append("\($0)") }
        addTeardownBlock { client.stop() }
        return client
    }

    private func provider(_ port: UInt16, maxFixAge: Duration = .seconds(300), log: Lines = Lines(),
                          clockSynchronized: @escaping @Sendable () -> Bool? = { true }) -> LocationProvider {
        let provider = LocationProvider(source: .gpsd(host: "127.0.0.1", port: port), maxFixAge: maxFixAge,
                                        backoff: Backoff(initial: .milliseconds(50), maximum: .milliseconds(200)),
                                        log: { log.append("\($0)") }, clockSynchronized: clockSynchronized)
        addTeardownBlock { provider.stop() }
        return provider
    }

    func testItWatchesAndKeepsTheLatestFix() async throws {
        let gpsd = try server()
        let log = Lines()
        let client = client(gpsd.port, log: log)
        client.start()
        await eventually("a ?POLL; request") { gpsd.request.contains("?POLL;\n") }
        XCTAssertEqual(gpsd.request, #"?WATCH={"enable":true,"json":true};"# + "\n?POLL;\n")
        gpsd.send(Self.version + Self.tpv)
        await eventually("client.snapshot.fix != nil") { client.snapshot.fix != nil }
        let snapshot = client.snapshot
        XCTAssertEqual(snapshot.state, .connected)
        XCTAssertEqual(snapshot.release, "3.22")
        XCTAssertEqual(snapshot.fix?.latitude, -34.60863)
        XCTAssertEqual(snapshot.fix?.altitude, 25.3)
        XCTAssertEqual(snapshot.connections, 1)
        XCTAssertEqual(snapshot.skippedLines, 0)
        XCTAssertEqual(log.all, ["connected to gpsd at 127.0.0.1:\(gpsd.port) (gpsd 3.22)"])
    }

    /// Malformed or unexpected lines are skipped and counted; the connection and the fix go on.
    func testGarbageLinesAreSkippedAndCounted() async throws {
        let gpsd = try server()
        let log = Lines()
        let client = client(gpsd.port, log: log)
        client.start()
        await eventually("gpsd.connections == 1") { gpsd.connections == 1 }
        gpsd.send(Self.version)
        gpsd.send("hello gpsd\n{\"class\":\"TPV\",\"mode\":\"3D\"}\r\n[1,2]\n\n{\"class\":\"TPV\",\"mode\":3,\"lat\":95,\"lon\":0}\n")
        gpsd.send(#"{"class":"SKY","satellites":[]}"# + "\n" + #"{"class":"NEWTHING","x":1}"# + "\n")
        // A line longer than any gpsd sends, in pieces, then a real fix right after it.
        let long = String(repeating: "x", count: GPSDMessage.maximumLineLength + 10_000)
        for start in stride(from: 0, to: long.count, by: 20_000) {
            gpsd.send(String(long.dropFirst(start).prefix(20_000)))
        }
        gpsd.send("\n" + Self.tpv)
        await eventually("client.snapshot.fix != nil") { client.snapshot.fix != nil }
        let snapshot = client.snapshot
        XCTAssertEqual(snapshot.skippedLines, 5, "hello, the mode as text, the array, lat 95, the long line")
        XCTAssertEqual(snapshot.fix?.longitude, -58.3823)
        XCTAssertEqual(snapshot.state, .connected)
        XCTAssertEqual(snapshot.connections, 1, "garbage never drops the connection")
        XCTAssertEqual(log.all.filter { $0.contains("skipped") }.count, 1, "\(log.all)")
    }

    /// gpsd goes away (restarted): the outage is said once however many retries fail, and
    /// the client is back when gpsd is.
    func testItReconnectsWhenGPSDRestarts() async throws {
        // A held port: nothing else takes it while gpsd is away (FakeGPSD sets SO_REUSEADDR).
        let port = try ReservedPort(self).port
        var gpsd: FakeGPSD? = try server(port: port)
        let log = Lines()
        let client = client(port, log: log)
        client.start()
        await eventually("gpsd!.connections == 1") { gpsd!.connections == 1 }
        gpsd!.send(Self.version + Self.tpv)
        await eventually("client.snapshot.fix != nil") { client.snapshot.fix != nil }

        gpsd!.stop()
        gpsd = nil
        await eventually("\(client.snapshot.state)") {
            if case .unavailable = client.snapshot.state { return true } else { return false }
        }
        // Several retries (backoff 50-200 ms) fail while it is away.
        try await Task.sleep(for: .milliseconds(800))  // the thing tested: several retries fail and say it once
        XCTAssertEqual(log.all.filter { $0.contains("go without GPS") }.count, 1, "\(log.all)")
        XCTAssertNotNil(client.snapshot.fix, "the last fix is kept (it ages on its own)")

        let again = try server(port: port)
        await eventually("again.connections == 1") { again.connections == 1 }
        XCTAssertTrue(again.request.isEmpty || again.request.hasPrefix("?WATCH="))
        again.send(Self.version)
        await eventually("\(client.snapshot)") { client.snapshot.connections == 2 }
        XCTAssertEqual(client.snapshot.state, .connected)
        XCTAssertEqual(log.all.filter { $0.hasPrefix("connected to") }.count, 2, "\(log.all)")
    }

    /// Retries wait longer and longer (never a tight loop): a server that hangs up at once,
    /// without a gpsd message, sees its connections spaced by at least the backoff's delays.
    func testRetriesBackOff() async throws {
        let gpsd = try server()
        let times = Mutex<[ContinuousClock.Instant]>([])
        let client = client(gpsd.port, backoff: Backoff(initial: .milliseconds(100), maximum: .milliseconds(400)))
        client.start()
        var seen = 0
        let deadline = ContinuousClock.now + .seconds(20)
        while seen < 5 && ContinuousClock.now < deadline {
            if gpsd.connections > seen {
                seen = gpsd.connections
                times.withLock { $0.append(.now) }
                gpsd.dropClients()
            }
            try await Task.sleep(for: .milliseconds(5))  // sampling the connections at 5 ms: their times are what is measured
        }
        let stamps = times.withLock { $0 }
        XCTAssertEqual(stamps.count, 5)
        let expected: [Duration] = [.milliseconds(100), .milliseconds(200), .milliseconds(400), .milliseconds(400)]
        for (i, wait) in expected.enumerated() where i + 1 < stamps.count {
            XCTAssertGreaterThanOrEqual(stamps[i + 1] - stamps[i], wait * 0.9, "retry \(i + 1)")
        }
    }

    /// Nothing listens: the client says so once, a capture asks and gets no location at once,
    /// and stopping ends its thread.
    func testAbsentGPSDDelaysNothing() async throws {
        let port = try ReservedPort(self).port  // held, never listening: refused
        let log = Lines()
        let provider = provider(port, log: log)
        provider.start()
        XCTAssertNil(provider.current())
        await eventually("!log.all.isEmpty") { !log.all.isEmpty }
        XCTAssertNil(provider.current())
        XCTAssertTrue(log.all[0].contains("gpsd at 127.0.0.1:\(port)"), log.all[0])
        XCTAssertTrue(log.all[0].contains("refused"), log.all[0])
        XCTAssertEqual(provider.status().gps, false)
        provider.stop()
        XCTAssertEqual(provider.client?.snapshot.state, .stopped)
    }

    /// A server that accepts and never speaks: no fix, and a stop still ends the thread
    /// blocked reading it.
    func testASilentServerIsNoFixAndStops() async throws {
        let gpsd = try server()
        let provider = provider(gpsd.port)
        provider.start()
        await eventually("gpsd.connections == 1") { gpsd.connections == 1 }
        XCTAssertNil(provider.current())
        let threads = threadCount
        provider.stop()
        await eventually("the client's thread is still there") { threadCount < threads }
    }

    /// A fix is used while younger than max-fix-age, counted from when it arrived: its old
    /// GPS time (a replayed log, a board whose clock is years off) does not matter.
    func testAStaleFixIsNotUsed() async throws {
        let gpsd = try server()
        let provider = provider(gpsd.port, maxFixAge: .milliseconds(600))
        provider.start()
        await eventually("gpsd.connections == 1") { gpsd.connections == 1 }
        gpsd.send(Self.version + Self.tpv)  // GPS time 2019
        await eventually("a fix with an old GPS time, just received, to be fresh") { provider.current() != nil }
        let location = try XCTUnwrap(provider.current())
        XCTAssertLessThan(try XCTUnwrap(location.fixAge), 0.6)
        XCTAssertEqual(location.time, Date(timeIntervalSince1970: 1_552_566_666))
        await eventually("a fix older than max-fix-age is still used") { provider.current() == nil }
        let status = provider.status()
        XCTAssertFalse(status.gps)
        XCTAssertGreaterThan(try XCTUnwrap(status.fixAgeSeconds), 0.5)
        XCTAssertEqual(status.fix?.latitude, -34.60863, "the status still shows the last fix")
        // A new report makes it fresh again.
        gpsd.send(Self.tpv)
        await eventually("provider.current() != nil") { provider.current() != nil }
    }

    /// A no-fix report ends the fix it is about, not another receiver's.
    func testANoFixReportEndsTheFix() async throws {
        let gpsd = try server()
        let provider = provider(gpsd.port)
        provider.start()
        await eventually("gpsd.connections == 1") { gpsd.connections == 1 }
        gpsd.send(Self.version + Self.tpv)
        await eventually("provider.current() != nil") { provider.current() != nil }
        gpsd.send(#"{"class":"TPV","device":"/dev/ttyUSB9","mode":1}"# + "\n")
        gpsd.send(#"{"class":"SKY"}"# + "\n")
        await eventually("provider.client?.snapshot.connections == 1 && gpsd.connections == 1") { provider.client?.snapshot.connections == 1 && gpsd.connections == 1 }
        try await Task.sleep(for: .milliseconds(200))  // the thing tested: the other receiver's report ends nothing over this time
        XCTAssertNotNil(provider.current(), "another receiver without a fix leaves this one's")
        gpsd.send(#"{"class":"TPV","device":"/dev/ttyACM0","mode":1}"# + "\n")
        await eventually("provider.current() == nil") { provider.current() == nil }
        XCTAssertEqual(provider.status().fix?.mode, "no fix")
    }

    /// A 2D fix is used, without altitude.
    func testA2DFixIsUsedWithoutAltitude() async throws {
        let gpsd = try server()
        let provider = provider(gpsd.port)
        provider.start()
        await eventually("gpsd.connections == 1") { gpsd.connections == 1 }
        gpsd.send(#"{"class":"TPV","mode":2,"lat":48.1,"lon":11.5,"alt":545.4}"# + "\n")
        await eventually("provider.current() != nil") { provider.current() != nil }
        XCTAssertNil(provider.current()?.altitude)
        XCTAssertEqual(provider.current()?.latitude, 48.1)
    }

    /// The wall clock's state reaches the location only when the fix has a GPS time.
    func testAnUnsynchronisedClockIsSaidWhenTheFixHasATime() async throws {
        let gpsd = try server()
        let provider = provider(gpsd.port, clockSynchronized: { false })
        provider.start()
        await eventually("gpsd.connections == 1") { gpsd.connections == 1 }
        gpsd.send(Self.tpv)
        await eventually("provider.current() != nil") { provider.current() != nil }
        XCTAssertEqual(provider.current()?.clockUnsynchronized, true)
        XCTAssertEqual(provider.status().clockSynchronized, false)
        gpsd.send(#"{"class":"TPV","mode":2,"lat":48.1,"lon":11.5}"# + "\n")
        await eventually("provider.current()?.latitude == 48.1") { provider.current()?.latitude == 48.1 }
        XCTAssertEqual(provider.current()?.clockUnsynchronized, false, "no GPS time: nothing better to offer")

        let synced = self.provider(gpsd.port, clockSynchronized: { true })
        synced.start()
        await eventually("gpsd.connections == 2") { gpsd.connections == 2 }
        gpsd.send(Self.tpv)
        await eventually("synced.current() != nil") { synced.current() != nil }
        XCTAssertEqual(synced.current()?.clockUnsynchronized, false)
    }

    func testFixedAndOffSources() {
        let fixed = LocationProvider(source: .fixed(GeoLocation(latitude: 1, longitude: 2, altitude: 3)))
        XCTAssertEqual(fixed.current(), GeoLocation(latitude: 1, longitude: 2, altitude: 3))
        XCTAssertEqual(fixed.status().state, "fixed")
        XCTAssertTrue(fixed.status().gps)
        XCTAssertNil(fixed.client)
        let off = LocationProvider(source: .off)
        XCTAssertNil(off.current())
        XCTAssertEqual(off.status().state, "off")
        XCTAssertFalse(off.status().gps)
    }

    /// The kernel's answer for this machine, as Python's ctypes reads it from adjtimex(2)
    /// (the clock state; 5 is TIME_ERROR, "not synchronised").
    func testTheWallClockIsAsked() throws {
        let state = try runTool("python3", ["-c", "import ctypes; b = ctypes.create_string_buffer(512); "
                                            + "print(ctypes.CDLL(None).adjtimex(b))"])
        let kernel = try XCTUnwrap(Int32(state.trimmingCharacters(in: .whitespacesAndNewlines)), state)
        XCTAssertGreaterThanOrEqual(kernel, 0, "adjtimex failed")
        XCTAssertEqual(WallClock.isSynchronized(), kernel != 5, "adjtimex state \(kernel)")
    }
}

/// Lines collected from another thread.
final class Lines: Sendable {
    private let lines = Mutex<[String]>([])
    func append(_ line: String) { lines.withLock { $0.append(line) } }
    var all: [String] { lines.withLock { $0 } }
}
