import Foundation

extension MuxedRecording {
    /// `frames` of `videotestsrc` at 320x240 through x264enc into `mp4mux PROPERTIES`
    /// ("fragment-duration=200" ...): the files of the MP4 reader's, the inspector's and the
    /// thumbnail's tests (moved here from MP4FileTests, which the thumbnail's target cannot see).
    public static func mp4(_ path: String, muxer properties: String, frames: Int = 30) throws {
        try IndependentReaders.gstLaunch("videotestsrc num-buffers=\(frames) ! video/x-raw,width=320,height=240 "
            + "! x264enc speed-preset=ultrafast ! h264parse ! mp4mux \(properties) ! filesink location=\(path)")
    }
}
