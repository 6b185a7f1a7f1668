/// One sample of a track (a video frame): where its bytes are in the file and how it plays.
struct MP4Sample: Sendable, Equatable {
    /// From the start of the file.
    var offset: Int
    var size: Int
    /// In the track's media timescale.
    var duration: UInt32
    /// Presentation time minus decoding time (`ctts`, a `trun` composition offset).
    var compositionOffset: Int32 = 0
    /// A random access point (`stss`; the sample flags of a fragment).
    var isSync = true
    /// Which entry of `stsd` describes it (1-based).
    var descriptionIndex: UInt32 = 1

    var end: Int { offset + size }

    /// Whether its bytes are all inside a file of `length` bytes.
    func isWhole(inFileOf length: Int) -> Bool { offset >= 0 && size >= 0 && offset <= length - size }
}
