/// The samples of movie fragments (`moof`): each track fragment (`traf`) and its runs
/// (`trun`), with the defaults of its header (`tfhd`) and of the movie's `trex`.
enum MP4Fragments {
    /// What a fragment's samples are when their run does not say (`trex`, then `tfhd`).
    struct Defaults: Equatable {
        var descriptionIndex: UInt32 = 1
        var duration: UInt32 = 0
        var size: UInt32 = 0
        var flags: UInt32 = 0
    }

    /// `moov/mvex/trex` by track ID; empty when the movie has no fragments.
    static func trackDefaults(moov: MP4Box, view: ByteView) throws(MediaError) -> [UInt32: Defaults] {
        var result: [UInt32: Defaults] = [:]
        for mvex in try MP4Box.children(of: moov, in: view) where mvex.type == "mvex" {
            for trex in try MP4Box.children(of: mvex, in: view) where trex.type == "trex" {
                // Version and flags (4), track_ID, then the four defaults: 4 bytes each.
                let p = trex.payloadOffset
                result[try view.uint32(p + 4, "the trex track ID")] = Defaults(
                    descriptionIndex: try view.uint32(p + 8, "a trex default"),
                    duration: try view.uint32(p + 12, "a trex default"),
                    size: try view.uint32(p + 16, "a trex default"),
                    flags: try view.uint32(p + 20, "a trex default"))
            }
        }
        return result
    }

    /// The samples of every track in one fragment, by track ID, in decoding order.
    static func samples(in moof: MP4Box, defaults: [UInt32: Defaults], view: ByteView) throws(MediaError)
        -> [UInt32: [MP4Sample]]
    {
        var result: [UInt32: [MP4Sample]] = [:]
        // Without an explicit base, the first traf's data is counted from the moof, the
        // next one's from where the previous one's data ended (ISO/IEC 14496-12 8.8.7).
        var previousEnd = moof.offset
        for traf in try MP4Box.children(of: moof, in: view) where traf.type == "traf" {
            let parts = try MP4Box.children(of: traf, in: view)
            guard let tfhd = parts.first(where: { $0.type == "tfhd" }) else {
                throw .malformed("track fragment at \(traf.offset) has no header (tfhd)")
            }
            let (id, base, local) = try header(tfhd, defaults: defaults, moof: moof, previousEnd: previousEnd, view: view)
            var position = base
            for trun in parts where trun.type == "trun" {
                try run(trun, base: base, continuing: position, defaults: local, into: &result[id, default: []],
                        end: &position, view: view)
            }
            previousEnd = position
        }
        return result
    }

    /// The track ID, the base data offset and the defaults a `tfhd` sets.
    private static func header(_ tfhd: MP4Box, defaults: [UInt32: Defaults], moof: MP4Box, previousEnd: Int,
                               view: ByteView) throws(MediaError) -> (UInt32, Int, Defaults)
    {
        let p = tfhd.payloadOffset
        let flags = try view.uint32(p, "the tfhd flags") & 0xFF_FFFF
        let id = try view.uint32(p + 4, "the tfhd track ID")
        var local = defaults[id] ?? Defaults()
        var field = p + 8
        var base = flags & 0x2_0000 != 0 ? moof.offset : previousEnd  // default-base-is-moof
        if flags & 0x01 != 0 {
            // Past the end of the file nothing is whole; clamped so that no sum overflows.
            base = Int(min(try view.uint64(field, "the tfhd base data offset"), UInt64(view.count) + 1))
            field += 8
        }
        if flags & 0x02 != 0 { local.descriptionIndex = try view.uint32(field, "a tfhd default"); field += 4 }
        if flags & 0x08 != 0 { local.duration = try view.uint32(field, "a tfhd default"); field += 4 }
        if flags & 0x10 != 0 { local.size = try view.uint32(field, "a tfhd default"); field += 4 }
        if flags & 0x20 != 0 { local.flags = try view.uint32(field, "a tfhd default") }
        return (id, base, local)
    }

    /// Appends a `trun`'s samples; `end` becomes where its data ends. The data starts at
    /// `base` plus the run's data offset, or right after the previous run's (`continuing`).
    private static func run(_ trun: MP4Box, base: Int, continuing: Int, defaults: Defaults,
                            into samples: inout [MP4Sample], end: inout Int, view: ByteView) throws(MediaError)
    {
        let p = trun.payloadOffset
        let versionAndFlags = try view.uint32(p, "the trun flags")
        let flags = versionAndFlags & 0xFF_FFFF
        let count = Int(try view.uint32(p + 4, "the trun sample count"))
        var field = p + 8
        var position = continuing
        if flags & 0x01 != 0 {
            position = try MP4SampleTable.sum(base, Int(try view.int32(field, "the trun data offset")))
            field += 4
        }
        var firstFlags: UInt32?
        if flags & 0x04 != 0 { firstFlags = try view.uint32(field, "the trun first sample flags"); field += 4 }
        let has = (duration: flags & 0x100 != 0, size: flags & 0x200 != 0, flags: flags & 0x400 != 0,
                   composition: flags & 0x800 != 0)
        let record = 4 * [has.duration, has.size, has.flags, has.composition].filter { $0 }.count
        guard record == 0 ? count <= view.count : count <= (trun.end - field) / record else {
            throw .malformed("trun at \(trun.offset) claims \(count) samples, more than it holds")
        }
        for i in 0..<count {
            var at = field + i * record
            func next() throws(MediaError) -> UInt32 {
                defer { at += 4 }
                return try view.uint32(at, "a trun sample record")
            }
            let duration = try has.duration ? next() : defaults.duration
            let size = Int(try has.size ? next() : defaults.size)
            let sampleFlags = try has.flags ? next() : (i == 0 ? firstFlags : nil) ?? defaults.flags
            // Version 0 stores the offset unsigned, version 1 signed: the same 32 bits.
            let composition = try has.composition ? Int32(bitPattern: next()) : 0
            samples.append(MP4Sample(offset: position, size: size, duration: duration, compositionOffset: composition,
                                     isSync: sampleFlags & 0x1_0000 == 0,  // sample_is_non_sync_sample
                                     descriptionIndex: defaults.descriptionIndex))
            position = try MP4SampleTable.sum(position, size)
        }
        end = position
    }
}
