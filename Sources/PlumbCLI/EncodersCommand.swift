import FoundationEssentials
import Glibc
import Plumb
import PlumbCommandLine

/// `plumb encoders [--json]`
enum EncodersCommand: Command {
    static let name = "encoders"
    static let summary = "list each codec's encoders, best first, and which can be used here"
    static let help = """
        Usage: plumb encoders [--json]

        Lists the H.264 and H.265 encoders Plumb tries, best first: the board's V4L2
        memory-to-memory encoder (v4l2h264enc), VA-API (vah264enc, then vaapih264enc), then
        software (x264enc, openh264enc; x265enc). Each is tried for real (one frame
        encoded); an unusable one says why: element missing (and what provides it), device
        node missing, or failed to start (the element's error). "auto" takes the first
        usable one of each codec.

        Options:
          --json   print a JSON object instead of text
        """

    static func run(_ arguments: inout Arguments) async throws -> ExitCode {
        let json = arguments.flag("--json")
        try arguments.finish()
        let report = EncoderReport.current()
        if json {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
            say(String(decoding: try encoder.encode(report), as: UTF8.self))
            return .success
        }
        for codec in report.codecs {
            say("\(codec.codec.rawValue.uppercased()): \(codec.choice.map { "auto uses \($0)" } ?? "no usable encoder")")
            for entry in codec.candidates {
                let status = entry.available ? "available" : "unavailable: \(entry.reason ?? "?")"
                say("  \(entry.encoder) (\(entry.kind.rawValue))  \(status)")
            }
        }
        return .success
    }
}
