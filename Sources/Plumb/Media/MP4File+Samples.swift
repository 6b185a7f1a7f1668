extension MP4File {
    /// The video frames a reader finds in the file: the samples of the video track's index
    /// in `moov` (`stsz`), plus those of the movie fragments (`trun` in `moof`) whose data is
    /// in the file. What a write that failed half-way left (a box cut short, a fragment's
    /// data cut off) counts for nothing: readers skip it too.
    /// 0 when the file has no `moov` (cut before its header was written).
    public static func videoSampleCount(path: String) throws(MediaError) -> Int {
        try withMappedBytes(of: path) { (view: ByteView) throws(MediaError) -> Int in
            let boxes = try topLevelBoxes(view)
            guard let moov = boxes.first(where: { $0.type == "moov" }) else { return 0 }
            guard let video = try MP4Track.tracks(in: view, moov: moov).first(where: \.isVideo) else { return 0 }
            var count = try indexedSamples(ofTrack: video.id, moov: moov, in: view)
            for moof in boxes where moof.type == "moof" {
                count += try fragmentSamples(ofTrack: video.id, moof: moof, in: view)
            }
            return count
        }
    }

    /// `moov/trak/mdia/minf/stbl/stsz` sample_count of the track `id`.
    private static func indexedSamples(ofTrack id: UInt32, moov: MP4Box, in view: ByteView) throws(MediaError) -> Int {
        for trak in try MP4Box.children(of: moov, in: view) where trak.type == "trak" {
            let parts = try MP4Box.children(of: trak, in: view)
            guard let tkhd = parts.first(where: { $0.type == "tkhd" }),
                  try MP4Track.track(tkhd, handler: "", in: view).id == id else { continue }
            var box = trak
            for type in ["mdia", "minf", "stbl", "stsz"] {
                guard let child = try MP4Box.children(of: box, in: view).first(where: { $0.type == type }) else { return 0 }
                box = child
            }
            // FullBox header (4), sample_size (4), sample_count (4).
            return Int(try view.uint32(box.payloadOffset + 8, "the stsz sample count"))
        }
        return 0
    }

    /// The samples of track `id` in one fragment whose data is whole in the file: a fragment
    /// written before its data (`moof` then `mdat`) may have lost the end of it.
    private static func fragmentSamples(ofTrack id: UInt32, moof: MP4Box, in view: ByteView) throws(MediaError) -> Int {
        var count = 0
        for traf in try MP4Box.children(of: moof, in: view) where traf.type == "traf" {
            let parts = try MP4Box.children(of: traf, in: view)
            guard let tfhd = parts.first(where: { $0.type == "tfhd" }) else { continue }
            // tfhd: version and flags (4), track_ID (4), then the optional fields its flags name.
            let flags = try view.uint32(tfhd.payloadOffset, "the tfhd flags") & 0xFF_FFFF
            guard try view.uint32(tfhd.payloadOffset + 4, "the tfhd track ID") == id else { continue }
            var field = tfhd.payloadOffset + 8
            var base = moof.offset  // default-base-is-moof, and the default for a first traf
            if flags & 0x01 != 0 {
                // Past the end of the file nothing is whole; clamped, so no sum can overflow.
                base = Int(min(try view.uint64(field, "the tfhd base data offset"), UInt64(view.count) + 1))
                field += 8
            }
            if flags & 0x02 != 0 { field += 4 }  // sample-description-index
            if flags & 0x08 != 0 { field += 4 }  // default-sample-duration
            var defaultSize: Int?
            if flags & 0x10 != 0 { defaultSize = Int(try view.uint32(field, "the tfhd default sample size")) }
            var dataOffset = base
            for trun in parts where trun.type == "trun" {
                let (whole, end) = try wholeSamples(trun, base: base, next: dataOffset, defaultSize: defaultSize, in: view)
                count += whole
                dataOffset = end
            }
        }
        return count
    }

    /// How many of a `trun`'s samples end inside the file, and where its data ends.
    private static func wholeSamples(_ trun: MP4Box, base: Int, next: Int, defaultSize: Int?,
                                     in view: ByteView) throws(MediaError) -> (Int, Int) {
        let p = trun.payloadOffset
        let flags = try view.uint32(p, "the trun flags") & 0xFF_FFFF
        let samples = Int(try view.uint32(p + 4, "the trun sample count"))
        var field = p + 8
        var position = next
        if flags & 0x01 != 0 {
            position = base + Int(try view.int32(field, "the trun data offset"))
            field += 4
        }
        if flags & 0x04 != 0 { field += 4 }  // first-sample-flags
        let hasSize = flags & 0x200 != 0
        if !hasSize {
            guard let size = defaultSize, size > 0 else { return (samples, position) }  // sizes unknown: trust the index
            let whole = max(0, min(samples, (view.count - position) / size))
            return (whole, position + whole * size)
        }
        // Each sample's record: duration, size, flags, composition offset, as the flags say.
        let before = flags & 0x100 != 0 ? 4 : 0
        let record = before + 4 + (flags & 0x400 != 0 ? 4 : 0) + (flags & 0x800 != 0 ? 4 : 0)
        var whole = 0
        for i in 0..<samples {
            position += Int(try view.uint32(field + i * record + before, "a trun sample size"))
            if position <= view.count { whole += 1 }
        }
        return (whole, position)
    }
}
