/// The samples a track's sample table (`stbl`) indexes: sizes (`stsz`), chunks (`stco` or
/// `co64`, grouped by `stsc`), durations (`stts`), composition offsets (`ctts`) and random
/// access points (`stss`). A fragmented file's header indexes its first fragment this way.
enum MP4SampleTable {
    static func samples(in stbl: MP4Box, view: ByteView) throws(MediaError) -> [MP4Sample] {
        let parts = try MP4Box.children(of: stbl, in: view)
        func part(_ type: String) -> MP4Box? { parts.first { $0.type == type } }
        guard let stsz = part("stsz") else {
            throw .malformed("the sample table at \(stbl.offset) has no sample sizes (stsz)")
        }
        let sizes = try sampleSizes(stsz, view: view)
        guard !sizes.isEmpty else { return [] }
        guard let chunks = part("stco") ?? part("co64"), let stsc = part("stsc") else {
            throw .malformed("the sample table at \(stbl.offset) has samples but no chunks (stco/co64, stsc)")
        }
        var samples = try placed(sizes, chunks: chunks, stsc: stsc, view: view)
        try setDurations(&samples, part("stts"), view: view)
        if let ctts = part("ctts") { try setCompositionOffsets(&samples, ctts, view: view) }
        if let stss = part("stss") { try setSyncSamples(&samples, stss, view: view) }
        return samples
    }

    /// A FullBox table's entry count and where its entries start, checked to fit in the box.
    /// `skip`: bytes between the version/flags and the count.
    static func table(_ box: MP4Box, entrySize: Int, skip: Int = 0, view: ByteView) throws(MediaError)
        -> (count: Int, start: Int)
    {
        let countOffset = box.payloadOffset + 4 + skip
        let count = Int(try view.uint32(countOffset, "the \(box.type) entry count"))
        let start = countOffset + 4
        guard count <= (box.end - start) / entrySize else {
            throw .malformed("\(box.type) at \(box.offset) claims \(count) entries, more than its \(box.size) bytes hold")
        }
        return (count, start)
    }

    private static func sampleSizes(_ stsz: MP4Box, view: ByteView) throws(MediaError) -> [Int] {
        let fixed = Int(try view.uint32(stsz.payloadOffset + 4, "the stsz sample size"))
        guard fixed == 0 else {
            let count = Int(try view.uint32(stsz.payloadOffset + 8, "the stsz sample count"))
            // Each sample is at least a byte: a count beyond that is damage, not a file.
            guard count <= view.count else { throw .malformed("stsz at \(stsz.offset) claims \(count) samples") }
            return Array(repeating: fixed, count: count)
        }
        let (count, start) = try table(stsz, entrySize: 4, skip: 4, view: view)
        var sizes: [Int] = []
        sizes.reserveCapacity(count)
        for i in 0..<count { sizes.append(Int(try view.uint32(start + 4 * i, "a stsz entry"))) }
        return sizes
    }

    /// Each sample's offset: chunk by chunk, the samples `stsc` gives each chunk, one after another.
    private static func placed(_ sizes: [Int], chunks: MP4Box, stsc: MP4Box, view: ByteView) throws(MediaError)
        -> [MP4Sample]
    {
        let wide = chunks.type == "co64"
        let (chunkCount, chunkStart) = try table(chunks, entrySize: wide ? 8 : 4, view: view)
        let (runCount, runStart) = try table(stsc, entrySize: 12, view: view)
        var samples: [MP4Sample] = []
        samples.reserveCapacity(sizes.count)
        for run in 0..<runCount {
            let entry = runStart + 12 * run
            let firstChunk = Int(try view.uint32(entry, "a stsc first chunk"))
            let perChunk = Int(try view.uint32(entry + 4, "a stsc samples per chunk"))
            let description = try view.uint32(entry + 8, "a stsc sample description index")
            let nextFirst = run + 1 < runCount ? Int(try view.uint32(entry + 12, "a stsc first chunk")) : chunkCount + 1
            guard firstChunk >= 1, nextFirst > firstChunk || run + 1 == runCount else {
                throw .malformed("stsc at \(stsc.offset) has chunk numbers out of order (entry \(run + 1))")
            }
            for chunk in firstChunk..<max(firstChunk, min(nextFirst, chunkCount + 1)) {
                let at = chunkStart + (chunk - 1) * (wide ? 8 : 4)
                var offset = wide ? Int(clamping: try view.uint64(at, "a co64 chunk offset"))
                    : Int(try view.uint32(at, "a stco chunk offset"))
                for _ in 0..<min(perChunk, sizes.count - samples.count) {
                    let size = sizes[samples.count]
                    samples.append(MP4Sample(offset: offset, size: size, duration: 0, descriptionIndex: description))
                    offset = try sum(offset, size)
                }
            }
        }
        guard samples.count == sizes.count else {
            throw .malformed("the chunks (stco/stsc) place \(samples.count) of the \(sizes.count) samples stsz sizes")
        }
        return samples
    }

    private static func setDurations(_ samples: inout [MP4Sample], _ stts: MP4Box?, view: ByteView) throws(MediaError) {
        guard let stts else { throw .malformed("a sample table has samples but no durations (stts)") }
        let (count, start) = try table(stts, entrySize: 8, view: view)
        var i = 0
        var last: UInt32 = 0
        for entry in 0..<count where i < samples.count {
            let n = Int(try view.uint32(start + 8 * entry, "a stts sample count"))
            last = try view.uint32(start + 8 * entry + 4, "a stts sample delta")
            for _ in 0..<min(n, samples.count - i) {
                samples[i].duration = last
                i += 1
            }
        }
        // Samples stts leaves out last as long as the last ones it lists.
        while i < samples.count {
            samples[i].duration = last
            i += 1
        }
    }

    private static func setCompositionOffsets(_ samples: inout [MP4Sample], _ ctts: MP4Box, view: ByteView)
        throws(MediaError)
    {
        let (count, start) = try table(ctts, entrySize: 8, view: view)
        var i = 0
        for entry in 0..<count where i < samples.count {
            let n = Int(try view.uint32(start + 8 * entry, "a ctts sample count"))
            // Version 0 is unsigned, version 1 signed; offsets past 2^31 are nonsense in either.
            let offset = try view.int32(start + 8 * entry + 4, "a ctts sample offset")
            for _ in 0..<min(n, samples.count - i) {
                samples[i].compositionOffset = offset
                i += 1
            }
        }
    }

    private static func setSyncSamples(_ samples: inout [MP4Sample], _ stss: MP4Box, view: ByteView) throws(MediaError) {
        let (count, start) = try table(stss, entrySize: 4, view: view)
        for i in samples.indices { samples[i].isSync = false }
        for entry in 0..<count {
            let number = Int(try view.uint32(start + 4 * entry, "a stss sample number"))
            if number >= 1 && number <= samples.count { samples[number - 1].isSync = true }
        }
    }

    /// `a + b`, or an error when damaged sizes would overflow.
    static func sum(_ a: Int, _ b: Int) throws(MediaError) -> Int {
        let (result, overflow) = a.addingReportingOverflow(b)
        guard !overflow else { throw .malformed("sample offsets overflow: \(a) + \(b)") }
        return result
    }
}
