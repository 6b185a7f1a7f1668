import Foundation
import GLib
import PlumbTestSupport
import Synchronization
import XCTest

/// The D-Bus client against a real, private dbus-daemon, checked with GLib's own command
/// line client (`gdbus`) and the reference implementation's monitor (`dbus-monitor`).
final class DBusConnectionTests: XCTestCase {
    private static let daemon = (name: "org.freedesktop.DBus", path: "/org/freedesktop/DBus")

    /// Replies are checked against the reply type by GDBus: the right type decodes, a wrong
    /// one is an error (not a crash, not a critical), and the connection goes on working.
    func testRepliesAreTypeCheckedByDBus() async throws {
        let bus = try PrivateBus(self)
        let thread = MainContextThread(name: "test.dbus")
        defer { thread.stop() }
        let connection = try DBusConnection(.address(bus.address), thread: thread)
        defer { connection.close() }

        let id = try await connection.call(destination: Self.daemon.name, path: Self.daemon.path,
                                           interface: "org.freedesktop.DBus", method: "GetId", replyType: "(s)")
        let gdbusID = try runTool("gdbus", ["call", "--address", bus.address, "--dest", Self.daemon.name,
                                            "--object-path", Self.daemon.path, "--method", "org.freedesktop.DBus.GetId"])
        XCTAssertEqual(Variant.tuple(id), try Variant(parsing: gdbusID.trimmingCharacters(in: .whitespacesAndNewlines)))

        let (wrong, logged) = GLibLog.capture {
            Self.blockingCall(connection, destination: Self.daemon.name, path: Self.daemon.path,
                              interface: "org.freedesktop.DBus", method: "GetId", replyType: "(u)")
        }
        guard case .failure(let error) = wrong else { return XCTFail("a (s) reply accepted as (u): \(wrong)") }
        XCTAssertTrue(error.isIOError(GLibError.IOErrorCode.invalidArgument), "\(error)")
        XCTAssertTrue(error.message.contains("(s)") && error.message.contains("(u)"), error.message)
        XCTAssertEqual(logged.map(\.description), [], "GLib logged")

        // An a{sv}, read as the dictionary it is, equal to what gdbus reads.
        let all = try await connection.call(destination: Self.daemon.name, path: Self.daemon.path,
                                            interface: "org.freedesktop.DBus.Properties", method: "GetAll",
                                            arguments: [.string("org.freedesktop.DBus")], replyType: "(a{sv})")
        let gdbusAll = try runTool("gdbus", ["call", "--address", bus.address, "--dest", Self.daemon.name,
                                             "--object-path", Self.daemon.path,
                                             "--method", "org.freedesktop.DBus.Properties.GetAll", "org.freedesktop.DBus"])
        XCTAssertEqual(Variant.tuple(all), try Variant(parsing: gdbusAll.trimmingCharacters(in: .whitespacesAndNewlines)))
        let features = try XCTUnwrap(all.first?.dictionary?["Features"])
        guard case .array("s", let names) = features, !names.isEmpty else { return XCTFail("Features: \(features)") }

        // The blocking call checks the type the same way.
        XCTAssertEqual(try connection.callSync(destination: Self.daemon.name, path: Self.daemon.path,
                                               interface: "org.freedesktop.DBus", method: "GetId", replyType: "(s)"), id)
        XCTAssertThrowsError(try connection.callSync(destination: Self.daemon.name, path: Self.daemon.path,
                                                     interface: "org.freedesktop.DBus", method: "GetId",
                                                     replyType: "(as)")) { error in
            XCTAssertTrue((error as? GLibError)?.isIOError(GLibError.IOErrorCode.invalidArgument) == true, "\(error)")
        }
    }

