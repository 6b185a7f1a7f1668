import Foundation
import GStreamer
@testable import Plumb
import PlumbTestSupport
import XCTest
import Synchronization
import GLib

/// The fan-out of the encoded preview to appsrc subscribers in pipelines of their own.
final class EncodedStreamTests: XCTestCase {
    /// A subscriber pipeline: `appsrc ! h264parse ! avdec_h264 ! fakesink`, run on its own
    /// clock; its appsrc is live from the start (as in the RTSP media), so it plays at once.
    /// It records what its appsrc hands on (each buffer's flags and timestamp, as the
    /// parser after it gets them) and how many pictures the decoder makes.
    final class Consumer: @unchecked Sendable {  // the fields below are only touched under `lock`
        let pipeline: Pipeline
        let source: AppSrc
        private let lock = NSLock()
        private var pushed: [(pts: ClockTime?, keyframe: Bool)] = []
        private var decoded = 0
        private var decodedCaps: String?

        init(sinkSync: Bool = false) throws {
            pipeline = try Pipeline.parse("appsrc name=src is-live=true format=time ! h264parse name=parse ! avdec_h264 ! fakesink name=out async=false sync=\(sinkSync)")
            source = AppSrc(pipeline.element(named: "src")!)!
            pipeline.element(named: "parse")!.staticPad("sink")!.addProbe(.buffer) { [weak self] info in
                self?.lock.withLock { self?.pushed.append((info.bufferPTS, info.isKeyframe)) }
                return .ok
            }
            pipeline.element(named: "out")!.staticPad("sink")!.addProbe(.buffer) { [weak self] pad, _ in
                let caps = pad.currentCaps?.description
                self?.lock.withLock {
                    self?.decoded += 1
                    if self?.decodedCaps == nil { self?.decodedCaps = caps }
                }
                return .ok
            }
        }

        var decodedFrames: Int { lock.withLock { decoded } }
        var firstDecodedCaps: String? { lock.withLock { decodedCaps } }
        var buffers: [(pts: ClockTime?, keyframe: Bool)] { lock.withLock { pushed } }

        func play() throws { try pipeline.setState(.playing) }
        func stop() { try? pipeline.setState(.null) }
    }

    private func runningSource(keyframeInterval: Int = 3000, stream: EncodedStream = EncodedStream())
        throws -> PreviewTestSource
    {
        let source = try PreviewTestSource(encoding: PreviewEncoding(keyframeInterval: keyframeInterval), stream: stream)
        addTeardownBlock { source.stop() }
        try source.start()
        return source
    }

    func testSubscribersStartOnAKeyframeOnTheirOwnClockAndDecode() throws {
        let source = try runningSource()
        // Let the source run well past its only scheduled keyframe (every 3000 frames).
        eventually("source.frameCount >= 45", timeout: .seconds(10)) { source.frameCount >= 45 }
        let consumers = try (0..<3).map { _ in try Consumer() }
        defer { consumers.forEach { $0.stop() } }
        for (i, c) in consumers.enumerated() {
            try c.play()
            try source.stream.subscribe(c.source, name: "consumer-\(i)")
        }
        XCTAssertEqual(source.stream.subscriberCount, 3)
        eventually("decoded: \(consumers.map(\.decodedFrames))", timeout: .seconds(15)) { consumers.allSatisfy { $0.decodedFrames >= 30 } }
        for c in consumers {
            let buffers = c.buffers
            XCTAssertEqual(buffers.first?.keyframe, true, "a subscriber's first frame must be a keyframe")
            // Stamped by the subscriber's own pipeline, which started a moment ago:
            // not the source's timestamps, which are past 1.5 s by now.
            let firstPTS = try XCTUnwrap(buffers.first?.pts)
            XCTAssertLessThan(firstPTS, ClockTime.second, "first PTS \(firstPTS) is not from the subscriber's clock")
            let ptses = buffers.compactMap(\.pts)
            XCTAssertEqual(ptses, ptses.sorted(), "timestamps must not go back")
            XCTAssertTrue(c.firstDecodedCaps?.contains("width=(int)320, height=(int)240") ?? false,
                          c.firstDecodedCaps ?? "no caps")
        }
        let caps = try XCTUnwrap(source.stream.caps).description
        XCTAssertTrue(caps.hasPrefix("video/x-h264"), caps)
        XCTAssertTrue(caps.contains("stream-format=(string)byte-stream") && caps.contains("alignment=(string)au"), caps)
        // Three joins at once cost one or two keyframes, not one per subscriber per frame.
        let stats = source.stream.statistics
        XCTAssertLessThanOrEqual(stats.keyframes, 4, "\(stats)")
        XCTAssertEqual(source.errors, [])
    }

