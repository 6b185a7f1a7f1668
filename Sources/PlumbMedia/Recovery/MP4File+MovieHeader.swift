extension MP4File {
    /// Whether the file has a complete movie header (`moov`) among its top-level boxes:
    /// without one no reader can play it (a recording cut in its first fragment). Reads
    /// box headers only; false for a file that is not an MP4 or cannot be read.
    public static func hasMovieHeader(path: String) -> Bool {
        let found = try? withMappedBytes(of: path) { (view: ByteView) throws(MediaError) -> Bool in
            try topLevelBoxes(view).contains { $0.type == "moov" }
        }
        return found == true
    }
}
