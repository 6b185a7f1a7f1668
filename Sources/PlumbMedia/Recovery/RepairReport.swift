/// What a repair did — or, in a dry run, would do — to one recording.
public struct RepairReport: Sendable, Equatable, Codable {
    public enum Action: String, Sendable, Codable {
        /// Rewritten into a normal MP4 holding its whole frames.
        case repaired
        /// Nothing playable in it: moved to `damaged/`, never deleted.
        case moved
        /// A normal MP4 already: not touched.
        case leftAsIs = "left-as-is"
        /// Another program is still writing it: not touched.
        case skipped
        /// Could not be repaired or moved (`detail` says why): left as it was.
        case failed
    }

    /// The file's name in the folder.
    public var file: String
    public var action: Action
    /// The video frames it holds afterwards (for `moved` and `failed`, 0).
    public var frames: Int
    /// Why: what was wrong with it, or what went wrong.
    public var detail: String
    /// Where a moved file went, from the folder: `damaged/NAME`.
    public var movedTo: String?

    public init(file: String, action: Action, frames: Int, detail: String, movedTo: String? = nil) {
        self.file = file
        self.action = action
        self.frames = frames
        self.detail = detail
        self.movedTo = movedTo
    }

    enum CodingKeys: String, CodingKey {
        case file, action, frames, detail
        case movedTo = "moved_to"
    }

    /// One line: `NAME: kept 45 frames, rewritten as a normal MP4 (why)`; in a dry run what
    /// would be done.
    public func sentence(dryRun: Bool = false) -> String {
        let frames = "\(self.frames) frame\(self.frames == 1 ? "" : "s")"
        switch action {
        case .repaired:
            return "\(file): " + (dryRun ? "would keep \(frames), rewriting it as a normal MP4" : "kept \(frames), rewritten as a normal MP4")
                + " (\(detail))"
        case .moved:
            return "\(file): " + (dryRun ? "would move it to" : "moved to") + " \(movedTo ?? "damaged/") (\(detail))"
        case .leftAsIs: return "\(file): left as is (\(detail), \(frames))"
        case .skipped: return "\(file): skipped (\(detail))"
        case .failed: return "\(file): error: \(detail)"
        }
    }
}
