import XCTest
import GStreamer
@testable import Plumb

/// The pre-record ring with synthetic frames: 10 fps, a keyframe every `gop` frames.
final class PreRecordRingTests: XCTestCase {
    typealias Ring = PreRecordRing<Int>

    static let frame = ClockTime.second / 10

    /// Frame `n` at n × 100 ms; keyframes every `gop`.
    func feed(_ ring: inout Ring, frames: Range<Int>, gop: Int = 10, bytes: (Int) -> Int = { _ in 1000 }) {
        for n in frames {
            ring.append(.init(payload: n, time: ClockTime(n) * Self.frame, bytes: bytes(n), isKeyframe: n % gop == 0))
        }
    }

    func testItStartsAtAKeyframeAndHoldsWholeGOPs() {
        var ring = Ring(seconds: 2, maxBytes: 1 << 30)
        feed(&ring, frames: 5..<47)  // starts mid-GOP: 5...9 are refused
        XCTAssertEqual(ring.refusedFrames, 5)
        XCTAssertTrue(ring.frames.first!.isKeyframe)
        XCTAssertEqual(ring.frames.first!.payload % 10, 0, "the oldest frame is a GOP's first")
        XCTAssertEqual(ring.bytes, ring.frames.count * 1000)
    }

    func testSecondsBoundKeepsTheKeyframeAtOrBeforeNowMinusSeconds() {
        var ring = Ring(seconds: 2, maxBytes: 1 << 30)
        for end in 1...200 {
            feed(&ring, frames: (end - 1)..<end)
            let newest = ring.frames.last!.time
            let oldest = ring.frames.first!.time
            if newest >= 2 * ClockTime.second {
                // Reaches back 2 s, and no more than one GOP (1 s) further.
                XCTAssertLessThanOrEqual(oldest, newest - 2 * ClockTime.second, "frame \(end - 1)")
                XCTAssertGreaterThan(oldest + 3 * ClockTime.second, newest, "frame \(end - 1)")
            }
            XCTAssertTrue(ring.frames.first!.isKeyframe)
        }
        XCTAssertLessThanOrEqual(ring.span, 3.0)
        XCTAssertGreaterThanOrEqual(ring.span, 2.0)
        XCTAssertGreaterThan(ring.droppedGOPs, 10)
    }

    func testFramesFromATimeStartAtTheKeyframeAtOrBeforeIt() {
        var ring = Ring(seconds: 5, maxBytes: 1 << 30)
        feed(&ring, frames: 0..<60)  // 0 ... 5.9 s, keyframes at 0, 1, ..., 5 s
        XCTAssertEqual(ring.frames(from: 2 * ClockTime.second + Self.frame * 5).first?.payload, 20)
        XCTAssertEqual(ring.frames(from: 3 * ClockTime.second).first?.payload, 30, "a keyframe at the time itself")
        XCTAssertEqual(ring.frames(from: 0).first?.payload, 0)
        XCTAssertEqual(ring.frames(from: 100 * ClockTime.second).first?.payload, 50, "the newest GOP at the latest")
        XCTAssertEqual(ring.frames(from: 3 * ClockTime.second).last?.payload, 59, "up to the newest frame")
    }

    func testByteBoundDropsOldestGOPsAndNeverHoldsMore() {
        var ring = Ring(seconds: 60, maxBytes: 25_000)
        // Keyframes of 5000 bytes, the others 1000: one GOP is 14000 bytes.
        for end in 1...300 {
            feed(&ring, frames: (end - 1)..<end, bytes: { $0 % 10 == 0 ? 5000 : 1000 })
            XCTAssertLessThanOrEqual(ring.bytes, 25_000, "frame \(end - 1)")
            XCTAssertEqual(ring.bytes, ring.frames.reduce(0) { $0 + $1.bytes })
            if !ring.frames.isEmpty { XCTAssertTrue(ring.frames.first!.isKeyframe) }
        }
        // Far less than the 60 s asked for: the bytes decide.
        XCTAssertLessThan(ring.span, 2.0)
        XCTAssertGreaterThan(ring.droppedGOPs, 20)
    }

    func testAGOPLargerThanTheBoundEmptiesTheRingUntilTheNextKeyframe() {
        var ring = Ring(seconds: 5, maxBytes: 4000)
        feed(&ring, frames: 0..<3)  // 3000 bytes
        XCTAssertEqual(ring.frames.count, 3)
        feed(&ring, frames: 3..<5)  // 5000 > 4000: the only GOP cannot stay
        XCTAssertTrue(ring.frames.isEmpty)
        XCTAssertEqual(ring.bytes, 0)
        feed(&ring, frames: 5..<10)
        XCTAssertTrue(ring.frames.isEmpty, "no frame without its keyframe")
        feed(&ring, frames: 10..<12)
        XCTAssertEqual(ring.frames.map(\.payload), [10, 11])
    }

    func testZeroSecondsHoldsOnlyTheCurrentGOP() {
        var ring = Ring(seconds: 0, maxBytes: 1 << 30)
        feed(&ring, frames: 0..<35)
        XCTAssertEqual(ring.frames.map(\.payload), Array(30..<35))
    }

    /// The engine's ring holds GStreamer buffers: references, released when dropped.
    func testRealBuffersAreReleasedWhenDropped() throws {
        try Gst.initialize()
        var ring = PreRecordRing<Buffer>(seconds: 1, maxBytes: 1 << 30)
        weak var firstBuffer: Buffer?
        do {
            let sample = try makeBuffers(count: 40)
            firstBuffer = sample.first
            for (n, buffer) in sample.enumerated() {
                ring.append(.init(payload: buffer, time: ClockTime(n) * Self.frame, bytes: buffer.size, isKeyframe: n % 10 == 0))
            }
        }
        XCTAssertNil(firstBuffer, "a dropped GOP's buffers are released")
        XCTAssertEqual(ring.frames.count, 20)
        XCTAssertEqual(ring.bytes, ring.frames.reduce(0) { $0 + $1.payload.size })
    }

    /// `count` buffers from a real pipeline (tiny raw frames).
    private func makeBuffers(count: Int) throws -> [Buffer] {
        let pipeline = try Pipeline.parse("videotestsrc num-buffers=\(count) ! video/x-raw,width=16,height=16 ! appsink name=out sync=false")
        let sink = try XCTUnwrap(pipeline.element(named: "out").flatMap(AppSink.init))
        try pipeline.setState(.playing)
        defer { _ = try? pipeline.setState(.null) }
        var buffers: [Buffer] = []
        while buffers.count < count, let sample = sink.pull(timeout: .seconds(5)), let buffer = sample.buffer {
            buffers.append(buffer)
        }
        XCTAssertEqual(buffers.count, count)
        return buffers
    }
}
