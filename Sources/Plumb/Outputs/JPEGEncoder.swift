import Dispatch
import FoundationEssentials
import Glibc
import PlumbBase
import GStreamer
import PlumbMedia
import Synchronization

/// Encodes raw frames to JPEG with EXIF, one at a time and in the order given, on a
/// thread of its own: each frame goes through a small pipeline
/// `appsrc ! videoconvert ! jpegenc ! jifmux ! appsink`, whose `jifmux` writes the tags
/// as EXIF. A pipeline per photo keeps one photo's tags (GPS above all) out of the next.
/// Rectangles to mark (motion's boxes) are drawn by an `rsvgoverlay` before `jpegenc`.
/// The session's thread never waits for an encode.
final class JPEGEncoder: Sendable {
    struct Job: Sendable {
        var sample: Sample
        var quality: Int
        var tags: TagList
        /// The camera's own JPEG of the frame: only its tags are written (`jifmux`).
        var cameraJPEG: Buffer? = nil
        /// Rectangles drawn on the picture, normalised in the frame (not the upright picture).
        var marks: [NormalizedRect] = []
        var done: @Sendable (Result<Data, any Error>) -> Void
    }

    private struct Queue {
        var jobs: [Job] = []
        var stopping = false
    }

    /// What the worker thread shares with the encoder: the thread holds only this, so
    /// dropping the encoder stops the thread (after the jobs already queued).
    private final class Work: Sendable {
        let queue = Mutex(Queue())
        /// Counts queued jobs (plus one for stopping); the worker sleeps on it when idle.
        let ready = DispatchSemaphore(value: 0)
    }

    private let work = Work()
    /// Encode pipelines not yet finalized: 0 between photos, or something leaks.
    let livePipelines = LiveCount()

    init(name: String = "plumb.jpeg") {
        let work = self.work, live = self.livePipelines
        startThread(named: name) {
            while true {
                work.ready.wait()
                let next: Job? = work.queue.withLock { q in q.jobs.isEmpty ? nil : q.jobs.removeFirst() }
                guard let job = next else {
                    if work.queue.withLock({ $0.stopping }) { return }
                    continue
                }
                job.done(Result {
                    if let jpeg = job.cameraJPEG {
                        return try JPEGEncoder.tag(jpeg, caps: job.sample.caps, tags: job.tags, live: live)
                    }
                    return try JPEGEncoder.encode(job.sample, quality: job.quality, tags: job.tags, marks: job.marks,
                                                  live: live)
                })
            }
        }
    }

    deinit {
        work.queue.withLock { $0.stopping = true }
        work.ready.signal()
    }

    func submit(_ job: Job) {
        work.queue.withLock { $0.jobs.append(job) }
        work.ready.signal()
    }

    /// Whether a camera's JPEG is a file a viewer reads alone: MJPEG from many UVC cameras
    /// leaves out the Huffman tables (DHT), which only MJPEG decoders assume.
    static func isStandalone(_ jpeg: Buffer) -> Bool {
        let data = jpeg.data
        guard data.count > 4, data[data.startIndex] == 0xFF, data[data.startIndex + 1] == 0xD8,
              let segments = try? data.withUnsafeBytes({ try JPEGSegments($0) }) else { return false }
        return segments.segments.contains { $0.code == 0xC4 }
    }

