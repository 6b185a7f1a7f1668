import Foundation
import PlumbService

/// `plumb-bench retention`: what one retention pass costs on a folder of N recordings, as a
/// box running for months has (10 s segments for a week are 60 000 files): the pass `plumb
/// serve` runs every 3 s with `max-bytes` or `max-age` set, when nothing is to be deleted,
/// and when a new file came and an old one must go.
enum RetentionBench {
    static let usage = "usage: plumb-bench retention [--files N] [--passes N]"

    static func main(_ arguments: [String]) -> Never {
        let options = BenchOptions(arguments, usage: usage, valued: ["--files", "--passes"])
        let count = options.int("--files", default: 50_000, positive: true)
        let passes = options.int("--passes", default: 30, positive: true)
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("plumb-bench-retention-\(getpid())")
        defer { try? FileManager.default.removeItem(at: dir) }
        do {
            try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
            // Empty files named as segments are, a minute apart in name and mtime: only the
            // listing is measured, not what deleting costs the file system.
            let folder = RecordingsFolder(dir.path), start = Date(timeIntervalSince1970: 1_790_000_000)
            for i in 0..<count {
                let date = start + Double(i) * 60
                try touch(folder.newFile(extension: "mp4", date: date), at: date)
            }
        } catch {
            fail("could not make \(count) files in \(dir.path): \(error)")
        }
        let retention = Retention(policy: RetentionPolicy(maxBytes: 1 << 40, maxAge: .seconds(3650 * 86_400)),
                                  folder: RecordingsFolder(dir.path), inUse: FilesInUse(),
                                  publish: { _ in }, log: { _ in })
        // As on a box, where the folder's last change is older than a pass: not just now.
        Thread.sleep(forTimeInterval: 4)
        retention.run(because: "warm-up")
        var idle: [Double] = []
        for _ in 0..<passes { idle.append(timed { retention.run(because: "the timer") }) }

        // A file older than max-age appears (as one copied in would) and goes in the next pass.
        var churn: [Double] = []
        for i in 0..<passes {
            let old = Date(timeIntervalSince1970: 1_000_000_000 + Double(i))
            do { try touch(dir.appendingPathComponent("old-\(i).jpg").path, at: old) } catch { fail("could not write in \(dir.path): \(error)") }
            var deleted = 0
            churn.append(timed { deleted = retention.run(because: "the timer").count })
            if deleted != 1 { fail("a pass deleted \(deleted) files, not the 1 older than max-age") }
        }
        print("retention pass on \(count) files (max-bytes and max-age set), \(passes) passes each:")
        print("  nothing to delete:             p50 \(fmt(percentile(idle, 50))) ms, p99 \(fmt(percentile(idle, 99))) ms")
        print("  one new file, one old deleted: p50 \(fmt(percentile(churn, 50))) ms, p99 \(fmt(percentile(churn, 99))) ms")
        print("  at one pass per \(Retention.interval): \(fmt(percentile(idle, 50) / 30)) % of a core")
        result("retention.files", Double(count))
        result("retention.pass_ms.p50", percentile(idle, 50))
        result("retention.pass_ms.p99", percentile(idle, 99))
        result("retention.churn_pass_ms.p50", percentile(churn, 50))
        exit(0)
    }

    static func timed(_ body: () -> Void) -> Double {
        let clock = ContinuousClock.now
        body()
        return milliseconds(ContinuousClock.now - clock)
    }

    static func touch(_ path: String, at date: Date) throws {
        guard FileManager.default.createFile(atPath: path, contents: nil) else { throw CocoaError(.fileWriteUnknown) }
        try FileManager.default.setAttributes([.modificationDate: date], ofItemAtPath: path)
    }
}