    /// A peer's error reply carries its D-Bus name; the completion runs on the connection's thread.
    func testErrorRepliesCarryTheirDBusName() async throws {
        let bus = try PrivateBus(self)
        let thread = MainContextThread(name: "test.dbus")
        defer { thread.stop() }
        let connection = try DBusConnection(.address(bus.address), thread: thread)
        defer { connection.close() }
        let cases = [("org.freedesktop.DBus", "NoSuchMethod", "org.freedesktop.DBus.Error.UnknownMethod"),
                     ("org.plumb.Nobody", "Anything", "org.freedesktop.DBus.Error.ServiceUnknown")]
        for (destination, method, name) in cases {
            let onThread = Counter()
            let result = await withCheckedContinuation { continuation in
                connection.call(destination: destination, path: Self.daemon.path, interface: "org.freedesktop.DBus",
                                method: method, replyType: "()") { result in
                    if thread.isCurrent { onThread.increment() }
                    continuation.resume(returning: result)
                }
            }
            guard case .failure(let error) = result else { XCTFail("\(method) succeeded"); continue }
            XCTAssertEqual(error.dbusName, name, "\(error)")
            XCTAssertFalse(error.message.hasPrefix("GDBus.Error:"), error.message)
            XCTAssertEqual(error.description, "\(name): \(error.message)")
            XCTAssertEqual(onThread.value, 1, "the completion ran off the connection's thread")
        }
    }

    /// What GLib would meet with a critical and no callback is refused with an error, for
    /// every way in.
    func testWhatGLibWouldRejectIsAnErrorNotACritical() async throws {
        let bus = try PrivateBus(self)
        let thread = MainContextThread(name: "test.dbus")
        defer { thread.stop() }
        let connection = try DBusConnection(.address(bus.address), thread: thread)
        defer { connection.close() }
        let good = (destination: Self.daemon.name, path: Self.daemon.path, interface: "org.freedesktop.DBus",
                    method: "GetId", arguments: [Variant](), replyType: "(s)")
        var bad = [good, good, good, good, good, good, good, good, good, good]
        bad[0].destination = "not a name"
        bad[1].path = "relative/path"
        bad[2].interface = "nodots"
        bad[3].method = "Has.Dot"
        bad[4].replyType = "(s"
        bad[5].replyType = "s"  // not a tuple
        bad[6].replyType = "(ms)"  // maybe types are not D-Bus
        bad[7].arguments = [.array(elementType: "s", [.string("a"), .int32(1)])]
        bad[8].arguments = [.dictEntry(key: .string("k"), value: .bool(true))]
        bad[9].arguments = [.objectPath("no-slash"), .string("nul\u{0}inside")]
        let (outcomes, logged) = GLibLog.capture {
            var outcomes: [(async: Result<[Variant], GLibError>, sync: Result<[Variant], GLibError>)] = []
            for b in bad {
                let async = Self.blockingCall(connection, destination: b.destination, path: b.path, interface: b.interface,
                                              method: b.method, arguments: b.arguments, replyType: b.replyType)
                let sync = Result { () throws(GLibError) in
                    try connection.callSync(destination: b.destination, path: b.path, interface: b.interface,
                                            method: b.method, arguments: b.arguments, replyType: b.replyType)
                }
                outcomes.append((async, sync))
            }
            return outcomes
        }
        for (i, outcome) in outcomes.enumerated() {
            for result in [outcome.async, outcome.sync] {
                guard case .failure(let error) = result else { XCTFail("bad request \(i) accepted"); continue }
                XCTAssertTrue(error.isIOError(GLibError.IOErrorCode.invalidArgument), "\(i): \(error)")
            }
        }
        let (refusals, logged2) = GLibLog.capture { () -> [Error?] in
            [Self.error { _ = try connection.subscribe(sender: "bad sender", member: "Ping") { _ in } },
             Self.error { _ = try connection.subscribe(path: "bad", member: "Ping") { _ in } },
             Self.error { _ = try connection.watchName("no way", appeared: { _ in }, vanished: {}) },
             Self.error { try connection.emit(path: "/p", interface: "org.plumb.Test", member: "Bad-Member") },
             Self.error { try connection.emit(path: "/p", interface: "org.plumb.Test", member: "Ping",
                                              arguments: [.signature("(")]) }]
        }
        XCTAssertEqual(refusals.count, 5)
        for (i, error) in refusals.enumerated() {
            XCTAssertTrue((error as? GLibError)?.isIOError(GLibError.IOErrorCode.invalidArgument) == true, "\(i): \(String(describing: error))")
        }
        XCTAssertEqual((logged + logged2).map(\.description), [], "GLib logged")
        // Still usable.
        let id = try await connection.call(destination: good.destination, path: good.path, interface: good.interface,
                                           method: good.method, replyType: good.replyType)
        XCTAssertEqual(id.count, 1)
    }

