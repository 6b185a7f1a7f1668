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
}
