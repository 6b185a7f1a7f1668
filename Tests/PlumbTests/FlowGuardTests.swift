import Foundation
import PlumbTestSupport
import GStreamer
@testable import Plumb
import Synchronization
import XCTest
import GLib

/// One broken tee branch must not stop the others (the session's tee-pad guard).
final class FlowGuardTests: XCTestCase {
    private final class Counter: Sendable {
        let value = Atomic<Int>(0)
    }

    /// tee -> healthy queue -> fakesink (counted), and tee -> leaky queue -> identity that
    /// fails after 5 frames. Returns the frames the healthy branch got in `seconds`, and
    /// whether the source reported the stopped stream.
    private func run(guarded: Bool, seconds: Double) async throws -> (frames: Int, sourceStopped: Bool) {
        let pipeline = try Pipeline(name: "guard-test")
        let src = try Element(factory: "videotestsrc", name: "src")
        try src.set("is-live", true)
        let caps = try Element(factory: "capsfilter", name: "caps")
        try caps.set("caps", try Caps("video/x-raw,width=64,height=48,framerate=100/1"))
        let tee = try Element(factory: "tee", name: "tee")
        try tee.set("allow-not-linked", true)
        let q1 = try Element(factory: "queue", name: "q1")
        let healthy = try Element(factory: "fakesink", name: "healthy")
        let q2 = try Element(factory: "queue", name: "q2")
        try q2.set("leaky", EnumNick("downstream"))
        let breaker = try Element(factory: "identity", name: "breaker")
        try breaker.set("error-after", 5)
        let broken = try Element(factory: "fakesink", name: "broken")
        try pipeline.add(src, caps, tee, q1, healthy, q2, breaker, broken)
        try src.link(to: caps)
        try caps.link(to: tee)
        try tee.requestPad("src_%u").link(to: q1.staticPad("sink")!)
        try q1.link(to: healthy)
        let teePad = try tee.requestPad("src_%u")
        try teePad.link(to: q2.staticPad("sink")!)
        try q2.link(to: breaker)
        try breaker.link(to: broken)
        let guardian = FlowGuard()
        if guarded { guardian.install(on: teePad, queueSource: q2.staticPad("src")!) }

        let counter = Counter()
        healthy.staticPad("sink")!.addProbe(.buffer) { _ in
            counter.value.add(1, ordering: .relaxed)
            return .ok
        }
        let context = MainContextThread()
        let stopped = Counter()
        let watch = pipeline.watchBus(on: context.context) { message in
            if case .error(let e) = message, e.sourceName == "src" { stopped.value.store(1, ordering: .relaxed) }
        }
        try pipeline.setState(.playing)
        try await Task.sleep(for: .seconds(seconds))  // the thing tested: the pipeline runs this long
        try pipeline.setState(.null)
        watch.cancel()
        context.stop()
        return (counter.value.load(ordering: .relaxed), stopped.value.load(ordering: .relaxed) == 1)
    }

    func testTheGuardKeepsTheOtherBranchesRunning() async throws {
        let (frames, sourceStopped) = try await run(guarded: true, seconds: 1)
        XCTAssertFalse(sourceStopped, "the camera's source stopped")
        XCTAssertGreaterThan(frames, 50, "the healthy branch stopped getting frames")
    }

    /// Why the guard exists: without it, the broken branch stops the source.
    func testWithoutTheGuardOneBrokenBranchStopsTheSource() async throws {
        let (frames, sourceStopped) = try await run(guarded: false, seconds: 1)
        XCTAssertTrue(sourceStopped)
        XCTAssertLessThan(frames, 20)
    }
}
