import FoundationEssentials
import Glibc
import PlumbBase
import Plumb
import PlumbCommandLine
import PlumbMedia

/// `plumb inspect FILE...`: orientation metadata from Plumb's own parsers.
enum InspectCommand: Command {
    static let name = "inspect"
    static let summary = "print the orientation of MP4 recordings and JPEG stills"
    static let help = """
        Usage: plumb inspect [--json] FILE...

        Reads each file with Plumb's own MP4 and EXIF parsers and prints its
        orientation: for an MP4 the video track's matrix and the clockwise rotation
        it asks for, for a JPEG the EXIF Orientation. (ffprobe reports the MP4
        rotation counter-clockwise: its -90 is Plumb's 90.)

        Options:
          --json   one JSON object per file
        """

    struct Report: Encodable {
        var file: String
        var container: String
        var rotation: Int?
        var exifOrientation: Int?
        /// The nine tkhd matrix entries as stored (16.16 fixed point, w in 2.30).
        var matrix: [Int32]?
        var fragmented: Bool?
        var width: Double?
        var height: Double?

        enum CodingKeys: String, CodingKey {
            case file, container, rotation, matrix, fragmented, width, height
            case exifOrientation = "exif_orientation"
        }
    }

    static func run(_ arguments: inout Arguments) async throws -> ExitCode {
        let json = arguments.flag("--json")
        var files: [String] = []
        while let file = try? arguments.positional("FILE") { files.append(file) }
        try arguments.finish()
        guard !files.isEmpty else { throw UsageError("missing FILE") }
        var code = ExitCode.success
        for file in files {
            do {
                let o = try MediaInspector.inspect(path: file)
                if json {
                    let report = Report(file: file, container: o.container.rawValue, rotation: o.rotation?.degrees,
                                        exifOrientation: o.exifOrientation?.rawValue,
                                        matrix: o.matrix?.values, fragmented: o.container == .mp4 ? o.isFragmented : nil,
                                        width: o.size?.width, height: o.size?.height)
                    let encoder = JSONEncoder()
                    encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
                    say(String(decoding: try encoder.encode(report), as: UTF8.self))
                } else {
                    say("\(file): \(o)")
                }
            } catch {
                StandardStream.error.write("\(file): error: \(error)\n")
                code = .usage
            }
        }
        return code
    }
}
