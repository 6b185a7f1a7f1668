/// Every sample a file's movie describes — in its header (`moov`) and in its fragments
/// (`moof`, file order) — and how many of each track's are whole in the file: what a
/// reader can play, and what a repair keeps.
struct MP4MovieIndex {
    struct Track {
        var trak: MP4Box
        var id: UInt32
        var handler: String
        /// Decoding order: the header's samples, then each fragment's.
        var samples: [MP4Sample]
        /// How many samples, from the first, have their bytes in the file. A sample after
        /// a missing one is not counted: the frames after a gap would not decode.
        var wholeCount: Int

        var isVideo: Bool { handler == "vide" }
        var whole: ArraySlice<MP4Sample> { samples[..<wholeCount] }
    }

    /// The top-level boxes that are complete (a last box cut short is left out).
    var boxes: [MP4Box]
    /// The first movie header.
    var moov: MP4Box
    var tracks: [Track]
    /// Movie fragments follow the header (`mvex` in `moov`, or `moof` boxes).
    var isFragmented: Bool
    /// Fragments whose header (`moof`) is whole in the file.
    var fragmentCount: Int

    var videoTrack: Track? { tracks.first(where: \.isVideo) }
    /// Every sample described is in the file.
    var isComplete: Bool { tracks.allSatisfy { $0.wholeCount == $0.samples.count } }
    /// Whole samples, all tracks.
    var wholeCount: Int { tracks.reduce(0) { $0 + $1.wholeCount } }
    /// Where the bytes of the last whole sample end (0 when there is none).
    var dataEnd: Int { tracks.flatMap(\.whole).map(\.end).max() ?? 0 }

    /// The index of the file `view` holds; nil when it has no complete movie header.
    static func read(_ view: ByteView) throws(MediaError) -> MP4MovieIndex? {
        let boxes = try MP4File.topLevelBoxes(view)
        guard let moov = boxes.first(where: { $0.type == "moov" }) else { return nil }
        let traks = try MP4Box.children(of: moov, in: view).filter { $0.type == "trak" }
        // Same traks, same order: `tracks` fails on a trak without a header.
        let headers = try MP4Track.tracks(in: view, moov: moov)
        var tracks: [Track] = []
        for (trak, header) in zip(traks, headers) {
            var stbl = trak
            for type in ["mdia", "minf", "stbl"] {
                guard let child = try MP4Box.children(of: stbl, in: view).first(where: { $0.type == type }) else {
                    throw .malformed("track \(header.id) at \(trak.offset) has no \(type)")
                }
                stbl = child
            }
            let samples = try MP4SampleTable.samples(in: stbl, view: view)
            tracks.append(Track(trak: trak, id: header.id, handler: header.handler, samples: samples, wholeCount: 0))
        }
        let defaults = try MP4Fragments.trackDefaults(moov: moov, view: view)
        let moofs = boxes.filter { $0.type == "moof" }
        for moof in moofs {
            let fragment = try MP4Fragments.samples(in: moof, defaults: defaults, view: view)
            for i in tracks.indices { tracks[i].samples += fragment[tracks[i].id] ?? [] }
        }
        for i in tracks.indices {
            tracks[i].wholeCount = tracks[i].samples.firstIndex { !$0.isWhole(inFileOf: view.count) }
                ?? tracks[i].samples.count
        }
        let extended = try MP4Box.children(of: moov, in: view).contains { $0.type == "mvex" }
        return MP4MovieIndex(boxes: boxes, moov: moov, tracks: tracks, isFragmented: extended || !moofs.isEmpty,
                             fragmentCount: moofs.count)
    }
}
