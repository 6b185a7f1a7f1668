extension MP4File {
    /// The video frames a reader finds in the file: the samples of the video track's index
    /// in `moov`, plus those of the movie fragments (`moof`) whose data is in the file.
    /// What a write that failed half-way left (a box cut short, a fragment's data cut off)
    /// counts for nothing: readers skip it too.
    /// 0 when the file has no `moov` (cut before its header was written).
    public static func videoSampleCount(path: String) throws(MediaError) -> Int {
        try withMappedBytes(of: path) { (view: ByteView) throws(MediaError) -> Int in
            try MP4MovieIndex.read(view)?.videoTrack?.wholeCount ?? 0
        }
    }
}
