import FoundationEssentials
import Glibc
import GStreamer

/// Which element decodes an MJPEG camera's frames: the board's V4L2 JPEG decoder
/// (`v4l2jpegdec`, e.g. the Raspberry Pi's) when it is there and its device node exists,
/// else `jpegdec` on the CPU.
public enum JPEGDecoderChoice {
    public static let candidates = ["v4l2jpegdec", "jpegdec"]

    /// The decoder to use, and for each better one passed over, why ("NAME: why").
    public static func choose(installed: (String) -> Bool = { Gst.hasElement($0) }) -> (decoder: String, passedOver: [String]) {
        var passedOver: [String] = []
        for name in candidates.dropLast() {
            guard installed(name) else {
                passedOver.append("\(name): element missing")
                continue
            }
            if let device = EncoderProbe.devicePath(of: name), !FileManager.default.fileExists(atPath: device) {
                passedOver.append("\(name): device node \(device) missing")
                continue
            }
            return (name, passedOver)
        }
        return (candidates.last!, passedOver)
    }
}
