/// A normal movie header (a `moov` without `mvex`) for the whole samples of an index, as
/// mp4mux writes when it finalizes a file: the old header's boxes are copied as they are
/// (the track matrix, the sample descriptions, the tags with them), the sample tables are
/// written anew for the samples kept, and the durations say how long they play.
enum MP4MovieHeaderBuilder {
    static func build(_ index: MP4MovieIndex, view: ByteView) throws(MediaError) -> [UInt8] {
        let parts = try MP4Box.children(of: index.moov, in: view)
        guard let mvhd = parts.first(where: { $0.type == "mvhd" }) else {
            throw .malformed("the movie header at \(index.moov.offset) has no mvhd")
        }
        let mvhdVersion = try view.uint8(mvhd.payloadOffset, "the mvhd version")
        let movieScale = try view.uint32(mvhd.payloadOffset + (mvhdVersion == 1 ? 20 : 12), "the movie timescale")
        var traks: [UInt32: (bytes: [UInt8], duration: UInt64)] = [:]
        for track in index.tracks {
            traks[track.id] = try trak(track, movieScale: movieScale, view: view)
        }
        let duration = traks.values.map(\.duration).max() ?? 0
        var w = MP4BoxWriter()
        w.box("moov") { w in
            for part in parts {
                switch part.type {
                case "mvhd": w.copyPatchingDuration(part, version: mvhdVersion, at: mvhdVersion == 1 ? 24 : 16, duration, view)
                case "trak":
                    if let id = index.tracks.first(where: { $0.trak == part })?.id, let built = traks[id] { w.append(built.bytes) }
                case "mvex": break  // no fragments follow any more
                default: w.copy(part, from: view)
                }
            }
        }
        return w.bytes
    }

    /// One track rebuilt; its duration in the movie's timescale.
    private static func trak(_ track: MP4MovieIndex.Track, movieScale: UInt32, view: ByteView) throws(MediaError)
        -> (bytes: [UInt8], duration: UInt64)
    {
        let parts = try MP4Box.children(of: track.trak, in: view)
        guard let mdia = parts.first(where: { $0.type == "mdia" }),
              let mdhd = try MP4Box.children(of: mdia, in: view).first(where: { $0.type == "mdhd" }) else {
            throw .malformed("track \(track.id) has no media header (mdhd)")
        }
        let mdhdVersion = try view.uint8(mdhd.payloadOffset, "the mdhd version")
        let mediaScale = try view.uint32(mdhd.payloadOffset + (mdhdVersion == 1 ? 20 : 12), "the media timescale")
        let mediaDuration = track.whole.reduce(UInt64(0)) { $0 + UInt64($1.duration) }
        let toMovie = { (d: UInt64) -> UInt64 in convert(d, from: mediaScale, to: movieScale) }
        let edit = try edits(parts.first { $0.type == "edts" }, mediaDuration: mediaDuration, toMovie: toMovie, view: view)
        let duration = edit?.duration ?? toMovie(mediaDuration)
        var w = MP4BoxWriter()
        try w.box("trak") { (w: inout MP4BoxWriter) throws(MediaError) in
            for part in parts {
                switch part.type {
                case "tkhd":
                    let version = (try? view.uint8(part.payloadOffset)) ?? 0
                    w.copyPatchingDuration(part, version: version, at: version == 1 ? 28 : 20, duration, view)
                case "edts": if let edit { w.append(edit.box) }
                case "mdia": try media(mdia, track, duration: mediaDuration, into: &w, view: view)
                default: w.copy(part, from: view)
                }
            }
        }
        return (w.bytes, duration)
    }