    /// Variants as GLib writes and reads their text form (g_variant_print, g_variant_parse).
    func testVariantsMatchGLibsTextForm() throws {
        let value = Variant.tuple([
            .bool(true), .byte(255), .int16(-3), .uint16(65535), .int32(-70000), .uint32(4_000_000_000),
            .int64(-5_000_000_000), .uint64(18_000_000_000_000_000_000), .double(2.5), .string("it's"),
            .objectPath("/a/b"), .signature("a{sv}"), .variant(.int32(7)),
            .array(elementType: "s", []), .array(elementType: "(ii)", [.tuple([.int32(1), .int32(2)])]),
            .dictionary(["b": .string("x"), "a": .array(elementType: "u", [.uint32(1)])]),
            .array(elementType: "{us}", [.dictEntry(key: .uint32(1), value: .string("one"))]),
        ])
        let text = "(true, byte 0xff, int16 -3, uint16 65535, -70000, uint32 4000000000, int64 -5000000000, "
            + "uint64 18000000000000000000, 2.5, \"it's\", objectpath '/a/b', signature 'a{sv}', <7>, @as [], "
            + "[(1, 2)], {'a': <[uint32 1]>, 'b': <'x'>}, {uint32 1: 'one'})"
        XCTAssertEqual(value.printed, text)
        XCTAssertEqual(try Variant(parsing: text), value)
        XCTAssertEqual(value.typeString, "(bynqiuxtdsogvasa(ii)a{sv}a{us})")
        XCTAssertEqual(value.description, text)
        XCTAssertEqual(try Variant(parsing: "[]", type: "as"), .array(elementType: "s", []))
        XCTAssertEqual(Variant.dictionary(["k": .bool(false)]).dictionary, ["k": .bool(false)])
        XCTAssertNil(Variant.string("x").dictionary)
        XCTAssertEqual(Variant.array(elementType: "s", [.int32(1)]).printed,
                       "<invalid as: an array of s holds a value of type i>")
        XCTAssertThrowsError(try Variant(parsing: "[1, 'a']"))
        XCTAssertThrowsError(try Variant(parsing: "just 1")) { error in  // a maybe: no D-Bus form
            XCTAssertTrue((error as? GLibError)?.isIOError(GLibError.IOErrorCode.invalidArgument) == true, "\(error)")
        }
    }

