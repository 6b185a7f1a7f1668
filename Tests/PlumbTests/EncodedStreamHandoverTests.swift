import Foundation
import GStreamer
@testable import Plumb
import PlumbTestSupport
import Synchronization
import XCTest

/// A handover between two feeds of an `EncodedStream` whose order the test decides frame by
/// frame: real H.264 access units (two x264enc runs over the same test pattern) pushed
/// through `appsrc ! fakesink` pairs, each fakesink's pad tapped as a feed.
final class EncodedStreamHandoverTests: XCTestCase {
    private static let interval = ClockTime.second / 30

    /// `frames` access units of the test pattern, 160x120, a keyframe every `keyframeInterval`,
    /// stamped i/30 s.
    private func encode(frames: Int, keyframeInterval: Int) throws -> [Buffer] {
        let pipeline = try Pipeline.parse(
            "videotestsrc num-buffers=\(frames) ! video/x-raw,width=160,height=120,framerate=30/1 "
                + "! x264enc tune=zerolatency key-int-max=\(keyframeInterval) ! h264parse config-interval=-1 "
                + "! video/x-h264,stream-format=byte-stream,alignment=au ! appsink name=out sync=false")
        defer { try? pipeline.setState(.null) }
        let sink = try XCTUnwrap(AppSink(pipeline.element(named: "out")!))
        try pipeline.setState(.playing)
        var buffers: [Buffer] = []
        while let buffer = try sink.pull(timeout: .seconds(30), failingOnErrorsOf: pipeline)?.buffer {
            let time = ClockTime(buffers.count) * Self.interval
            buffers.append(buffer.retimed(pts: time, dts: time))
        }
        XCTAssertEqual(buffers.count, frames)
        return buffers
    }

    /// One feed: an appsrc whose pushes reach the stream through a tapped fakesink pad; each
    /// push returns once the stream has had the frame (a probe after the stream's counts it).
    private final class Feed: Sendable {
        let source: AppSrc
        let pad: Pad
        private let seen = Mutex(0)

        init(_ pipeline: Pipeline, _ name: String) throws {
            source = try XCTUnwrap(AppSrc(pipeline.element(named: name)!))
            pad = try XCTUnwrap(pipeline.element(named: "\(name)sink")!.staticPad("sink"))
        }

        /// After the stream's tap: its probe then runs before this one.
        func count() {
            _ = pad.addProbe(.buffer) { [self] _ in
                seen.withLock { $0 += 1 }
                return .ok
            }
        }

        func push(_ buffer: Buffer) throws {
            let target = seen.withLock { $0 } + 1
            try source.push(buffer)
            eventually("the frame through the feed", timeout: .seconds(10), every: .milliseconds(1)) {
                self.seen.withLock { $0 } >= target
            }
        }
    }

    /// What the stream's subscriber got, in order.
    private final class Collected: Sendable {
        let frames = Mutex<[Buffer]>([])
        var all: [Buffer] { frames.withLock { $0 } }
    }

    /// Two feeds, `a` and `b`, playing; a stream; and what its subscriber got. Torn down after the test.
    private func rig() throws -> (a: Feed, b: Feed, stream: EncodedStream, got: Collected) {
        let caps = "video/x-h264,stream-format=byte-stream,alignment=au"
        let pipeline = try Pipeline.parse(
            "appsrc name=a format=time caps=\(caps) ! fakesink name=asink sync=false async=false "
                + "appsrc name=b format=time caps=\(caps) ! fakesink name=bsink sync=false async=false")
        addTeardownBlock { try? pipeline.setState(.null) }
        let a = try Feed(pipeline, "a"), b = try Feed(pipeline, "b")
        try pipeline.setState(.playing)
        let stream = EncodedStream()
        let got = Collected()
        let subscription = stream.subscribe(name: "collector") { buffer, _ in got.frames.withLock { $0.append(buffer) } }
        addTeardownBlock { subscription.cancel() }
        return (a, b, stream, got)
    }

