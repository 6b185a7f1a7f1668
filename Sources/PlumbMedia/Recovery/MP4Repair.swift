import FoundationEssentials
import Glibc

/// What a recording a crash left needs, and the rewrite that makes it a normal MP4.
///
/// mp4mux in `first-moov-then-finalise` mode writes `ftyp free mdat` (the first fragment's
/// frames), then the first `moov` (their index, and `mvex`), then `free mdat moof` for each
/// further fragment (the frames first, their index after them); a clean stop adds a final
/// `moov` at the end and grows the first `mdat` over everything before it. `kill -9` or a
/// power cut stops this anywhere:
/// - in the first fragment: no `moov` at all — the frames have no index, nothing plays;
/// - later: the `moov`, the whole fragments, then frames whose `moof` was never written or
///   a box cut mid-write.
///
/// The rewrite keeps every whole sample and leaves its bytes where they are: the file up to
/// the end of the last whole sample, one `mdat` header over everything after `ftyp` (the old
/// headers become bytes inside it, as in a finalized file), and a new `moov` at the end that
/// indexes the samples in place — with the old header's track matrix, sample descriptions and
/// tags. It is written to a hidden file in the same folder, read back, synced and renamed over
/// the original: a crash during a repair leaves the original as it was.
public enum MP4Repair {
    public enum State: Sendable, Equatable {
        /// A normal MP4 whose samples are all in the file: nothing to do.
        case normal(frames: Int)
        /// Playable samples behind a fragmented or cut index: a rewrite keeps `frames` video frames.
        case repairable(frames: Int, why: String)
        /// Nothing a reader can play: no movie header, no whole sample, not an MP4.
        case unplayable(why: String)
    }

    /// The temporary files of a rewrite start with this (hidden: never listed or served);
    /// one left by a crash is only a copy, and goes at the next repair of the folder.
    public static let temporaryPrefix = ".repair-"

    /// Reads the file's structure. Throws only when it cannot be read at all.
    public static func examine(path: String) throws(MediaError) -> State {
        try MP4File.withMappedBytes(of: path) { (view: ByteView) throws(MediaError) -> State in state(of: view) }
    }

    /// Rewrites a repairable file into a normal MP4, atomically; returns the video frames kept.
    @discardableResult
    public static func rewrite(path: String) throws(RepairError) -> Int {
        let plan: Plan
        do {
            plan = try MP4File.withMappedBytes(of: path) { (view: ByteView) throws(MediaError) -> Plan in try Plan(view) }
        } catch {
            throw RepairError("cannot repair \(path): \(error)")
        }
        var info = stat()
        guard stat(path, &info) == 0 else { throw .system("read", path) }
        let folder = URL(fileURLWithPath: path).deletingLastPathComponent().path
        let temp = folder + "/" + temporaryPrefix + UUID().uuidString + ".tmp"
        do throws(RepairError) {
            let source = try PosixFile(path: path, flags: O_RDONLY)
            let target = try PosixFile(path: temp, flags: O_WRONLY | O_CREAT | O_EXCL)
            try target.copy(plan.cut, from: source)
            try target.write(plan.mdatHeader, at: plan.mdatOffset)
            try target.write(plan.moov, at: plan.cut)
            try target.take(attributesOf: info)
            try target.sync()
            try check(temp, against: plan)
            guard rename(temp, path) == 0 else { throw RepairError.system("rename \(temp) over", path) }
        } catch {
            unlink(temp)
            throw error
        }
        PosixFile.syncFolder(folder)
        return plan.frames
    }

    static func state(of view: ByteView) -> State {
        do throws(MediaError) {
            return state(of: view, try MP4MovieIndex.read(view))
        } catch {
            return .unplayable(why: "its structure cannot be read: \(error)")
        }
    }

    private static func state(of view: ByteView, _ index: MP4MovieIndex?) -> State {
        guard view.count > 0 else { return .unplayable(why: "empty: nothing was ever written to it") }
        guard let index else {
            let first = try? MP4File.topLevelBoxes(view).first?.type
            return .unplayable(why: first == "ftyp" ? "no movie header (moov): cut in its first fragment, before one was written"
                : "not an MP4: no movie header (moov)")
        }
        guard index.wholeCount > 0 else {
            return .unplayable(why: "no whole sample: its movie header indexes nothing that is in the file")
        }
        let frames = index.videoTrack?.wholeCount ?? 0
        guard index.isFragmented || !index.isComplete else { return .normal(frames: frames) }
        guard index.isFragmented else {
            let total = index.tracks.reduce(0) { $0 + $1.samples.count }
            return .repairable(frames: frames, why: "cut short: \(index.wholeCount) of its \(total) samples are in the file")
        }
        let indexed = index.boxes.filter { $0.type == "moof" || $0.type == "moov" }.map(\.end).max() ?? 0
        let dropped = view.count - max(index.dataEnd, indexed)
        return .repairable(frames: frames, why: "fragmented, never finalized"
            + (dropped > 0 ? "; the \(dropped) bytes after its last whole fragment hold no whole frame and go" : ""))
    }

    /// Reads the rewritten file back before it replaces the original: a normal MP4 with the
    /// samples planned, every one of them in the file.
    private static func check(_ temp: String, against plan: Plan) throws(RepairError) {
        let state = try? examine(path: temp)
        guard state == .normal(frames: plan.frames) else {
            throw RepairError("the rewritten file did not read back as a normal MP4 with \(plan.frames) frames "
                              + "(\(state.map { "\($0)" } ?? "unreadable")); the original is left as it was")
        }
    }

    /// What the rewritten file is: the original's first `cut` bytes, an `mdat` header at
    /// `mdatOffset`, the new `moov` after them.
    struct Plan {
        var cut: Int
        var mdatOffset: Int
        var mdatHeader: [UInt8]
        var moov: [UInt8]
        var frames: Int

        init(_ view: ByteView) throws(MediaError) {
            let index = try MP4MovieIndex.read(view)
            let state = MP4Repair.state(of: view, index)
            guard case .repairable(let frames, _) = state, let index else { throw .malformed("nothing to repair: \(state)") }
            self.frames = frames
            cut = index.dataEnd
            let boxes = index.boxes
            mdatOffset = boxes.first?.type == "ftyp" ? boxes[0].end : 0
            let size = cut - mdatOffset
            var w = MP4BoxWriter()
            if size <= Int(UInt32.max) {
                w.uint32(UInt32(size))
                w.fourCC("mdat")
            } else {
                w.uint32(1)  // a 64-bit size follows the type
                w.fourCC("mdat")
                w.uint64(UInt64(size))
            }
            mdatHeader = w.bytes
            let firstData = index.tracks.flatMap(\.whole).map(\.offset).min() ?? cut
            guard firstData >= mdatOffset + mdatHeader.count else {
                throw .malformed("the first sample starts at \(firstData), inside the \(mdatHeader.count)-byte media header "
                                 + "a rewrite needs at \(mdatOffset)")
            }
            moov = try MP4MovieHeaderBuilder.build(index, view: view)
        }
    }
}