    /// Signals both ways across the bus: sent by dbus-send and decoded here; sent from here and
    /// read on the wire by dbus-monitor. A cancelled subscription gets nothing more.
    func testSignalsCrossTheWireBothWays() async throws {
        let bus = try PrivateBus(self)
        let thread = MainContextThread(name: "test.dbus")
        defer { thread.stop() }
        let receiver = try DBusConnection(.address(bus.address), thread: thread)
        let sender = try DBusConnection(.address(bus.address), thread: thread)
        defer { receiver.close(); sender.close() }
        let pings = Mutex<[DBusSignal]>([])
        let offThread = Counter()
        let subscription = try receiver.subscribe(interface: "org.plumb.Test", member: "Ping") { signal in
            if !thread.isCurrent { offThread.increment() }
            pings.withLock { $0.append(signal) }
        }
        let marks = Mutex<[DBusSignal]>([])
        let markSubscription = try receiver.subscribe(path: "/plumb/mark", interface: "org.plumb.Test", member: "Mark") {
            signal in marks.withLock { $0.append(signal) }
        }
        defer { markSubscription.cancel() }
        // Subscriptions are made on the thread: once a call made after them has completed, they are in place.
        _ = try await receiver.call(destination: Self.daemon.name, path: Self.daemon.path,
                                    interface: "org.freedesktop.DBus", method: "GetId", replyType: "(s)")

        // dbus-send (libdbus, the reference implementation) as the sender.
        try runTool("dbus-send", ["--bus=\(bus.address)", "--type=signal", "/plumb/dbus_send", "org.plumb.Test.Ping",
                                  "string:x", "uint32:4", "array:int32:1,2", "dict:string:int32:k,5", "variant:int16:-3",
                                  "objpath:/p", "double:2.5", "byte:255", "boolean:true", "int64:-5", "array:string:"])
        await eventually("no signal from dbus-send") { pings.withLock { $0.count } == 1 }
        let fromDBusSend = try XCTUnwrap(pings.withLock { $0.first })
        XCTAssertEqual(fromDBusSend.arguments, [
            .string("x"), .uint32(4), .array(elementType: "i", [.int32(1), .int32(2)]),
            .array(elementType: "{si}", [.dictEntry(key: .string("k"), value: .int32(5))]), .variant(.int16(-3)),
            .objectPath("/p"), .double(2.5), .byte(255), .bool(true), .int64(-5), .array(elementType: "s", []),
        ])
        XCTAssertEqual(fromDBusSend.path, "/plumb/dbus_send")
        XCTAssertEqual(fromDBusSend.interface, "org.plumb.Test")
        XCTAssertEqual(fromDBusSend.member, "Ping")
        XCTAssertTrue(fromDBusSend.sender.hasPrefix(":"), fromDBusSend.sender)

        // Ours, as dbus-monitor reads it off the bus.
        let expected: [Variant] = [
            .string("x"), .uint32(4), .array(elementType: "i", [.int32(1), .int32(2)]),
            .dictionary(["k": .bool(true)]), .array(elementType: "s", []),
            .variant(.tuple([.int16(-3), .objectPath("/p")])),
        ]
        let (monitor, out, err) = try PlumbProcess.start(PlumbProcess.tool("dbus-monitor"), ["--address", bus.address])
        // SIGKILL: a SIGTERM can stay blocked in the signal mask inherited from the spawning thread.
        defer { kill(monitor.processIdentifier, SIGKILL) }
        XCTAssertNotNil(PlumbProcess.waitFor("member=NameLost", in: out, timeout: 10), "dbus-monitor did not start")
        try sender.emit(path: "/plumb/ours", interface: "org.plumb.Test", member: "Ping", arguments: expected)
        try sender.emit(path: "/plumb/mark", interface: "org.plumb.Test", member: "Mark", arguments: [.int32(1)])
        let seen = try XCTUnwrap(PlumbProcess.waitFor("member=Mark", in: out, timeout: 10), "dbus-monitor saw nothing")
        kill(monitor.processIdentifier, SIGKILL)
        _ = PlumbProcess.finish(monitor, out, err, timeout: 10)
        let block = seen.components(separatedBy: "member=Ping\n").dropFirst().first?
            .components(separatedBy: "\nsignal ").first ?? ""
        let wire = block.split(separator: "\n").map { $0.split(separator: " ", omittingEmptySubsequences: true).joined(separator: " ") }
        XCTAssertEqual(wire, ["string \"x\"", "uint32 4", "array [", "int32 1", "int32 2", "]",
                              "array [", "dict entry(", "string \"k\"", "variant boolean true", ")", "]",
                              "array [", "]", "variant struct {", "int16 -3", "object path \"/p\"", "}"], block)
        await eventually("marks.withLock { $0.count } == 1") { marks.withLock { $0.count } == 1 }
        XCTAssertEqual(pings.withLock { $0.count }, 2)
        XCTAssertEqual(pings.withLock { $0.last?.arguments }, expected)
        XCTAssertEqual(pings.withLock { $0.last?.sender }, sender.uniqueName)

        // Cancelled: a ping sent before the next mark is not delivered (one connection keeps the order).
        subscription.cancel()
        try sender.emit(path: "/plumb/ours", interface: "org.plumb.Test", member: "Ping", arguments: [.int32(3)])
        try sender.emit(path: "/plumb/mark", interface: "org.plumb.Test", member: "Mark", arguments: [.int32(2)])
        await eventually("marks.withLock { $0.count } == 2") { marks.withLock { $0.count } == 2 }
        XCTAssertEqual(pings.withLock { $0.count }, 2, "a cancelled subscription got a signal")
        XCTAssertEqual(offThread.value, 0, "a signal handler ran off the connection's thread")
    }