    private static func media(_ mdia: MP4Box, _ track: MP4MovieIndex.Track, duration: UInt64, into w: inout MP4BoxWriter,
                              view: ByteView) throws(MediaError)
    {
        let parts = try MP4Box.children(of: mdia, in: view)
        guard let minf = parts.first(where: { $0.type == "minf" }) else { throw .malformed("track \(track.id) has no minf") }
        let info = try MP4Box.children(of: minf, in: view)
        guard let stbl = info.first(where: { $0.type == "stbl" }),
              let stsd = try MP4Box.children(of: stbl, in: view).first(where: { $0.type == "stsd" }) else {
            throw .malformed("track \(track.id) has no sample descriptions (stsd)")
        }
        w.box("mdia") { w in
            for part in parts {
                switch part.type {
                case "mdhd":
                    let version = (try? view.uint8(part.payloadOffset)) ?? 0
                    w.copyPatchingDuration(part, version: version, at: version == 1 ? 24 : 16, duration, view)
                case "minf":
                    w.box("minf") { w in
                        for box in info {
                            if box.type == "stbl" {
                                w.box("stbl") { w in
                                    w.copy(stsd, from: view)
                                    writeTables(track.whole, into: &w)
                                }
                            } else {
                                w.copy(box, from: view)
                            }
                        }
                    }
                default: w.copy(part, from: view)
                }
            }
        }
    }

    /// stts, ctts, stss, stsc, stsz and stco (co64 past 4 GiB) for `samples`, in decoding order.
    private static func writeTables(_ samples: ArraySlice<MP4Sample>, into w: inout MP4BoxWriter) {
        let durations = runs(samples.map(\.duration))
        w.fullBox("stts") { w in
            w.uint32(UInt32(durations.count))
            for run in durations { w.uint32(UInt32(run.count)); w.uint32(run.value) }
        }
        if samples.contains(where: { $0.compositionOffset != 0 }) {
            let offsets = runs(samples.map(\.compositionOffset))
            w.fullBox("ctts", version: offsets.contains { $0.value < 0 } ? 1 : 0) { w in
                w.uint32(UInt32(offsets.count))
                for run in offsets { w.uint32(UInt32(run.count)); w.int32(run.value) }
            }
        }
        if samples.contains(where: { !$0.isSync }) {
            let sync = samples.enumerated().filter(\.element.isSync).map { UInt32($0.offset + 1) }
            w.fullBox("stss") { w in
                w.uint32(UInt32(sync.count))
                for number in sync { w.uint32(number) }
            }
        }
        // A chunk: samples one after another in the file, with the same description.
        var chunks: [(offset: Int, count: Int, description: UInt32)] = []
        var previous: MP4Sample?
        for sample in samples {
            if let p = previous, p.end == sample.offset, p.descriptionIndex == sample.descriptionIndex {
                chunks[chunks.count - 1].count += 1
            } else {
                chunks.append((sample.offset, 1, sample.descriptionIndex))
            }
            previous = sample
        }
        w.fullBox("stsc") { w in
            var entries: [(first: Int, count: Int, description: UInt32)] = []
            for (i, chunk) in chunks.enumerated()
            where entries.last.map({ $0.count != chunk.count || $0.description != chunk.description }) ?? true {
                entries.append((i + 1, chunk.count, chunk.description))
            }
            w.uint32(UInt32(entries.count))
            for entry in entries { w.uint32(UInt32(entry.first)); w.uint32(UInt32(entry.count)); w.uint32(entry.description) }
        }
        w.fullBox("stsz") { w in
            let size = samples.first?.size ?? 0
            if samples.allSatisfy({ $0.size == size }) && size > 0 {
                w.uint32(UInt32(size))
                w.uint32(UInt32(samples.count))
            } else {
                w.uint32(0)
                w.uint32(UInt32(samples.count))
                for sample in samples { w.uint32(UInt32(sample.size)) }
            }
        }
        let wide = chunks.contains { $0.offset > Int(UInt32.max) }
        w.fullBox(wide ? "co64" : "stco") { w in
            w.uint32(UInt32(chunks.count))
            for chunk in chunks { if wide { w.uint64(UInt64(chunk.offset)) } else { w.uint32(UInt32(chunk.offset)) } }
        }
    }

