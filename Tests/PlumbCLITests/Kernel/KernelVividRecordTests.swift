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

    /// Which of the driver's buffers the file's frames are: for each candidate first buffer,
    /// every file time (relative to the file's first) is matched to the dequeued buffer
    /// nearest in time (relative to that candidate); the candidate with the smallest worst
    /// difference wins. Buffers dequeued before the recording began, or dropped before the
    /// file (a slow encoder), are simply not matched. The matched buffers, in file order,
    /// and that worst difference in seconds.
    static func align(_ times: [Double], with buffers: [(sequence: Int, time: Double)])
        -> (matched: [(sequence: Int, time: Double)], error: Double)? {
        guard let first = times.first, !buffers.isEmpty else { return nil }
        let sorted = buffers.sorted { $0.time < $1.time }
        func nearest(_ t: Double) -> Int {
            var lo = 0, hi = sorted.count - 1
            while lo < hi {
                let mid = (lo + hi) / 2
                if sorted[mid].time < t { lo = mid + 1 } else { hi = mid }
            }
            return lo > 0 && abs(sorted[lo - 1].time - t) <= abs(sorted[lo].time - t) ? lo - 1 : lo
        }
        var best: (matched: [(sequence: Int, time: Double)], error: Double)?
        for candidate in sorted {
            let offset = candidate.time - first
            var worst = 0.0
            var matched: [(sequence: Int, time: Double)] = []
            for t in times {
                let b = sorted[nearest(t + offset)]
                worst = max(worst, abs(b.time - t - offset))
                matched.append(b)
                if let best, worst >= best.error { break }
            }
            if matched.count == times.count, best == nil || worst < best!.error { best = (matched, worst) }
        }
        return best
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
        let (run, error) = try XCTUnwrap(Self.align(times, with: buffers), "\(times.count) frames, \(buffers.count) buffers")
        XCTAssertLessThan(error, 0.005, "the file's times vs the driver's timestamps")
        let sequences = run.map(\.sequence)
        XCTAssertEqual(sequences, sequences.sorted(), "the driver's frames in order")
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
        let (run, error) = try XCTUnwrap(Self.align(times, with: buffers), "\(times.count) frames, \(buffers.count) buffers")
        XCTAssertLessThan(error, 0.005, "the file's times vs the driver's timestamps")
        // The sequence numbers the driver skipped between the file's first and last frame
        // (a frame it gave but the file lacks, behind a slow encoder, is no skip).
        let delivered = Set(buffers.filter { $0.time >= run.first!.time && $0.time <= run.last!.time }.map(\.sequence))
        let skipped = run.last!.sequence - run.first!.sequence + 1 - delivered.count
        XCTAssertGreaterThan(skipped, 3, "the driver skipped sequence numbers within the file's frames: \(run.map(\.sequence))")
        XCTAssertEqual(facts["frames"] as? Int, times.count, "the facts count what the file holds")
        // The facts' span may run on to the end of the length asked for (a last frame dropped there).
        let lost = facts["frames_lost_by_camera"] as? Int ?? -1
        XCTAssertTrue((skipped...(skipped + 2)).contains(lost), "frames_lost_by_camera \(lost), the driver skipped \(skipped)")
        let byEncoder = facts["frames_lost_by_encoder"] as? Int ?? -1
        XCTAssertEqual(facts["frames_lost"] as? Int, lost + byEncoder)
        // Every missing frame, the driver's and the encoder's, is a step over a frame slot in
        // the file's times (vivid's own timestamps jitter under emulation: one slot either way).
        let missing = run.last!.sequence - run.first!.sequence + 1 - times.count
        XCTAssertEqual(Double(Self.gaps(times, fps: 15)), Double(missing), accuracy: 1, "the file's times step over the missing frames")
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