    /// A watched name appears with its owner and vanishes: from the start, on request and
    /// release, and when its owner's connection closes.
    func testWatchedNamesAppearAndVanish() async throws {
        let bus = try PrivateBus(self)
        let thread = MainContextThread(name: "test.dbus")
        defer { thread.stop() }
        let watcher = try DBusConnection(.address(bus.address), thread: thread)
        defer { watcher.close() }
        let events = Mutex<[String]>([])
        let watch = try watcher.watchName("org.plumb.Test", appeared: { owner in events.withLock { $0.append(owner) } },
                                          vanished: { events.withLock { $0.append("-") } })
        defer { watch.cancel() }
        await eventually("not reported missing at the start: \(events.withLock { $0 })") { events.withLock { $0 } == ["-"] }

        let owner = try DBusConnection(.address(bus.address), thread: thread)
        let ownerName = try XCTUnwrap(owner.uniqueName)
        func call(_ method: String) async throws -> [Variant] {
            try await owner.call(destination: Self.daemon.name, path: Self.daemon.path, interface: "org.freedesktop.DBus",
                                 method: method, arguments: method == "RequestName" ? [.string("org.plumb.Test"), .uint32(4)]
                                    : [.string("org.plumb.Test")], replyType: "(u)")
        }
        var reply = try await call("RequestName")
        XCTAssertEqual(reply, [.uint32(1)])  // DBUS_REQUEST_NAME_REPLY_PRIMARY_OWNER
        await eventually("\(events.withLock { $0 })") { events.withLock { $0 } == ["-", ownerName] }
        reply = try await call("ReleaseName")
        XCTAssertEqual(reply, [.uint32(1)])  // DBUS_RELEASE_NAME_REPLY_RELEASED
        await eventually("\(events.withLock { $0 })") { events.withLock { $0 } == ["-", ownerName, "-"] }
        reply = try await call("RequestName")
        XCTAssertEqual(reply, [.uint32(1)])
        await eventually("\(events.withLock { $0 })") { events.withLock { $0 } == ["-", ownerName, "-", ownerName] }
        owner.close()
        await eventually("closing the owner's connection: \(events.withLock { $0 })") { events.withLock { $0 } == ["-", ownerName, "-", ownerName, "-"] }
    }

