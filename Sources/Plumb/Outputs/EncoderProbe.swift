import FoundationEssentials
import Glibc
import GStreamer

/// Whether an encoder can be used here, and if not, why: the element missing, its device
/// node missing, or the element failing to encode a first frame (a driver refusing the
/// caps, a busy or broken device). Hardware encoders are tried for real, because an
/// element that is registered says little about the device behind it.
public enum EncoderProbe {
    /// nil when `candidate` is usable. `installed` says whether the element exists
    /// (tests replace it); `tryStart` encodes one frame even for a software encoder.
    public static func problem(with candidate: EncoderCandidate, tryStart: Bool = false,
                               installed: (String) -> Bool = { Gst.hasElement($0) }) -> String? {
        guard installed(candidate.name) else { return "element missing: \(candidate.whereFrom)" }
        guard candidate.isHardware || tryStart else { return nil }
        if let device = devicePath(of: candidate.name), !FileManager.default.fileExists(atPath: device) {
            return "device node \(device) missing"
        }
        return startProblem(candidate.name)
    }

    /// The device node the element opens, when it names one (`device` on V4L2 encoders).
    static func devicePath(of factory: String) -> String? {
        guard let element = try? Element(factory: factory), element.hasProperty("device"),
              case .string(let path?)? = try? element.value(of: "device"), path.hasPrefix("/") else { return nil }
        return path
    }

    /// Encodes two small frames (sizes every encoder accepts: multiples of 16) and waits
    /// for the first to come out; nil on success, else the element's own error.
    static func startProblem(_ factory: String) -> String? {
        let description = "videotestsrc num-buffers=2 ! video/x-raw,width=320,height=240,framerate=30/1 "
            + "! videoconvert ! \(factory) name=probe ! fakesink"
        do {
            let pipeline = try Pipeline.parse(description)
            defer { try? pipeline.setState(.null) }
            // PAUSED completes once fakesink has the first encoded frame.
            try pipeline.setState(.paused, timeout: .seconds(5))
            return nil
        } catch {
            return "failed to start: \(error)"
        }
    }
}
