import Foundation
import GStreamer
import Plumb

/// `plumb-bench motion`: what motion detection costs per analysed frame, as % of one core at
/// `--rate` analysis frames per second, for camera frames of each `--size`.
///
/// The work `MotionOutput`'s branch does for each frame it analyses — scaling the camera's
/// frame to 160 pixels wide, converting it to GRAY8, copying it out of the appsink, and
/// `MotionDetector.analyze` — is run on `--frames` frames of the test pattern's moving ball,
/// as fast as the machine goes (not live). CPU time (getrusage, all threads) is compared
/// with the same pipeline without the branch (source straight to the appsink): the difference
/// per frame, times the rate, is the cost. CPU time rather than wall time, and the median of
/// `--rounds` alternated rounds, keep other processes on a busy machine out of the number.
/// Frames the branch's `videorate` drops (25 of 30 at 5 of 30 fps) cost a buffer push each
/// and are not counted. The detector alone (thread CPU time around `analyze`) is printed beside it.
enum MotionBench {
    static let usage = "usage: plumb-bench motion [--size WxH]... [--rate N] [--frames N] [--rounds N]"

    static func main(_ arguments: [String]) -> Never {
        // --size may be given more than once: each is measured.
        var sizes: [VideoSize] = []
        var rest: [String] = []
        var i = 0
        while i < arguments.count {
            if arguments[i] == "--size", i + 1 < arguments.count {
                guard let size = VideoSize(parsing: arguments[i + 1]) else { fail("--size \(arguments[i + 1]): give WxH\n\(usage)", code: 2) }
                sizes.append(size)
                i += 2
            } else {
                rest.append(arguments[i])
                i += 1
            }
        }
        let options = BenchOptions(rest, usage: usage, valued: ["--rate", "--frames", "--rounds"])
        let rate = options.int("--rate", default: 5, positive: true)
        let frames = options.int("--frames", default: 300, positive: true)
        let rounds = options.int("--rounds", default: 5, positive: true)
        if sizes.isEmpty { sizes = [VideoSize(width: 640, height: 480), VideoSize(width: 1280, height: 720)] }
        do {
            try Gst.initialize()
            print("motion detection per analysed frame, test pattern's moving ball, \(frames) frames x \(rounds) rounds,"
                  + " at \(rate) analysis frames per second (getrusage, % of one core):")
            for size in sizes {
                var branch: [Double] = [], detector: [Double] = []
                for _ in 0..<rounds {
                    let bare = try run(size, frames: frames, motion: false)
                    let with = try run(size, frames: frames, motion: true)
                    branch.append((with.process - bare.process) / Double(frames))
                    detector.append(with.detector / Double(frames))
                }
                let cost = max(0, median(branch)) * Double(rate) * 100
                let alone = median(detector) * Double(rate) * 100
                print("  \(size): \(String(format: "%.3f", cost)) % (\(String(format: "%.0f", median(branch) * 1e6)) µs a frame:"
                      + " scale, convert, detector), the detector alone \(String(format: "%.3f", alone)) %")
                result("motion.cpu_pct.\(size)", cost)
                result("motion.detector_cpu_pct.\(size)", alone)
            }
        } catch {
            fail("\(error)", code: 1)
        }
        exit(0)
    }

    /// One pipeline run to its end: the process's CPU seconds, and the pulling thread's CPU
    /// seconds spent in `analyze`.
    static func run(_ size: VideoSize, frames: Int, motion: Bool) throws -> (process: Double, detector: Double) {
        let source = "videotestsrc pattern=ball is-live=false num-buffers=\(frames) "
            + "! video/x-raw,format=I420,width=\(size.width),height=\(size.height),framerate=30/1"
        // As MotionOutput.build: 160 wide, the height in proportion and even.
        let height = max(2, Int((160 * Double(size.height) / Double(size.width)).rounded()) / 2 * 2)
        let branch = motion ? " ! videoscale ! videoconvert ! video/x-raw,format=GRAY8,width=160,height=\(height)" : ""
        let pipeline = try Pipeline.parse(source + branch + " ! appsink name=frames sync=false max-buffers=2 enable-last-sample=false")
        guard let element = pipeline.element(named: "frames"), let sink = AppSink(element) else { fail("no appsink") }
        var detector = MotionDetector(options: MotionOptions())
        var analysing = 0.0
        let before = cpuSeconds()
        try pipeline.setState(.playing)
        var time = 0.0
        while let sample = sink.pull(timeout: .seconds(30)) {
            guard motion, let (width, rows) = sample.videoSize, let buffer = sample.buffer else { continue }
            let pixels = buffer.data
            let start = threadCPUSeconds()
            time += 0.2
            _ = pixels.withUnsafeBytes {
                detector.analyze($0, width: width, height: rows, stride: pixels.count / rows, time: time)
            }
            analysing += threadCPUSeconds() - start
        }
        let used = cpuSeconds() - before
        try pipeline.setState(.null)
        guard sink.isEOS else { fail("the \(size) pipeline stopped before its end") }
        return (used, analysing)
    }

    static func threadCPUSeconds() -> Double {
        var t = timespec()
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t)
        return Double(t.tv_sec) + Double(t.tv_nsec) / 1e9
    }
}