    /// Closing completes the call in flight once, ends the subscriptions, and releases every
    /// GDBusConnection and callback before it returns; the thread then ends.
    func testCloseCompletesCallsInFlightAndReleasesEverything() async throws {
        let bus = try PrivateBus(self)
        let before = await settledLiveCounts()
        let thread = MainContextThread(name: "test.dbus-close")
        XCTAssertEqual(threads(named: "test.dbus-close"), 1)
        let connection = try DBusConnection(.address(bus.address), thread: thread)
        let signals = Counter()
        let subscription = try connection.subscribe(member: "Ping") { _ in signals.increment() }
        let watch = try connection.watchName("org.plumb.Test", appeared: { _ in }, vanished: {})
        let completions = Mutex<[Result<[Variant], GLibError>]>([])
        XCTAssertGreaterThan(DBusConnection.live.connections, before.connections)
        thread.sync {
            // Sent and closed in one dispatch: the reply cannot have been dispatched yet.
            connection.call(destination: Self.daemon.name, path: Self.daemon.path, interface: "org.freedesktop.DBus",
                            method: "ListNames", replyType: "(as)") { result in completions.withLock { $0.append(result) } }
            connection.close()  // on the thread: does not wait
        }
        connection.close()  // from here: waits until GDBus has called back
        XCTAssertEqual(completions.withLock { $0.count }, 1, "the call in flight completed \(completions.withLock { $0.count }) times")
        if case .failure(let error) = completions.withLock({ $0.first }) {
            XCTAssertTrue(error.isIOError(GLibError.IOErrorCode.closed), "\(error)")
        }
        XCTAssertEqual(DBusConnection.live.connections, before.connections, "close returned before the connection was released")
        XCTAssertEqual(DBusConnection.live.callbacks, before.callbacks, "close returned before GDBus called back")
        XCTAssertNil(connection.uniqueName)

        // After closing: calls fail as closed, subscribing gives a subscription that never fires.
        let late = await Self.result { () async throws(GLibError) -> [Variant] in
            try await connection.call(destination: Self.daemon.name, path: Self.daemon.path, interface: "org.freedesktop.DBus",
                                      method: "GetId", replyType: "(s)")
        }
        guard case .failure(let error) = late else { return XCTFail("a call on a closed connection succeeded") }
        XCTAssertTrue(error.isIOError(GLibError.IOErrorCode.closed), "\(error)")
        XCTAssertThrowsError(try connection.callSync(destination: Self.daemon.name, path: Self.daemon.path,
                                                     interface: "org.freedesktop.DBus", method: "GetId", replyType: "(s)"))
        _ = try connection.subscribe(member: "Ping") { _ in signals.increment() }
        subscription.cancel()
        watch.cancel()
        XCTAssertEqual(DBusConnection.live.callbacks, before.callbacks)
        XCTAssertEqual(signals.value, 0)

        thread.stop()
        // stop() returns once the thread's work is over; the kernel task goes a moment later.
        await eventually("the thread is still there") { threads(named: "test.dbus-close") == 0 }
    }

    /// Closed on its own thread, a connection cannot wait for GDBus: it holds the thread,
    /// which a stop then lets end only once everything is released.
    func testClosingOnItsThreadHoldsTheThreadUntilGDBusIsDone() async throws {
        let bus = try PrivateBus(self)
        let before = await settledLiveCounts()
        for _ in 0..<10 {
            let thread = MainContextThread(name: "test.dbus-hold")
            let connection = try DBusConnection(.address(bus.address), thread: thread)
            let watch = try connection.watchName("org.plumb.Test", appeared: { _ in }, vanished: {})
            thread.sync {
                connection.call(destination: Self.daemon.name, path: Self.daemon.path, interface: "org.freedesktop.DBus",
                                method: "ListNames", replyType: "(as)") { _ in }
                connection.close()
            }
            thread.stop()
            XCTAssertEqual(DBusConnection.live.connections, before.connections, "the thread ended with a connection alive")
            XCTAssertEqual(DBusConnection.live.callbacks, before.callbacks, "the thread ended with callbacks owed")
            watch.cancel()
        }
        await eventually("\(threads(named: "test.dbus-hold")) threads left") { threads(named: "test.dbus-hold") == 0 }
    }

    /// Released after its thread has stopped, a connection still tears down (the releasing
    /// thread stands in for the stopped one) and leaks nothing.
    func testAConnectionOutlivingItsThreadIsStillReleased() async throws {
        let bus = try PrivateBus(self)
        let before = await settledLiveCounts()
        let thread = MainContextThread(name: "test.dbus-late")
        var connection: DBusConnection? = try DBusConnection(.address(bus.address), thread: thread)
        let subscription = try connection!.subscribe(member: "Ping") { _ in }
        _ = try connection!.callSync(destination: Self.daemon.name, path: Self.daemon.path,
                                     interface: "org.freedesktop.DBus", method: "GetId", replyType: "(s)")
        thread.stop()
        connection = nil
        XCTAssertEqual(DBusConnection.live.connections, before.connections)
        XCTAssertEqual(DBusConnection.live.callbacks, before.callbacks)
        subscription.cancel()
    }

