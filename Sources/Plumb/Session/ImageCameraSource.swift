import FoundationEssentials
import Glibc
import GStreamer

/// A still image (PNG or JPEG) shown as a live camera: `filesrc ! pngdec|jpegdec ! imagefreeze
/// is-live=true ! videoconvert ! videoscale ! tee caps` — for tests, demos and installers'
/// checks ("image:FILE").
public struct ImageCameraSource: Sendable, Hashable {
    /// What `--camera` and `[camera] device` take: "image:FILE".
    public static let prefix = "image:"

    /// The image file, as given.
    public var path: String
    /// Its decoder, from its first bytes.
    var decoder: String

    /// Checks that `path` names a readable PNG or JPEG, so a bad name fails at once with
    /// the file named rather than as a decoder error from a running pipeline.
    public init(path: String) throws(CameraError) {
        let identifier = Self.prefix + path
        guard !path.isEmpty else {
            throw CameraError(device: identifier, cause: .unknownName, detail: "give the image's path after image:")
        }
        var info = stat()
        guard stat(path, &info) == 0 else {
            throw CameraError(device: identifier, cause: .notFound, detail: "\(path): \(String(cString: strerror(errno)))")
        }
        guard info.st_mode & S_IFMT == S_IFREG else {
            throw CameraError(device: identifier, cause: .notAnImage, detail: "\(path) is not a regular file")
        }
        let file = open(path, O_RDONLY | O_CLOEXEC)
        guard file >= 0 else {
            throw CameraError(device: identifier, cause: .permissionDenied, detail: "\(path) cannot be read")
        }
        defer { close(file) }
        var head = [UInt8](repeating: 0, count: 8)
        let count = head.withUnsafeMutableBytes { read(file, $0.baseAddress, 8) }
        head = Array(head.prefix(max(0, count)))
        if Self.isPNG(head) {
            decoder = "pngdec"
        } else if Self.isJPEG(head) {
            decoder = "jpegdec"
        } else {
            throw CameraError(device: identifier, cause: .notAnImage, detail: "\(path) is neither PNG nor JPEG")
        }
        self.path = path
    }

    static func isPNG(_ b: [UInt8]) -> Bool { b.starts(with: [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) }
    static func isJPEG(_ b: [UInt8]) -> Bool { b.starts(with: [0xFF, 0xD8, 0xFF]) }

    /// The source elements in `pipeline`, linked; the last one gives `format`'s caps.
    func makeChain(format: CaptureFormat, in pipeline: Pipeline) throws -> [Element] {
        let src = try Element(factory: "filesrc", name: "src")
        try src.set("location", path)
        let decode = try Element(factory: decoder, name: "image-decode")
        let freeze = try Element(factory: "imagefreeze", name: "image-freeze")
        try freeze.set("is-live", true)
        let convert = try Element(factory: "videoconvert", name: "image-convert")
        let scale = try Element(factory: "videoscale", name: "image-scale")
        // pixel-aspect-ratio 1/1: videoscale keeps the picture's shape, with borders.
        let caps = try Element(factory: "capsfilter", name: "tee-caps")
        try caps.set("caps", try Caps(format.caps + ",pixel-aspect-ratio=1/1"))
        let chain = [src, decode, freeze, convert, scale, caps]
        try pipeline.add(chain)
        for (a, b) in zip(chain, chain.dropFirst()) { try a.link(to: b) }
        return chain
    }
}