    /// Each subscriber's frames keep the spacing they were captured with — whole frame
    /// intervals, to the nanosecond — on the subscriber's own timeline, however unevenly
    /// they reach it: stamped on arrival, they carried the encoder's and the threads'
    /// jitter into the RTP timestamps, and ffmpeg saw two frames on one tick.
    func testSubscribersKeepTheCaptureSpacingOnTheirOwnTimeline() throws {
        let source = try runningSource(keyframeInterval: 30)
        eventually("source.frameCount >= 45", timeout: .seconds(10)) { source.frameCount >= 45 }
        let consumer = try Consumer()
        defer { consumer.stop() }
        try consumer.play()
        try source.stream.subscribe(consumer.source, name: "spacing")
        eventually("\(consumer.buffers.count) frames", timeout: .seconds(15)) { consumer.buffers.count >= 90 }
        let ptses = consumer.buffers.compactMap(\.pts)
        XCTAssertEqual(ptses.count, consumer.buffers.count, "every frame has a timestamp")
        let first = try XCTUnwrap(ptses.first)
        XCTAssertLessThan(first, ClockTime.second, "not on the subscriber's own timeline (the source is past 1.5 s)")
        let interval = Double(ClockTime.second) / 30
        for (a, b) in zip(ptses, ptses.dropFirst()) {
            let step = Double(b) - Double(a)
            let frames = (step / interval).rounded()
            XCTAssertGreaterThanOrEqual(frames, 1, "timestamps \(a) then \(b)")
            // videotestsrc stamps frame n at n s / 30, rounded down to the nanosecond.
            XCTAssertEqual(step, frames * interval, accuracy: 2, "timestamps \(a) then \(b) are not whole frames apart")
        }
    }

    func testCaptureRetimerKeepsTheSpacingStartsNowAndNeverGoesBack() {
        var retimer = CaptureRetimer()
        let ms: ClockTime = 1_000_000
        // The first frame goes out now; the next ones keep their capture spacing, whenever they come.
        XCTAssertEqual(retimer.runningTime(capture: 5000 * ms, now: 20 * ms), 20 * ms)
        XCTAssertEqual(retimer.runningTime(capture: 5033 * ms, now: 70 * ms), 53 * ms)
        XCTAssertEqual(retimer.runningTime(capture: 5066 * ms, now: 71 * ms), 86 * ms)
        // A new capture pipeline starts from zero: the mapping starts again from now.
        XCTAssertEqual(retimer.runningTime(capture: 10 * ms, now: 900 * ms), 900 * ms)
        XCTAssertEqual(retimer.runningTime(capture: 43 * ms, now: 910 * ms), 933 * ms)
        // ... and never before the last frame, even if "now" is earlier than that.
        XCTAssertEqual(retimer.runningTime(capture: 0, now: 100 * ms), 934 * ms)
        // Timestamps that jump far ahead of the clock start it again too.
        XCTAssertEqual(retimer.runningTime(capture: 99_000 * ms, now: 1000 * ms), 1000 * ms)
    }

    func testASubscriberWhosePipelineStopsIsDroppedAndTheOthersCarryOn() throws {
        let source = try runningSource()
        let keep = try Consumer(), leave = try Consumer()
        defer {
            keep.stop()
            leave.stop()
        }
        try keep.play()
        try leave.play()
        let ended = Counter()
        try source.stream.subscribe(keep.source, name: "keep")
        let leaving = try source.stream.subscribe(leave.source, name: "leave") { end in
            if end == .refused(.flushing) { ended.increment() }
        }
        eventually("keep.decodedFrames >= 10 && leave.decodedFrames >= 10", timeout: .seconds(10)) { keep.decodedFrames >= 10 && leave.decodedFrames >= 10 }
        leave.stop()  // its appsrc now answers FLUSHING
        eventually("the stopped subscriber was not dropped", timeout: .seconds(5)) { source.stream.subscriberCount == 1 }
        XCTAssertEqual(leaving.end, .refused(.flushing))
        XCTAssertEqual(ended.value, 1, "onEnd is called once, with the reason")
        let before = keep.decodedFrames
        eventually("the remaining subscriber stalled", timeout: .seconds(10)) { keep.decodedFrames >= before + 30 }
        XCTAssertLessThanOrEqual(source.frames.largestTimestampGap, source.frameInterval * 3 / 2)
    }

