import FoundationEssentials
import Glibc
import GStreamer

/// One way a camera can deliver frames: an encoding at one size and one rate.
public struct CameraMode: Sendable, Hashable, CustomStringConvertible {
    public enum Encoding: Sendable, Hashable {
        /// Raw video in a GStreamer format ("YUY2", "NV12"); converted, never decoded.
        case raw(String)
        /// Motion JPEG; decoded with `jpegdec`.
        case mjpeg
    }

    public var encoding: Encoding
    public var size: VideoSize
    public var rate: FrameRate

    public init(encoding: Encoding, size: VideoSize, rate: FrameRate) {
        self.encoding = encoding
        self.size = size
        self.rate = rate
    }

    /// The fixed caps to ask the camera for.
    public var caps: String {
        switch encoding {
        case .raw(let format):
            return "video/x-raw,format=\(format),width=\(size.width),height=\(size.height),framerate=\(rate)"
        case .mjpeg:
            return "image/jpeg,width=\(size.width),height=\(size.height),framerate=\(rate)"
        }
    }

    /// "YUY2" or "MJPG", as facts and logs name it.
    public var encodingName: String {
        if case .raw(let f) = encoding { return f } else { return "MJPG" }
    }

    public var description: String { "\(encodingName) \(size)@\(rate)" }

    public var isMJPEG: Bool { encoding == .mjpeg }
}
