import Foundation
import PlumbTestSupport
import XCTest

/// `plumb record` and `plumb photo` from vivid (`Tests/Kernel/scenarios/11-vivid-record.sh`).
/// GStreamer's v4l2 buffer pool logged each buffer it dequeued from the driver (its sequence
/// number and timestamp). Frames are judged against what the driver delivered, never
/// against the wall clock (under emulation vivid runs far below its rate).
final class KernelVividRecordTests: XCTestCase {
    /// (sequence, seconds) of each buffer dequeued, from lines such as
    /// "dequeued buffer 0x… seq:12 (ix=0), mem … ts 0:00:12.345678901".
    static func dequeued(_ text: String) -> [(sequence: Int, time: Double)] {
        text.split(separator: "\n").compactMap { line in
            guard let seqRange = line.range(of: "seq:"), let tsRange = line.range(of: " ts ", options: .backwards) else { return nil }
            guard let sequence = Int(line[seqRange.upperBound...].prefix { $0.isNumber }) else { return nil }
            let parts = line[tsRange.upperBound...].split(separator: ":")
            guard parts.count == 3, let h = Double(parts[0]), let m = Double(parts[1]), let s = Double(parts[2]) else { return nil }
            return (sequence, h * 3600 + m * 60 + s)
        }
    }

    /// The file holds frames of the driver in order (times rising), no more than it
    /// delivered, and the facts count what the file holds (its times against the driver's:
    /// `testTheFilesFrameTimesAreTheDriversTimestamps`).
    func testTheFileHoldsTheDriversFramesInOrderAndTheFactsCountThem() throws {
        let out = try KernelVM.shared.output(of: "vivid-record")
        let file = out.appendingPathComponent("record.mp4").path
        let buffers = Self.dequeued(try String(contentsOf: out.appendingPathComponent("dequeued.txt"), encoding: .utf8))
        let times = try IndependentReaders.ffprobeFrameTimes(file)
        XCTAssertGreaterThan(times.count, 3, "frames in the file")
        XCTAssertEqual(times, times.sorted(), "in order")
        XCTAssertEqual(Set(times).count, times.count, "no frame twice")
        XCTAssertLessThanOrEqual(times.count, buffers.count, "no more frames than the driver delivered")
        let sequences = buffers.map(\.sequence)
        XCTAssertEqual(sequences, sequences.sorted(), "the driver's sequence numbers as dequeued")
        let facts = try JSONSerialization.jsonObject(with: Data(contentsOf: out.appendingPathComponent("record.json"))) as? [String: Any]
        // ffprobe's decoded count (its frame-time listing may leave out a first line that
        // carries side data after the time).
        let frames = try IndependentReaders.ffprobeFrameCount(file)
        XCTAssertEqual(facts?["frames"] as? Int, frames, "the facts count what the file holds")
        XCTAssertLessThanOrEqual(frames, buffers.count, "no more frames than the driver delivered")
        print("record: \(frames) frames in the file; the driver delivered \(buffers.count) buffers, "
              + "sequence \(sequences.first ?? -1)...\(sequences.last ?? -1)")
    }

    /// Every packet's presentation time in the file, sorted (ffprobe's packet listing: one
    /// line per frame, with no side data to trip over).
    static func packetTimes(_ path: String) throws -> [Double] {
        try runTool("ffprobe", ["-v", "error", "-select_streams", "v:0", "-show_entries", "packet=pts_time", "-of", "csv=p=0", path])
            .split(separator: "\n").compactMap { Double($0.split(separator: ",").first ?? "") }.sorted()
    }

    /// Where the file's frames sit among the driver's buffers: the run of `times.count`
    /// consecutive dequeued buffers whose timestamps, relative to the run's first, are
    /// nearest the file's times relative to its first (the buffers dequeued before the
    /// recording started are not in it). The index of the run's first buffer and the
    /// largest difference, in seconds.
    static func align(_ times: [Double], with buffers: [(sequence: Int, time: Double)]) -> (start: Int, error: Double)? {
        guard !times.isEmpty, buffers.count >= times.count else { return nil }
        var best: (Int, Double)?
        for k in 0...(buffers.count - times.count) {
            var worst = 0.0
            for i in times.indices {
                worst = max(worst, abs((times[i] - times[0]) - (buffers[k + i].time - buffers[k].time)))
                if let best, worst >= best.1 { break }
            }
            if best == nil || worst < best!.1 { best = (k, worst) }
        }
        return best.map { (start: $0.0, error: $0.1) }
    }

    /// The frames missing between the file's frames by their times: a step of k frame
    /// intervals is k-1 frames missing.
    static func gaps(_ times: [Double], fps: Double) -> Int {
        zip(times, times.dropFirst()).reduce(0) { $0 + max(0, Int((($1.1 - $1.0) * fps).rounded()) - 1) }
    }