    func testASubscriberNotPlayingYetIsKeptWithABoundedQueue() throws {
        let stream = EncodedStream(maxQueuedBuffers: 10)
        let source = try runningSource(stream: stream)
        let late = try Consumer()
        defer { late.stop() }
        // Subscribed while its pipeline is still NULL (as an RTSP media is before it is
        // prepared): its appsrc queues, but never more than the bound.
        let subscription = try stream.subscribe(late.source, name: "late")
        eventually("source.frameCount >= 30", timeout: .seconds(10)) { source.frameCount >= 30 }
        XCTAssertTrue(subscription.isActive)
        XCTAssertLessThanOrEqual(late.source.queuedBuffers, 10, "the queue grew past its bound")
        XCTAssertGreaterThanOrEqual(subscription.statistics.resyncs, 1, "\(subscription.statistics)")
        try late.play()
        eventually("it never started: \(subscription.statistics)", timeout: .seconds(10)) { late.decodedFrames >= 10 }
        XCTAssertEqual(late.buffers.first?.keyframe, true)
    }

    func testASubscriberThatFallsBehindSkipsToTheNextKeyframe() throws {
        let stream = EncodedStream(maxQueuedBuffers: 10)
        let source = try runningSource(stream: stream)
        let slow = try Consumer()
        defer { slow.stop() }
        // PAUSED: a live appsrc does not run, so its queue fills up.
        try slow.pipeline.setState(.paused)
        let subscription = try stream.subscribe(slow.source, name: "slow")
        eventually("\(subscription.statistics)", timeout: .seconds(10)) { subscription.statistics.resyncs >= 1 }
        XCTAssertLessThanOrEqual(slow.source.queuedBuffers, 10, "the queue grew past its bound")
        XCTAssertTrue(subscription.isActive, "falling behind is not a reason to drop a subscriber")
        try slow.play()
        eventually("it did not recover: \(subscription.statistics)", timeout: .seconds(10)) { slow.decodedFrames >= 20 }
        XCTAssertEqual(source.errors, [])
    }

    /// A stream relaying another (the preview relaying the main encoding, issue 26): its
    /// appsrc subscriber starts on a keyframe the relay asked the upstream encoder for (its
    /// only scheduled one long past) and decodes; an in-process callback subscriber (the ring)
    /// on the upstream stream gets the same frames; ending the relay leaves the upstream alone.
    func testARelayedStreamStartsOnAKeyframeAskedOfTheUpstreamEncoder() throws {
        let upstream = EncodedStream(keyframeCooldown: .milliseconds(100))
        let source = try runningSource(stream: upstream)
        eventually("source.frameCount >= 45", timeout: .seconds(10)) { source.frameCount >= 45 }
        let ring = Mutex<[Bool]>([])
        let callback = upstream.subscribe(name: "ring") { buffer, _ in ring.withLock { $0.append(buffer.isKeyframe) } }
        // The ring's own keyframe first, and frames past the cooldown after it: a keyframe
        // still on its way for the ring would also answer the relay's wish, and rightly so.
        eventually("the ring has its keyframe and 10 frames", timeout: .seconds(15)) { ring.withLock { $0.count } >= 10 }
        let preview = EncodedStream()
        let consumer = try Consumer()
        defer { consumer.stop() }
        try consumer.play()
        try preview.subscribe(consumer.source, name: "rtsp")
        let sentBefore = upstream.statistics.keyframeRequestsSent
        preview.relay(from: upstream)
        XCTAssertTrue(preview.relayedStream === upstream)
        eventually("decoded \(consumer.decodedFrames)", timeout: .seconds(15)) { consumer.decodedFrames >= 10 }
        XCTAssertEqual(consumer.buffers.first?.keyframe, true)
        XCTAssertGreaterThan(upstream.statistics.keyframeRequestsSent, sentBefore, "the relay asked the encoder for none")
        XCTAssertEqual(ring.withLock { $0.first }, true, "the callback subscriber starts on a keyframe too")
        XCTAssertEqual(upstream.subscriberCount, 2)  // the ring and the relay
        preview.stopRelay()
        XCTAssertNil(preview.relayedStream)
        XCTAssertEqual(upstream.subscriberCount, 1)
        let seen = ring.withLock { $0.count }
        eventually("the ring goes on", timeout: .seconds(10)) { ring.withLock { $0.count } > seen + 5 }
        callback.cancel()
        XCTAssertEqual(upstream.subscriberCount, 0)
        XCTAssertEqual(source.errors, [])
    }

