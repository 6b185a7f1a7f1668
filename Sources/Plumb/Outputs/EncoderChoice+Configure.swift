import GStreamer

extension EncoderChoice {
    /// Sets up `encoder` (made from `self.encoder`) the way recordings are encoded: no
    /// look-ahead or B-frames (a frame in is a frame out, decode order is display order),
    /// at most `gop` frames between keyframes, `bitrate` kbit/s or the encoder's default —
    /// in each encoder's own terms (`EncodingSettings`: x264's properties, the V4L2
    /// encoders' extra-controls, VA's properties). Shared by `RecordingOutput`'s settings
    /// and `MainEncodingOutput`, so an event clip is encoded like a recording.
    func configure(_ encoder: Element, gop: Int, bitrate: Int?) throws {
        try EncodingSettings(bitrate: bitrate, keyframeInterval: gop, zeroLatency: true).apply(to: encoder, as: candidate)
    }
}
