/// One encoder element Plumb knows, and what kind of hardware (if any) it drives.
public struct EncoderCandidate: Sendable, Hashable, Codable {
    public enum Kind: String, Sendable, Hashable, Codable {
        /// A stateful V4L2 memory-to-memory encoder (Raspberry Pi 4, Rockchip, Amlogic, i.MX).
        case v4l2
        /// VA-API through gstreamer1.0-plugins-bad's `va` plugin (Intel, AMD).
        case va
        /// VA-API through the older gstreamer-vaapi plugin.
        case vaapi
        /// A CPU encoder.
        case software
    }

    /// The element factory ("v4l2h264enc").
    public var name: String
    public var codec: VideoCodec
    public var kind: Kind

    public var isHardware: Bool { kind != .software }

    /// The parser that goes after it.
    public var parser: String { codec == .h264 ? "h264parse" : "h265parse" }

    /// Each codec's encoders, best first: the board's own encoder, then VA-API, then the CPU.
    public static let all: [EncoderCandidate] = [
        .init(name: "v4l2h264enc", codec: .h264, kind: .v4l2),
        .init(name: "vah264enc", codec: .h264, kind: .va),
        .init(name: "vaapih264enc", codec: .h264, kind: .vaapi),
        .init(name: "x264enc", codec: .h264, kind: .software),
        .init(name: "openh264enc", codec: .h264, kind: .software),
        .init(name: "v4l2h265enc", codec: .h265, kind: .v4l2),
        .init(name: "vah265enc", codec: .h265, kind: .va),
        .init(name: "vaapih265enc", codec: .h265, kind: .vaapi),
        .init(name: "x265enc", codec: .h265, kind: .software),
    ]

    public static func candidates(for codec: VideoCodec) -> [EncoderCandidate] {
        all.filter { $0.codec == codec }
    }

    public static func named(_ name: String) -> EncoderCandidate? {
        all.first { $0.name == name }
    }

    /// Why the element may be missing, and what provides it.
    var whereFrom: String {
        switch kind {
        case .v4l2:
            return "gstreamer1.0-plugins-good's v4l2 plugin registers it only when the kernel offers a V4L2 "
                + "memory-to-memory \(codec == .h264 ? "H.264" : "HEVC") encoder (/dev/video*)"
        case .va:
            return "gstreamer1.0-plugins-bad's va plugin registers it only for a VA-API render node "
                + "(/dev/dri/renderD*) whose driver encodes \(codec == .h264 ? "H.264" : "HEVC")"
        case .vaapi:
            return "needs gstreamer1.0-vaapi and a VA-API driver that encodes \(codec == .h264 ? "H.264" : "HEVC")"
        case .software:
            switch name {
            case "x264enc": return "install gstreamer1.0-plugins-ugly"
            case "openh264enc", "x265enc": return "install gstreamer1.0-plugins-bad"
            default: return "install the plugin that provides it"
            }
        }
    }
}
