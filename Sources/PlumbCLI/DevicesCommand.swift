import FoundationEssentials
import Glibc
import Plumb
import PlumbCommandLine

/// `plumb devices [--json]`
enum DevicesCommand: Command {
    static let name = "devices"
    static let summary = "list cameras (video sources) and their formats"
    static let help = """
        Usage: plumb devices [--json]

        Lists the video sources GStreamer's device monitor sees: name, device path (or,
        for a libcamera camera such as a Raspberry Pi camera module, libcamera:ID, what
        --camera takes), and each format with its sizes and frame rates. Says so when
        there are none.

        Options:
          --json   print a JSON array instead of text
        """

    static func run(_ arguments: inout Arguments) async throws -> ExitCode {
        let json = arguments.flag("--json")
        try arguments.finish()
        let cameras = try CameraList.current()
        if json {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
            // Foundation pretty-prints an empty array over three lines; `[]` reads better.
            say(cameras.isEmpty ? "[]" : String(decoding: try encoder.encode(cameras), as: UTF8.self))
            return .success
        }
        if cameras.isEmpty {
            say("No cameras found: GStreamer's device monitor sees no video source (no /dev/video* capture device, or no permission).")
            say("Use the test pattern instead (pipelines/test-preview.pipeline, or --camera test).")
            return .success
        }
        for camera in cameras {
            say("\(camera.name)  \(camera.path ?? camera.source ?? "(no device path)")")
            for format in camera.formats {
                let rates = format.framerates.isEmpty ? "" : " @ " + format.framerates.joined(separator: ", ")
                say("  \(format.mediaType)\(format.format.map { " \($0)" } ?? "") \(format.size)\(rates)")
            }
        }
        return .success
    }
}
