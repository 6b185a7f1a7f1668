import Foundation
import GStreamer
import GStreamerRTSP
@testable import Plumb
import PlumbTestSupport
import XCTest
import GLib
@testable import PlumbLocation

/// Publishing the preview to a RECORD server started by the test, which decodes what it
/// receives (avdec_h264, independent of Plumb's code), and the publisher's reconnects.
final class RTSPPublisherTests: XCTestCase {
    /// A gst-rtsp-server RECORD mount at /live that counts the pictures it decodes.
    final class RecordServer: @unchecked Sendable {  // `frames` is only touched under `lock`
        let server: RTSPServer
        let loop = MainContextThread(name: "record-server")
        let port: Int
        private let lock = NSLock()
        private var frames = 0

        init(port: Int = 0) throws {
            server = try RTSPServer(address: "127.0.0.1", port: port)
            let launch = "( rtph264depay name=depay0 ! h264parse ! avdec_h264 ! fakesink name=frames sync=false )"
            let counter = Counter()
            server.mount(path: "/live", launch: launch, mode: .record, shared: false) { bin in
                bin.element(named: "frames")?.staticPad("sink")?.addProbe(.buffer) { _ in
                    counter.increment()
                    return .ok
                }
                return nil
            }
            self.counter = counter
            self.port = try server.start(on: loop.context)
        }

        private let counter: Counter
        var decodedFrames: Int { counter.value }
        var url: String { "rtsp://127.0.0.1:\(port)/live" }

        func stop() {
            server.stop()
            loop.stop()
        }
    }

    /// Every state the publisher goes through, in order.
    final class StateLog: @unchecked Sendable {  // `states` is only touched under `lock`
        private let lock = NSLock()
        private var states: [RTSPPublisher.State] = []
        private var task: Task<Void, Never>?

        init(_ publisher: RTSPPublisher) {
            let updates = publisher.stateUpdates()
            task = Task { [weak self] in
                for await state in updates { self?.lock.withLock { self?.states.append(state) } }
            }
        }

        var all: [RTSPPublisher.State] { lock.withLock { states } }

        /// The waits announced, in order.
        var waits: [Duration] {
            all.compactMap { if case .waiting(let d, _, _) = $0 { return d } else { return nil } }
        }

        var connectedCount: Int { all.filter { $0 == .connected }.count }

        deinit { task?.cancel() }
    }

    func testBackoffDoublesFromHalfASecondToThirtySeconds() {
        let backoff = Backoff()
        XCTAssertEqual((1...9).map { backoff.delay(afterFailures: $0) },
                       [.milliseconds(500), .seconds(1), .seconds(2), .seconds(4), .seconds(8), .seconds(16),
                        .seconds(30), .seconds(30), .seconds(30)])
        XCTAssertEqual(Backoff(initial: .seconds(5), maximum: .seconds(1)).delay(afterFailures: 3), .seconds(5),
                       "a maximum below the initial wait is raised to it")
    }

    func testABadURLIsRefusedWithWhatToWrite() throws {
        let stream = EncodedStream()
        for url in ["http://example.com/x", "rtsp://", "rtsp://host", "not a url"] {
            XCTAssertThrowsError(try RTSPPublisher(stream: stream, configuration: .init(url: url)), url) { error in
                XCTAssertTrue("\(error)".contains("rtsp://HOST[:PORT]/PATH"), "\(error)")
            }
        }
    }

