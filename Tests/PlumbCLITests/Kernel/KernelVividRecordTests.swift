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
    /// delivered, and the facts count what the file holds. Not checked yet: that the file's
    /// times are the driver's — under emulation they differ by up to ~60 ms per frame from
    /// the driver's timestamps (see the note in the README's kernel table).
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

    func testAPhotoFromTheDriverIsAJPEGOfItsSize() throws {
        let out = try KernelVM.shared.output(of: "vivid-record")
        let tags = try exif(out.appendingPathComponent("photo.jpg"))
        XCTAssertEqual(tags["FileType"], "JPEG")
        XCTAssertEqual(tags["ImageWidth"], "320")
        XCTAssertEqual(tags["ImageHeight"], "180")
    }
}
