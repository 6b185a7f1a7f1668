import FoundationEssentials
import Glibc
import GStreamer
import PlumbRotation
import Synchronization
import ZBar

/// Barcode and QR scanning as a capture output (AVFoundation's `AVCaptureMetadataOutput`):
///
/// ```
/// tee -> head queue (leaky, 2 frames) -> videorate drop-only -> videoscale -> videoconvert
///     -> video/x-raw,format=GRAY8,width=W,height=H,framerate=RATE -> appsink -> zbar
/// ```
///
/// The branch drops frames to `ScanOptions.rate` and scales them to `width` before the
/// decoder sees them, and its leaky head queue drops more when the decoder falls behind,
/// so scanning never slows another branch. The region of interest (upright coordinates) is
/// turned into the frame's own with the capture angle and cut out before decoding; the
/// bounds found are turned back, so they are those of the picture a viewer sees.
/// One detection per code while it stays in view (`ScanDeduplicator`).
///
/// Attach it once; `detections` ends when it is detached.
public final class ScanOutput: CaptureOutput {
    public let kind = "scan"
    public var queueLimit: Int { 2 }

    public let options: ScanOptions
    /// Each new detection, in order; ends when the output is detached.
    public let detections: AsyncStream<ScanDetection>
    private let continuation: AsyncStream<ScanDetection>.Continuation
    private let onDetection: (@Sendable (ScanDetection) -> Void)?

    private struct State {
        var angle = RotationAngle.degrees0
        var dedup: ScanDeduplicator
        var scanner: ImageScanner?
        var framesScanned = 0
    }
    private let state: Mutex<State>

    /// - Parameter onDetection: called on the branch's streaming thread with each new
    ///   detection (besides `detections`); it should only hand off.
    /// - Throws: `CaptureError.invalidArgument` for a rate or width out of range.
    public init(options: ScanOptions = ScanOptions(), onDetection: (@Sendable (ScanDetection) -> Void)? = nil) throws {
        guard (1...60).contains(options.rate) else {
            throw CaptureError.invalidArgument("scan rate \(options.rate) must be 1 to 60 frames per second")
        }
        guard (64...4096).contains(options.width) else {
            throw CaptureError.invalidArgument("scan width \(options.width) must be 64 to 4096 pixels")
        }
        guard !options.types.isEmpty else { throw CaptureError.invalidArgument("no barcode type to scan for") }
        self.options = options
        self.onDetection = onDetection
        (detections, continuation) = AsyncStream.makeStream(of: ScanDetection.self, bufferingPolicy: .bufferingNewest(1024))
        state = Mutex(State(dedup: ScanDeduplicator(forgetAfter: options.forgetAfter)))
    }

    deinit {
        continuation.finish()
    }

    /// Frames handed to the decoder so far (after the rate and the leaky queue dropped theirs).
    public var framesScanned: Int { state.withLock { $0.framesScanned } }

    public func build(in bin: Bin, format: CaptureFormat, camera: CameraSource) throws -> BranchEnds {
        // Width a multiple of 4 (GRAY8 rows are padded to 4 bytes), height in proportion.
        let width = max(16, min(options.width, format.size.width) / 4 * 4)
        let height = max(2, Int((Double(width) * Double(format.size.height) / Double(format.size.width)).rounded()) / 2 * 2)
        let rate = try Element(factory: "videorate", name: "scan-rate")
        try rate.set("drop-only", true)
        let scale = try Element(factory: "videoscale", name: "scan-scale")
        let convert = try Element(factory: "videoconvert", name: "scan-convert")
        let caps = try Element(factory: "capsfilter", name: "scan-caps")
        try caps.set("caps", try Caps("video/x-raw,format=GRAY8,width=\(width),height=\(height),framerate=\(options.rate)/1"))
        let sink = try AppSink.newestFrame(name: "scan-frames") { [weak self] sample in self?.scan(sample) }
        try bin.add(rate, scale, convert, caps, sink)
        try rate.link(to: scale)
        try scale.link(to: convert)
        try convert.link(to: caps)
        try caps.link(to: sink)
        try state.withLock { s in
            if s.scanner == nil {
                guard let scanner = ImageScanner() else { throw CaptureError.invalidArgument("zbar could not make a scanner") }
                // Every symbology off, then the chosen ones on; QR data as its raw bytes.
                scanner.set(.enable, for: .all, to: 0)
                for type in options.types { scanner.set(.enable, for: type.zbarType, to: 1) }
                scanner.set(.binary, for: .qr, to: 1)
                s.scanner = scanner
            }
        }
        return BranchEnds(entry: rate, sink: sink)
    }

    public func apply(rotation: RotationAngle) {
        state.withLock { $0.angle = rotation }
    }

    public func didDetach(error: (any Error)?) {
        continuation.finish()
    }

    /// One frame, on the branch's streaming thread: cut out the region, decode, report what is new.
    private func scan(_ sample: Sample) {
        guard let (width, height) = sample.videoSize, let buffer = sample.buffer else { return }
        let pixels = buffer.data
        let stride = pixels.count / max(height, 1)
        guard stride >= width else { return }
        let time = buffer.pts ?? 0
        state.withLock { s in
            guard let scanner = s.scanner else { return }
            s.framesScanned += 1
            let angle = s.angle
            // The region in the frame's own coordinates: upright turned back by the capture angle.
            let r = options.region.turned(clockwise: angle.inverse)
            let x0 = max(0, min(width - 1, Int((r.x * Double(width)).rounded(.down))))
            let y0 = max(0, min(height - 1, Int((r.y * Double(height)).rounded(.down))))
            let cw = max(1, min(width - x0, Int((r.width * Double(width)).rounded(.up))))
            let ch = max(1, min(height - y0, Int((r.height * Double(height)).rounded(.up))))
            var crop = [UInt8](repeating: 0, count: cw * ch)
            pixels.withUnsafeBytes { src in
                crop.withUnsafeMutableBytes { dst in
                    for row in 0..<ch {
                        let from = src.baseAddress! + (y0 + row) * stride + x0
                        (dst.baseAddress! + row * cw).copyMemory(from: from, byteCount: cw)
                    }
                }
            }
            var found: [(ScanDeduplicator.Key, Int, NormalizedRect)] = []
            let symbols = crop.withUnsafeBytes { scanner.scan(gray: $0, width: cw, height: ch) }
            for symbol in symbols {
                guard let type = Symbology(zbarType: symbol.type), options.types.contains(type) else { continue }
                let points = symbol.points.map { p in
                    (Double(x0 + p.x) / Double(width), Double(y0 + p.y) / Double(height))
                }
                let bounds = NormalizedRect.bounding(points).turned(clockwise: angle)
                found.append((ScanDeduplicator.Key(symbology: type, data: Data(symbol.data)), symbol.quality, bounds))
            }
            let fresh = Set(s.dedup.newCodes(found.map(\.0), at: time))
            var reported = Set<ScanDeduplicator.Key>()
            for (key, quality, bounds) in found where fresh.contains(key) && !reported.contains(key) {
                reported.insert(key)
                let detection = ScanDetection(symbology: key.symbology, data: key.data, quality: quality, bounds: bounds,
                                              frameTime: buffer.pts, date: Date())
                continuation.yield(detection)
                onDetection?(detection)
            }
        }
    }
}