    /// A bus that goes away closes the connection (it does not end the process): the watch
    /// reports the name gone, calls fail with an error.
    func testABusThatGoesAwayIsAnErrorNotAnExit() async throws {
        let bus = try PrivateBus(self)
        let thread = MainContextThread(name: "test.dbus")
        defer { thread.stop() }
        let connection = try DBusConnection(.address(bus.address), thread: thread)
        defer { connection.close() }
        let owner = try DBusConnection(.address(bus.address), thread: thread)
        defer { owner.close() }
        _ = try owner.callSync(destination: Self.daemon.name, path: Self.daemon.path, interface: "org.freedesktop.DBus",
                               method: "RequestName", arguments: [.string("org.plumb.Test"), .uint32(4)], replyType: "(u)")
        let events = Mutex<[String]>([])
        let watch = try connection.watchName("org.plumb.Test", appeared: { _ in events.withLock { $0.append("+") } },
                                             vanished: { events.withLock { $0.append("-") } })
        defer { watch.cancel() }
        await eventually("the owner reported present") { events.withLock { $0 } == ["+"] }
        bus.kill()
        await eventually("\(events.withLock { $0 })") { events.withLock { $0 } == ["+", "-"] }
        let late = await Self.result { () async throws(GLibError) -> [Variant] in
            try await connection.call(destination: Self.daemon.name, path: Self.daemon.path, interface: "org.freedesktop.DBus",
                                      method: "GetId", replyType: "(s)")
        }
        guard case .failure(let error) = late else { return XCTFail("a call over a dead bus succeeded") }
        XCTAssertTrue(error.isIOError(GLibError.IOErrorCode.closed), "\(error)")
    }

    // MARK: Helpers

    private static func result(_ body: () async throws(GLibError) -> [Variant]) async -> Result<[Variant], GLibError> {
        do { return .success(try await body()) } catch { return .failure(error) }
    }

    private static func error(_ body: () throws -> Void) -> Error? {
        do { try body(); return nil } catch { return error }
    }

    /// `call(...)`, waited for on this thread (the completion runs on the connection's), so
    /// that it fits in `GLibLog.capture`.
    private static func blockingCall(_ connection: DBusConnection, destination: String, path: String,
                                     interface: String, method: String, arguments: [Variant] = [],
                                     replyType: String) -> Result<[Variant], GLibError> {
        let outcome = Mutex<Result<[Variant], GLibError>?>(nil)
        let done = DispatchSemaphore(value: 0)
        connection.call(destination: destination, path: path, interface: interface, method: method,
                        arguments: arguments, replyType: replyType) { result in
            outcome.withLock { $0 = result }
            done.signal()
        }
        XCTAssertEqual(done.wait(timeout: .now() + 30), .success, "no completion for \(method)")
        return outcome.withLock { $0 } ?? .failure(GLibError(domain: "test", code: 0, message: "no completion"))
    }

    /// The live counts once earlier tests' connections are released (their threads may still
    /// be finishing); a hang guard, not a timing check.
    private func settledLiveCounts() async -> (connections: Int, callbacks: Int) {
        await eventually("DBusConnection.live == (0, 0)") { DBusConnection.live == (0, 0) }
        return DBusConnection.live
    }

    /// Threads of this process with `name` (as /proc shows it, at most 15 characters).
    private func threads(named name: String) -> Int {
        let tasks = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/task")) ?? []
        return tasks.filter {
            (try? String(contentsOfFile: "/proc/self/task/\($0)/comm", encoding: .utf8))?
                .trimmingCharacters(in: .whitespacesAndNewlines) == name
        }.count
    }
}