    /// A new feed whose encoder lags five frames behind the old one's (a busy machine) made
    /// every keyframe too early: its first came after the old feed had delivered five frames
    /// past it, and so did every later one, so it never took over and both encoders ran on.
    /// Now the old feed's frames are held once a keyframe came too early, and the next
    /// keyframe takes over: the subscriber gets every frame once, the old feed's up to that
    /// keyframe and the new one's from it, and an outside decoder reads them all.
    func testANewFeedThatLagsTakesOverWithoutAFrameLostOrDoubled() throws {
        let old = try encode(frames: 60, keyframeInterval: 60)
        let new = try encode(frames: 60, keyframeInterval: 10)
        XCTAssertTrue(new[20].isKeyframe && new[30].isKeyframe && !new[25].isKeyframe)

        let (a, b, stream, got) = try rig()
        try stream.attach(tap: a.pad)
        a.count()
        for frame in old[0..<20] { try a.push(frame) }

        // The new feed starts at frame 20 and runs five frames behind the old one.
        try stream.attach(tap: b.pad)
        b.count()
        for i in 20..<60 {
            try a.push(old[i])
            if i - 5 >= 20 { try b.push(new[i - 5]) }
        }
        for frame in new[55..<60] { try b.push(frame) }

        let frames = got.all
        let statistics = stream.statistics
        XCTAssertEqual(statistics.handovers, 1, "the new feed took over: \(statistics)")
        XCTAssertGreaterThan(statistics.handoverKeyframesTooEarly, 0, "its first keyframe came too early: \(statistics)")
        XCTAssertFalse(stream.isHandingOver)
        XCTAssertEqual(frames.compactMap(\.pts), (0..<60).map { ClockTime($0) * Self.interval },
                       "every frame once, in order")
        // Whose frames: the old feed's up to the new one's second keyframe (30), the new one's from it.
        let from = frames.enumerated().map { i, f in f.data == old[i].data ? "old" : f.data == new[i].data ? "new" : "?" }
        XCTAssertEqual(from, Array(repeating: "old", count: 30) + Array(repeating: "new", count: 30))

        let file = try temporaryDirectory(self).appendingPathComponent("stream.h264")
        try Data(frames.flatMap(\.data)).write(to: file)
        let decoded = try PlumbProcess.run(PlumbProcess.tool("ffmpeg"), ["-v", "error", "-f", "h264", "-i", file.path,
                                                                          "-f", "null", "-"])
        XCTAssertEqual(decoded.stderr, "", "ffmpeg's errors decoding the stream")
        XCTAssertEqual(try IndependentReaders.ffprobeFrameCount(file.path), 60)
    }

    /// The old feed ends while its frames are held (the new one has made no keyframe late
    /// enough yet): the held frames still reach the subscriber, and the new feed goes on from
    /// its next keyframe.
    func testHeldFramesGoOutWhenTheOldFeedEnds() throws {
        let old = try encode(frames: 40, keyframeInterval: 40)
        let new = try encode(frames: 40, keyframeInterval: 10)
        let (a, b, stream, got) = try rig()
        let oldFeed = try stream.attach(tap: a.pad)
        a.count()
        for frame in old[0..<15] { try a.push(frame) }
        try stream.attach(tap: b.pad)
        b.count()
        for frame in old[15..<25] { try a.push(frame) }
        try b.push(new[10])  // a keyframe, too early: frames 11 to 24 are delivered already
        for frame in old[25..<30] { try a.push(frame) }  // held
        XCTAssertEqual(got.all.count, 25, "the old feed's frames from 25 on are held")
        stream.detach(oldFeed)
        for frame in new[30..<40] { try b.push(frame) }

        let frames = got.all
        XCTAssertEqual(frames.compactMap(\.pts), (0..<40).map { ClockTime($0) * Self.interval },
                       "the held frames, then the new feed from its keyframe at 30")
        XCTAssertEqual(stream.statistics.handovers, 1)
    }
}