    /// The camera's JPEG with the tags as EXIF (`appsrc ! jifmux ! appsink`): no decoding.
    static func tag(_ jpeg: Buffer, caps: Caps?, tags: TagList, live: LiveCount? = nil) throws -> Data {
        let pipeline = try Pipeline(name: "jpeg-tag")
        if let live {
            live.add(1)
            pipeline.onFinalize { live.add(-1) }
        }
        let src = try AppSrc(name: "camera-jpeg")
        try src.set("format", EnumNick("time"))
        try src.set("is-live", false)
        let size = caps?.structure(at: 0).flatMap { s in s.int("width").flatMap { w in s.int("height").map { (w, $0) } } }
        try src.set("caps", try Caps("image/jpeg" + (size.map { ",width=\($0.0),height=\($0.1)" } ?? "") + ",framerate=0/1"))
        let mux = try Element(factory: "jifmux", name: "exif")
        let sink = try AppSink(name: "jpeg")
        try sink.set("sync", false)
        try sink.set("async", false)
        try pipeline.add(src, mux, sink)
        try src.link(to: mux)
        try mux.link(to: sink)
        try tags.apply(to: mux)
        defer { try? pipeline.setState(.null) }
        try pipeline.setState(.playing)
        try src.push(jpeg)
        try src.endOfStream()
        guard let out = sink.pull(timeout: .seconds(10)), let buffer = out.buffer else {
            throw CaptureError.timedOut("tagging the camera's JPEG", .seconds(10))
        }
        return buffer.data
    }

    /// One frame to JPEG bytes, blocking the calling (encoder) thread.
    static func encode(_ sample: Sample, quality: Int, tags: TagList, marks: [NormalizedRect] = [],
                       live: LiveCount? = nil) throws -> Data {
        let pipeline = try Pipeline(name: "jpeg-encode")
        if let live {
            live.add(1)
            pipeline.onFinalize { live.add(-1) }
        }
        let src = try AppSrc(name: "frame")
        try src.set("format", EnumNick("time"))
        try src.set("is-live", false)
        let convert = try Element(factory: "videoconvert", name: "convert")
        let jpeg = try Element(factory: "jpegenc", name: "jpegenc")
        try jpeg.set("quality", quality)
        let mux = try Element(factory: "jifmux", name: "exif")
        let sink = try AppSink(name: "jpeg")
        try sink.set("sync", false)
        // No preroll wait: the state change must not block before the frame is pushed.
        try sink.set("async", false)
        try pipeline.add(src, convert, jpeg, mux, sink)
        try src.link(to: convert)
        if let size = sample.videoSize, !marks.isEmpty {
            // rsvgoverlay draws on BGRA: converted to it and back.
            let overlay = try Element(factory: "rsvgoverlay", name: "marks")
            try overlay.set("data", Self.svg(marking: marks, width: size.width, height: size.height))
            let back = try Element(factory: "videoconvert", name: "convert-back")
            try pipeline.add(overlay, back)
            try convert.link(to: overlay)
            try overlay.link(to: back)
            try back.link(to: jpeg)
        } else {
            try convert.link(to: jpeg)
        }
        try jpeg.link(to: mux)
        try mux.link(to: sink)
        try tags.apply(to: mux)
        defer { try? pipeline.setState(.null) }
        try pipeline.setState(.playing)
        try src.push(sample)
        try src.endOfStream()
        guard let out = sink.pull(timeout: .seconds(10)), let buffer = out.buffer else {
            throw CaptureError.timedOut("encoding a JPEG", .seconds(10))
        }
        return buffer.data
    }

    /// The colour marks are drawn in: pure green, rare in a scene and plain to see.
    static let markColor = "#00ff00"

    /// An SVG of the frame's size with each rectangle's outline, about a 120th of the
    /// picture's shorter side wide (4 pixels at 640x480), centred on its edge.
    static func svg(marking rects: [NormalizedRect], width: Int, height: Int) -> String {
        let stroke = max(2, min(width, height) / 120)
        let shapes = rects.map { r in
            let x = r.x * Double(width), y = r.y * Double(height)
            let w = r.width * Double(width), h = r.height * Double(height)
            return "<rect x=\"\(x)\" y=\"\(y)\" width=\"\(w)\" height=\"\(h)\" fill=\"none\" "
                + "stroke=\"\(markColor)\" stroke-width=\"\(stroke)\"/>"
        }
        return "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"\(width)\" height=\"\(height)\" "
            + "viewBox=\"0 0 \(width) \(height)\">" + shapes.joined() + "</svg>"
    }
}
