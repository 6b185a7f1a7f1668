import Foundation
import PlumbTestSupport
import XCTest

/// `plumb record` and `plumb photo` from vivid (`Tests/Kernel/scenarios/11-vivid-record.sh`).
/// GStreamer's v4l2 buffer pool logged each buffer it dequeued from the driver (its sequence
/// number and timestamp): the file must hold every one of them from its first frame to its
/// last, in order, at the driver's times. Frames are judged against what the driver
/// delivered, never against the wall clock (under emulation vivid runs far below its rate).
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

    func testEveryFrameTheDriverDeliveredIsInTheFileInOrderAtItsTime() throws {
        let out = try KernelVM.shared.output(of: "vivid-record")
        let file = out.appendingPathComponent("record.mp4").path
        let buffers = Self.dequeued(try String(contentsOf: out.appendingPathComponent("dequeued.txt"), encoding: .utf8))
        let times = try IndependentReaders.ffprobeFrameTimes(file).sorted()
        XCTAssertGreaterThan(times.count, 3, "frames in the file")
        XCTAssertGreaterThanOrEqual(buffers.count, times.count, "buffers dequeued")
        let facts = try JSONSerialization.jsonObject(with: Data(contentsOf: out.appendingPathComponent("record.json"))) as? [String: Any]
        XCTAssertEqual(facts?["frames"] as? Int, times.count, "the facts count what the file holds")
        // Where the file's first frame is among the buffers: the run of buffers from there
        // must match the file frame for frame (offsets from the first within 2 ms).
        func matches(from k: Int) -> Bool {
            guard k + times.count <= buffers.count else { return false }
            return (0..<times.count).allSatisfy {
                abs((times[$0] - times[0]) - (buffers[k + $0].time - buffers[k].time)) < 0.002
            }
        }
        guard let k = (0..<buffers.count).first(where: matches) else {
            let gaps = zip(times, times.dropFirst()).map { String(format: "%.3f", $1 - $0) }
            let driver = zip(buffers, buffers.dropFirst()).map { String(format: "%d:%.3f", $1.sequence, $1.time - $0.time) }
            return XCTFail("the file's \(times.count) frames are no run of the \(buffers.count) buffers the driver delivered:\n"
                           + "file gaps \(gaps)\ndriver (sequence:gap) \(driver)")
        }
        let run = buffers[k..<(k + times.count)].map(\.sequence)
        print("record: \(times.count) frames = the driver's sequence \(run.first!)...\(run.last!) "
              + "(\(run.last! - run.first! + 1 - run.count) sequence numbers the driver skipped itself), \(buffers.count) buffers dequeued")
        XCTAssertEqual(run, run.sorted(), "in the driver's order")
    }

    func testAPhotoFromTheDriverIsAJPEGOfItsSize() throws {
        let out = try KernelVM.shared.output(of: "vivid-record")
        let tags = try exif(out.appendingPathComponent("photo.jpg"))
        XCTAssertEqual(tags["FileType"], "JPEG")
        XCTAssertEqual(tags["ImageWidth"], "320")
        XCTAssertEqual(tags["ImageHeight"], "180")
    }
}
