/// A frame size in pixels.
public struct VideoSize: Sendable, Hashable, Codable, CustomStringConvertible {
    public var width: Int
    public var height: Int

    public init(width: Int, height: Int) {
        self.width = width
        self.height = height
    }

    /// Parses "640x480" (also "640X480"); nil for anything else or a zero side.
    public init?(parsing text: String) {
        let parts = text.lowercased().split(separator: "x", omittingEmptySubsequences: false)
        guard parts.count == 2, let w = Int(parts[0]), let h = Int(parts[1]), w > 0, h > 0 else { return nil }
        self.init(width: w, height: h)
    }

    public var description: String { "\(width)x\(height)" }
    public var area: Int { width * height }

    public static let vga = VideoSize(width: 640, height: 480)

    /// Whether 4:2:0 video can have this size — what H.264/H.265 encoders take, its chroma
    /// at half the size both ways: both sides positive and even.
    public var fits420: Bool {
        width > 0 && height > 0 && width.isMultiple(of: 2) && height.isMultiple(of: 2)
    }

    /// Why a recording cannot have this size ("321x240: a recording needs even width and
    /// height ..."), nil when it can.
    public var recordingProblem: String? {
        fits420 ? nil : "\(self): a recording needs even width and height (H.264/H.265 use 4:2:0 chroma)"
    }
}
