import FoundationEssentials
import Glibc
import GStreamer
import Synchronization

/// The JPEG frames an MJPEG camera sent, before they were decoded: the last few, kept by
/// reference (no copy) with their timestamps, so a still can be the camera's own JPEG for
/// the frame it was taken from — no decode and re-encode (`PhotoOutput`).
final class CameraJPEGTap: Sendable {
    private let frames = Mutex<[(pts: ClockTime, jpeg: Buffer)]>([])
    /// A photo's raw frame reaches its appsink a queue later than its JPEG passed here.
    static let kept = 8

    /// Streaming thread: watches what enters the decoder.
    func install(on decoder: Element) {
        _ = decoder.staticPad("sink")!.addProbe(.buffer) { [weak self] info in
            guard let self, let buffer = info.retainedBuffer, let pts = buffer.pts else { return .ok }
            self.frames.withLock { f in
                f.append((pts, buffer))
                if f.count > Self.kept { f.removeFirst() }
            }
            return .ok
        }
    }

    /// The session's zoom: a zoomed frame is not the camera's JPEG any more.
    private let zoom = Mutex<ZoomCrop?>(nil)

    func follow(_ crop: ZoomCrop) { zoom.withLock { $0 = crop } }

    /// The camera's JPEG of the frame stamped `pts`, when it is still kept and was not zoomed.
    func jpeg(at pts: ClockTime) -> Buffer? {
        if let crop = zoom.withLock({ $0 }), (crop.factor(at: pts) ?? crop.current.factor) != 1 { return nil }
        return frames.withLock { f in f.last { $0.pts == pts }?.jpeg }
    }

    func clear() { frames.withLock { $0.removeAll() } }
}