    func testPublisherWaitsWithBackoffUntilTheServerAppears() throws {
        let source = try PreviewTestSource(encoding: PreviewEncoding(keyframeInterval: 3000))
        defer { source.stop() }
        try source.start()
        // Held until the server takes it: refused meanwhile, and nobody else's.
        let port = Int(try ReservedPort(self).port)
        let publisher = try RTSPPublisher(stream: source.stream,
                                          configuration: .init(url: "rtsp://127.0.0.1:\(port)/live"))
        let log = StateLog(publisher)
        publisher.start()
        // Nobody listens: refused at once, then 0.5 s, 1 s, 2 s between attempts.
        eventually("states: \(log.all)", timeout: .seconds(15)) { log.waits.count >= 3 }
        XCTAssertEqual(Array(log.waits.prefix(3)), [.milliseconds(500), .seconds(1), .seconds(2)])
        guard case .waiting(_, let failures, let reason) = log.all.last(where: { if case .waiting = $0 { true } else { false } })
        else { return XCTFail("never waited: \(log.all)") }
        XCTAssertGreaterThanOrEqual(failures, 3)
        XCTAssertFalse(reason.isEmpty)
        // The server comes: the next attempt connects and frames arrive.
        let server = try RecordServer(port: port)
        defer { server.stop() }
        eventually("state \(publisher.state), \(server.decodedFrames) frames decoded; states: \(log.all)", timeout: .seconds(20)) { publisher.state == .connected && server.decodedFrames >= 15 }
        publisher.stop()
        XCTAssertEqual(publisher.state, .stopped)
        XCTAssertEqual(source.errors, [])
    }

    func testPublisherRecoversAfterTheServerRestartsWithoutDisturbingTheSource() throws {
        let source = try PreviewTestSource(encoding: PreviewEncoding(keyframeInterval: 3000))
        defer { source.stop() }
        try source.start()
        // A held port: between the first server's stop and the second's start nothing else takes it.
        let port = Int(try ReservedPort(self).port)
        let first = try RecordServer(port: port)
        let publisher = try RTSPPublisher(stream: source.stream, configuration: .init(url: first.url))
        let log = StateLog(publisher)
        publisher.start()
        eventually("state \(publisher.state), \(first.decodedFrames) frames decoded; states: \(log.all)", timeout: .seconds(20)) { publisher.state == .connected && first.decodedFrames >= 30 }

        // The server goes away: the publisher notices, tears down and waits.
        first.stop()
        eventually("state \(publisher.state); states: \(log.all)", timeout: .seconds(20)) { if case .waiting = publisher.state { true } else { false } }
        // Capture goes on while the server is away (that it never paused or lost a frame is
        // checked at the end, on the frames' own times, whatever the machine's load).
        let framesWhileDown = source.frameCount
        eventually("the source stopped while the server was away: \(source.frameCount - framesWhileDown) frames", timeout: .seconds(20)) { source.frameCount - framesWhileDown > 45 }

        // It comes back on the same port: the publisher reconnects by itself.
        let second = try RecordServer(port: port)
        defer { second.stop() }
        eventually("state \(publisher.state), \(second.decodedFrames) frames decoded; states: \(log.all)", timeout: .seconds(30)) { publisher.state == .connected && second.decodedFrames >= 30 }
        XCTAssertEqual(publisher.connections, 2)
        XCTAssertEqual(log.connectedCount, 2)
        XCTAssertGreaterThanOrEqual(publisher.framesSent, first.decodedFrames + second.decodedFrames,
                                    "frames sent, counted over both connections")
        publisher.stop()

        // The capture side never noticed: every frame, none late.
        let frames = source.frames
        XCTAssertLessThanOrEqual(frames.largestTimestampGap, source.frameInterval * 3 / 2,
                                 "the source lost frames while the publisher reconnected")
        XCTAssertLessThan(frames.largestArrivalGap, 1_000_000_000, "the source stalled")
        XCTAssertEqual(source.errors, [])
    }

    func testPublisherOverUDP() throws {
        let source = try PreviewTestSource(encoding: PreviewEncoding(keyframeInterval: 3000))
        defer { source.stop() }
        try source.start()
        let server = try RecordServer()
        defer { server.stop() }
        let publisher = try RTSPPublisher(stream: source.stream, configuration: .init(url: server.url, transport: .udp))
        publisher.start()
        eventually("state \(publisher.state), \(server.decodedFrames) frames decoded", timeout: .seconds(20)) { publisher.state == .connected && server.decodedFrames >= 30 }
        publisher.stop()
        XCTAssertEqual(publisher.state, .stopped)
        XCTAssertEqual(source.stream.subscriberCount, 0, "a stopped publisher lets go of its subscription")
    }
}
