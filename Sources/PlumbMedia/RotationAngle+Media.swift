import PlumbRotation

/// What an angle is called in media files and GStreamer elements.
extension RotationAngle {
    /// The GStreamer `image-orientation` tag value ("rotate-90"): jifmux turns it into EXIF Orientation.
    public var imageOrientationTag: String { "rotate-\(rawValue)" }

    /// The EXIF Orientation number: 1 normal, 6 rotate 90 CW, 3 rotate 180, 8 rotate 270 CW.
    public var exifOrientation: Int { ExifOrientation(rotation: self).rawValue }

    /// The `videoflip` `video-direction` nick that turns the pixels upright.
    public var videoDirection: String {
        switch self {
        case .degrees0: return "identity"
        case .degrees90: return "90r"
        case .degrees180: return "180"
        case .degrees270: return "90l"
        }
    }
}