    /// The file's frame times are the driver's timestamps (v4l2's monotonic timestamps as
    /// the buffer pool logged them), frame for frame: v4l2src stamps each buffer with the
    /// pipeline clock's time less the driver's age of the frame (now - its v4l2 timestamp),
    /// and the pipeline clock is the monotonic clock, so the steps between frames are the
    /// driver's. What remains is the muxer's time base (mp4mux: 100 units per frame at
    /// 15 fps, 0.67 ms) and a clock read apart from the driver's stamp; 5 ms allows both.
    func testTheFilesFrameTimesAreTheDriversTimestamps() throws {
        let out = try KernelVM.shared.output(of: "vivid-record")
        let buffers = Self.dequeued(try String(contentsOf: out.appendingPathComponent("dequeued.txt"), encoding: .utf8))
        let times = try Self.packetTimes(out.appendingPathComponent("record.mp4").path)
        let (start, error) = try XCTUnwrap(Self.align(times, with: buffers), "\(times.count) frames, \(buffers.count) buffers")
        let run = Array(buffers[start..<(start + times.count)])
        XCTAssertLessThan(error, 0.005, "the file's times vs the driver's timestamps")
        let sequences = run.map(\.sequence)
        print("record: the file's \(times.count) frames are the driver's sequence \(sequences.first!)...\(sequences.last!), "
              + "largest time difference \(String(format: "%.2f", error * 1000)) ms")
    }

    /// vivid dropping 30 % of its buffers (`percentage_of_dropped_buffers`): the sequence
    /// numbers it skipped are counted in the facts (frames_lost_by_camera) and said in a
    /// warning, the file keeps real time (its times step over the missing frames, and its
    /// length is the driver's span, not its frame count over the rate).
    func testDroppedBuffersAreCountedAndTheFileKeepsRealTime() throws {
        let out = try KernelVM.shared.output(of: "vivid-record")
        let file = out.appendingPathComponent("dropped.mp4").path
        let buffers = Self.dequeued(try String(contentsOf: out.appendingPathComponent("dropped-dequeued.txt"), encoding: .utf8))
        let facts = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(contentsOf: out.appendingPathComponent("dropped.json")))
                                  as? [String: Any])
        let times = try Self.packetTimes(file)
        let (start, error) = try XCTUnwrap(Self.align(times, with: buffers), "\(times.count) frames, \(buffers.count) buffers")
        let run = Array(buffers[start..<(start + times.count)])
        let skipped = run.last!.sequence - run.first!.sequence + 1 - run.count
        XCTAssertGreaterThan(skipped, 3, "the driver skipped sequence numbers within the file's frames: \(run.map(\.sequence))")
        XCTAssertLessThan(error, 0.005, "the file's times vs the driver's timestamps")
        XCTAssertEqual(facts["frames"] as? Int, times.count, "the facts count what the file holds")
        // The facts' span may run on to the end of the length asked for (a last frame dropped there).
        let lost = facts["frames_lost_by_camera"] as? Int ?? -1
        XCTAssertTrue((skipped...(skipped + 2)).contains(lost), "frames_lost_by_camera \(lost), the driver skipped \(skipped)")
        XCTAssertEqual(facts["frames_lost"] as? Int, lost + (facts["frames_lost_by_encoder"] as? Int ?? 0))
        XCTAssertEqual(Self.gaps(times, fps: 15), skipped, "the file's times step over the missing frames")
        let duration = try XCTUnwrap(try IndependentReaders.ffprobeDuration(file))
        let span = Double(run.last!.sequence - run.first!.sequence + 1) / 15
        XCTAssertEqual(duration, span, accuracy: 0.1, "ffprobe's duration vs the driver's span of sequence numbers")
        XCTAssertGreaterThan(duration, Double(times.count) / 15 + 0.2, "longer than its frames at the rate: real time kept")
        let warning = try String(contentsOf: out.appendingPathComponent("dropped.err"), encoding: .utf8)
        XCTAssertTrue(warning.contains("warning: lost \(facts["frames_lost"] ?? -1) of ") && warning.contains("the camera dropped \(lost)"),
                      warning)
        print("dropped: \(times.count) frames in the file over sequence \(run.first!.sequence)...\(run.last!.sequence) "
              + "(\(skipped) skipped by the driver); facts frames_lost_by_camera \(lost); ffprobe duration \(duration) s")
    }

    /// `plumb scan` on vivid's own picture (no code in it): ends by itself after --seconds,
    /// having scanned the driver's frames, and says nothing was found (exit 0 without --once).
    func testScanOnTheDriverEndsSayingNothingWasFound() throws {
        let out = try KernelVM.shared.output(of: "vivid-record")
        func read(_ name: String) throws -> String {
            try String(contentsOf: out.appendingPathComponent(name), encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)
        }
        let err = try read("scan.err")
        XCTAssertEqual(try read("scan.status"), "0", err)
        XCTAssertEqual(try read("scan.out"), "", "no detection")
        XCTAssertTrue(err.contains("plumb scan: scanning /dev/video0 for "), err)
        let line = try XCTUnwrap(err.split(separator: "\n").first { $0.contains("no code found within 3 s (") }, err)
        let scanned = Int(line.split(separator: "(").last?.prefix { $0.isNumber } ?? "") ?? 0
        XCTAssertGreaterThan(scanned, 0, "frames of the driver scanned: \(line)")
        XCTAssertLessThan(Double(try read("scan.seconds")) ?? 999, 60, "ended by itself")
    }

    func testAPhotoFromTheDriverIsAJPEGOfItsSize() throws {
        let out = try KernelVM.shared.output(of: "vivid-record")
        let tags = try exif(out.appendingPathComponent("photo.jpg"))
        XCTAssertEqual(tags["FileType"], "JPEG")
        XCTAssertEqual(tags["ImageWidth"], "320")
        XCTAssertEqual(tags["ImageHeight"], "180")
    }
}