    /// The edit list for the samples kept: empty edits (a start delay) stay, the one edit
    /// that plays media lasts to the end of the kept samples. nil drops the list: any
    /// other shape no longer fits a shorter track, and without it the samples play as they are.
    private static func edits(_ edts: MP4Box?, mediaDuration: UInt64, toMovie: (UInt64) -> UInt64,
                              view: ByteView) throws(MediaError) -> (box: [UInt8], duration: UInt64)?
    {
        guard let edts, let elst = try MP4Box.children(of: edts, in: view).first(where: { $0.type == "elst" }) else {
            return nil
        }
        let version = try view.uint8(elst.payloadOffset, "the elst version")
        let entrySize = version == 1 ? 20 : 12
        let (count, start) = try MP4SampleTable.table(elst, entrySize: entrySize, view: view)
        var entries: [(duration: UInt64, mediaTime: Int64, rate: UInt32)] = []
        for i in 0..<count {
            let at = start + i * entrySize
            if version == 1 {
                entries.append((try view.uint64(at), Int64(bitPattern: try view.uint64(at + 8)), try view.uint32(at + 16)))
            } else {
                entries.append((UInt64(try view.uint32(at)), Int64(try view.int32(at + 4)), try view.uint32(at + 8)))
            }
        }
        guard let last = entries.last, last.mediaTime >= 0, entries.dropLast().allSatisfy({ $0.mediaTime == -1 }),
              UInt64(last.mediaTime) <= mediaDuration else { return nil }
        entries[entries.count - 1].duration = toMovie(mediaDuration - UInt64(last.mediaTime))
        let wide = version == 1 || entries.contains { $0.duration > UInt64(UInt32.max) || $0.mediaTime > Int64(Int32.max) }
        var w = MP4BoxWriter()
        w.box("edts") { w in
            w.fullBox("elst", version: wide ? 1 : 0) { w in
                w.uint32(UInt32(entries.count))
                for entry in entries {
                    if wide { w.uint64(entry.duration); w.int64(entry.mediaTime) } else {
                        w.uint32(UInt32(entry.duration)); w.int32(Int32(entry.mediaTime))
                    }
                    w.uint32(entry.rate)
                }
            }
        }
        return (w.bytes, entries.reduce(0) { $0 + $1.duration })
    }

    /// Consecutive equal values as (count, value).
    private static func runs<T: Equatable>(_ values: [T]) -> [(count: Int, value: T)] {
        var result: [(count: Int, value: T)] = []
        for v in values {
            if let last = result.last, last.value == v { result[result.count - 1].count += 1 } else { result.append((1, v)) }
        }
        return result
    }

    /// A duration from one timescale to another, rounded.
    static func convert(_ value: UInt64, from: UInt32, to: UInt32) -> UInt64 {
        guard from > 0, from != to else { return value }
        let (high, low) = value.multipliedFullWidth(by: UInt64(to))
        guard high < UInt64(from) else { return UInt64.max }
        let (quotient, remainder) = UInt64(from).dividingFullWidth((high, low))
        return quotient + (remainder * 2 >= UInt64(from) ? 1 : 0)
    }
}

extension MP4BoxWriter {
    /// Copies a header box (mvhd, tkhd, mdhd) with its duration set: a 64-bit field in
    /// version 1, 32-bit (saturated) in version 0, `at` bytes into the payload.
    mutating func copyPatchingDuration(_ box: MP4Box, version: UInt8, at: Int, _ duration: UInt64, _ view: ByteView) {
        let start = bytes.count
        copy(box, from: view)
        let width = version == 1 ? 8 : 4
        guard box.headerSize + at + width <= box.size else { return }  // too short to hold one: left as it was
        patch(version == 1 ? duration : min(duration, UInt64(UInt32.max)), width: width, at: start + box.headerSize + at)
    }
}