    func testKeyframeRequestsAreRateLimited() throws {
        let stream = EncodedStream(keyframeCooldown: .milliseconds(500))
        let source = try runningSource(stream: stream)
        eventually("source.frameCount >= 15", timeout: .seconds(10)) { source.frameCount >= 15 }
        let before = stream.statistics
        for _ in 0..<100 { stream.requestKeyframe() }
        Thread.sleep(forTimeInterval: 1.2)  // the thing tested: wishes over a second become at most one keyframe
        let after = stream.statistics
        XCTAssertEqual(after.keyframeWishes - before.keyframeWishes, 100)
        // At most one now and one when the cooldown ends (if the first was not answered yet).
        XCTAssertLessThanOrEqual(after.keyframeRequestsSent - before.keyframeRequestsSent, 2, "\(after)")
        XCTAssertGreaterThanOrEqual(after.keyframes - before.keyframes, 1, "the encoder was never asked: \(after)")
        XCTAssertLessThanOrEqual(after.keyframes - before.keyframes, 2, "\(after)")
    }

    /// Wishes while no encoder feeds the stream (an on-demand one not started yet) cost no
    /// cooldown: the first wish once it runs (an RTSP PLAY right after the DESCRIBE that
    /// started it) reaches the encoder at once. Counted by the subscriber's demand wake-ups too.
    func testWishesBeforeTheEncoderRunsDoNotHoldBackTheFirstRequest() throws {
        let stream = EncodedStream(keyframeCooldown: .seconds(30))
        let wakeUps = Recorder(stream.demandChanges())
        let consumer = try Consumer()
        defer { consumer.stop() }
        try consumer.play()
        let subscription = try stream.subscribe(consumer.source, name: "early")
        stream.requestKeyframe()
        XCTAssertEqual(stream.statistics.keyframeRequestsSent, 0, "no encoder to ask")
        XCTAssertFalse(stream.isAttached)
        let source = try runningSource(stream: stream)
        XCTAssertTrue(stream.isAttached)
        stream.requestKeyframe()
        XCTAssertEqual(stream.statistics.keyframeRequestsSent, 1, "held back by a cooldown no request started")
        eventually("decoded \(consumer.decodedFrames)", timeout: .seconds(15)) { consumer.decodedFrames >= 10 }
        XCTAssertEqual(consumer.buffers.first?.keyframe, true)
        // A wake-up at once and one per change since (only the newest waits while none is read).
        eventually("wakeUps.all.count >= 1", timeout: .seconds(5)) { wakeUps.all.count >= 1 }
        let seen = wakeUps.all.count
        subscription.cancel()
        XCTAssertEqual(stream.subscriberCount, 0)
        eventually("no wake-up for the subscriber leaving", timeout: .seconds(5)) { wakeUps.all.count > seen }
        XCTAssertEqual(source.errors, [])
    }

    func testKeyframeGateSendsOncePerCooldownAndResendsUntilAKeyframeComes() {
        var gate = KeyframeGate(cooldown: .milliseconds(500))
        let t0 = ContinuousClock.now
        XCTAssertTrue(gate.ask(at: t0))
        XCTAssertFalse(gate.ask(at: t0 + .milliseconds(10)), "within the cooldown")
        XCTAssertFalse(gate.frame(isKeyframe: false, at: t0 + .milliseconds(100)))
        XCTAssertTrue(gate.frame(isKeyframe: false, at: t0 + .milliseconds(600)), "no keyframe came: ask again")
        XCTAssertFalse(gate.frame(isKeyframe: true, at: t0 + .milliseconds(700)))
        XCTAssertFalse(gate.frame(isKeyframe: false, at: t0 + .seconds(2)), "a keyframe came: nothing wanted")
        XCTAssertTrue(gate.ask(at: t0 + .seconds(2)))
    }

    func testCloseEndsEverySubscriptionWithEndOfStream() throws {
        let source = try runningSource()
        let consumer = try Consumer()
        defer { consumer.stop() }
        let bus = MainContextThread(name: "consumer-bus")
        defer { bus.stop() }
        let messages = consumer.pipeline.messages(on: bus.context)
        try consumer.play()
        let subscription = try source.stream.subscribe(consumer.source, name: "c")
        eventually("consumer.decodedFrames >= 5", timeout: .seconds(10)) { consumer.decodedFrames >= 5 }
        source.stream.close()
        XCTAssertEqual(subscription.end, .streamClosed)
        XCTAssertEqual(source.stream.subscriberCount, 0)
        let gotEOS = expectation(description: "EOS at the subscriber's sink")
        let task = Task {
            for await message in messages { if case .eos = message { gotEOS.fulfill(); return } }
        }
        wait(for: [gotEOS], timeout: 10)
        task.cancel()
    }
}
