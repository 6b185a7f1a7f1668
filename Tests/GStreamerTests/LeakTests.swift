import Foundation
import PlumbTestSupport
import GStreamer
import XCTest
import GLib

/// Builds, plays and tears down a few hundred pipelines — parsed and hand-linked
/// elements, tee request pads, pad probes, bus watch streams, failing state changes —
/// and shows with GStreamer's `leaks` tracer that no GStreamer object outlives them,
/// and with the layer's counters that no Swift wrapper or bus watch does.
///
/// Tracers are only read at gst_init and every test target runs in one process, so
/// without `GST_TRACERS=leaks` the test runs itself again in a child process of the
/// test binary, with the tracer on and filtered to this one test.
final class LeakTests: XCTestCase {
    static let warmUp = 20
    static let iterations = 300
    static let childMarker = "PLUMB_LEAK_TEST_CHILD"
    /// Live objects seen once in the middle of the loop, while a pipeline exists.
    private let midRun = Counter()

    func testBuildPlayTeardownLeavesNoObjects() async throws {
        guard LeakTracer.isActive else {
            if ProcessInfo.processInfo.environment[Self.childMarker] != nil {
                return XCTFail("the leaks tracer is not active although GST_TRACERS=leaks was set")
            }
            return try runInChildWithTracer()
        }
        let thread = MainContextThread()
        defer { thread.stop() }
        // The first runs load plugins, make pad templates, the system clock, buffer pools of
        // classes ...: objects that live as long as the process, outside the comparison.
        for i in 0..<Self.warmUp { try await cycle(i, thread.context) }
        let baseline = try await settledCounts()
        let wrappers = LiveCounts.liveObjectWrappers
        let watches = LiveCounts.liveBusWatches

        let started = ContinuousClock.now
        for i in 0..<Self.iterations { try await cycle(i, thread.context) }
        let elapsed = ContinuousClock.now - started

        let before = baseline.values.reduce(0, +)
        var after = try await settledCounts(atMost: before)
        var total = after.values.reduce(0, +)
        if total > before {  // give stragglers released on other threads one more chance
            try await Task.sleep(for: .seconds(1))  // a second for what other threads still release
            after = try await settledCounts(atMost: before)
            total = after.values.reduce(0, +)
        }
        let grown = after.compactMap { type, count -> String? in
            let growth = count - (baseline[type] ?? 0)
            return growth > 0 ? "\(type) +\(growth)" : nil
        }.sorted()
        print("leak-test: \(Self.iterations) pipelines in \(elapsed); live GStreamer objects before=\(before) "
              + "after=\(total) (\(midRun.value) while one pipeline was playing); "
              + "Swift wrappers before=\(wrappers) after=\(LiveCounts.liveObjectWrappers); "
              + "bus watches before=\(watches) after=\(LiveCounts.liveBusWatches)")
        XCTAssertGreaterThan(midRun.value, 20, "the tracer must see a running pipeline's objects")
        XCTAssertEqual(grown, [], "GStreamer objects left alive by \(Self.iterations) pipelines")
        XCTAssertLessThanOrEqual(total, before)
        XCTAssertEqual(LiveCounts.liveObjectWrappers, wrappers, "Swift wrappers left alive")
        XCTAssertEqual(LiveCounts.liveBusWatches, watches, "bus watches left attached")
    }

    /// One pipeline's life. Most runs: a parsed pipeline with a tee, a second branch
    /// added and linked by hand to a tee request pad with a buffer probe on it, played
    /// to EOS through a bus stream, then unlinked, released and dropped. Every tenth:
    /// a pipeline whose state change fails (its error recorded and streamed).
    private func cycle(_ i: Int, _ context: MainContext) async throws {
        if i % 10 == 9 {
            let pipeline = try Pipeline.parse("videotestsrc num-buffers=1 ! filesink location=\(missingDirectory)/\(i)")
            let stream = pipeline.messages(on: context)
            XCTAssertThrowsError(try pipeline.setState(.playing))
            let end = try await readUntilEnd(stream)
            XCTAssertNotNil(end.error, "\(end)")
            try pipeline.setState(.null)
            return
        }
        let pipeline = try Pipeline.parse("""
            videotestsrc num-buffers=3 ! capsfilter name=size ! tee name=t ! queue ! fakesink name=a
            """)
        try XCTUnwrap(pipeline.element(named: "size")).set("caps", try Caps("video/x-raw,width=32,height=24"))
        let queue = try Element(factory: "queue")
        let sink = try Element(factory: "fakesink")
        try pipeline.add(queue, sink)
        try queue.link(to: sink)
        let tee = try XCTUnwrap(pipeline.element(named: "t"))
        let teePad = try tee.requestPad("src_%u")
        let queueSink = try XCTUnwrap(queue.staticPad("sink"))
        try teePad.link(to: queueSink)
        let buffers = Counter()
        let probe = queueSink.addProbe(.buffer) { info in
            if info.hasBuffer { buffers.increment() }
            return .ok
        }
        var tags = TagList()
        try tags.set(TagList.title, "run \(i)")

        let stream = pipeline.messages(on: context)
        try pipeline.setState(.playing)
        let end = try await readUntilEnd(stream)
        XCTAssertTrue(end.isEOS, "\(end)")
        if i == Self.warmUp + 1 { midRun.set(LeakTracer.liveObjects()?.count ?? 0) }
        XCTAssertEqual(queueSink.currentCaps?.structure(at: 0)?.int("width"), 32)
        try pipeline.setState(.null)

        queueSink.removeProbe(probe)
        XCTAssertTrue(teePad.unlink(queueSink))
        tee.releaseRequestPad(teePad)
        XCTAssertEqual(buffers.value, 3)
    }

    /// Live objects by type, once two snapshots a moment apart agree (objects released
    /// on streaming or main-context threads settle), or at once when at most `limit`.
    private func settledCounts(atMost limit: Int? = nil) async throws -> [String: Int] {
        var previous = try XCTUnwrap(LeakTracer.liveCounts())
        for _ in 0..<50 {
            if let limit, previous.values.reduce(0, +) <= limit { return previous }
            try await Task.sleep(for: .milliseconds(50))  // the thing tested: two snapshots this far apart agree
            let now = try XCTUnwrap(LeakTracer.liveCounts())
            if now == previous && limit == nil { return now }
            previous = now
        }
        return previous
    }

    /// Runs this test in a child process of the test binary with the tracer on,
    /// and passes on its verdict and its numbers.
    private func runInChildWithTracer() throws {
        let binary = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath().path
        let test = "GStreamerTests.LeakTests/testBuildPlayTeardownLeavesNoObjects"
        var environment = ProcessInfo.processInfo.environment
        environment["GST_TRACERS"] = "leaks"
        environment[Self.childMarker] = "1"
        let child = try runProgram(binary, [test], environment: environment, timeout: 300)
        for line in child.output.split(separator: "\n") where line.hasPrefix("leak-test:") || line.contains("error:") {
            print("child: \(line)")
        }
        XCTAssertEqual(child.status, 0, "the child run failed:\n\(child.output)")
        XCTAssertTrue(child.output.contains("Executed 1 test,"), "the child did not run the test:\n\(child.output)")
        XCTAssertTrue(child.output.contains("leak-test:"), child.output)
    }
}
