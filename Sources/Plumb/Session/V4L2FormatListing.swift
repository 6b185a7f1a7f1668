import FoundationEssentials
import Glibc
import PlumbBase

/// The modes in a `v4l2-ctl --list-formats-ext` listing — what a camera offers, in the
/// words its owner can paste into a bug report — as `ModeChooser` takes them. Discrete
/// sizes and intervals only (USB webcams list those); formats GStreamer's v4l2src does
/// not deliver as raw video or JPEG (H264, stepwise sizes) are left out.
public enum V4L2FormatListing {
    /// V4L2 fourcc to the GStreamer raw format v4l2src gives for it.
    static let rawFormats = ["YUYV": "YUY2", "NV12": "NV12", "YU12": "I420", "UYVY": "UYVY", "NV21": "NV21",
                             "YV12": "YV12", "GREY": "GRAY8", "RGB3": "RGB", "BGR3": "BGR"]

    public static func modes(in listing: String) -> [CameraMode] {
        var modes: [CameraMode] = []
        var encoding: CameraMode.Encoding?
        var size: VideoSize?
        for raw in listing.split(separator: "\n") {
            let line = raw.trimmed
            if line.hasPrefix("["), let open = line.firstIndex(of: "'"),
               let close = line[line.index(after: open)...].firstIndex(of: "'") {
                let fourcc = String(line[line.index(after: open)..<close])
                switch fourcc {
                case "MJPG", "JPEG": encoding = .mjpeg
                default: encoding = rawFormats[fourcc].map { .raw($0) }
                }
                size = nil
            } else if line.hasPrefix("Size: Discrete ") {
                size = VideoSize(parsing: String(line.dropFirst("Size: Discrete ".count)))
            } else if line.hasPrefix("Size:") {
                size = nil  // stepwise or continuous: not a webcam's list
            } else if line.hasPrefix("Interval: Discrete "), let encoding, let size,
                      let open = line.firstIndex(of: "("), let fps = Double(line[line.index(after: open)...].prefix { $0 != " " }) {
                modes.append(CameraMode(encoding: encoding, size: size, rate: rate(fps)))
            }
        }
        return modes
    }

    /// 30.000 -> 30/1, 7.500 -> 15/2, 29.970 -> 2997/100.
    static func rate(_ fps: Double) -> FrameRate {
        var n = Int((fps * 1000).rounded()), d = 1000
        var a = n, b = d
        while b != 0 { (a, b) = (b, a % b) }
        n /= a
        d /= a
        return FrameRate(n, d)
    }
}
