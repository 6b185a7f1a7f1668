import GStreamer

/// The cameras GstDeviceMonitor sees, in a shape for people and for JSON.
public struct CameraList {
    public struct Camera: Codable, Sendable {
        public var name: String
        public var path: String?
        /// What `--camera` takes for a camera without a device node: "libcamera:ID".
        public var source: String?
        public var formats: [Format]
    }

    public struct Format: Codable, Sendable {
        /// "video/x-raw", "image/jpeg"
        public var mediaType: String
        /// "YUY2", "NV12" (raw formats only)
        public var format: String?
        /// "640x480", or ranges such as "[ 16, 4096 ]x[ 16, 2160 ]"
        public var size: String
        public var framerates: [String]

        enum CodingKeys: String, CodingKey {
            case mediaType = "media_type", format, size, framerates
        }
    }

    /// Lists the video sources now present.
    public static func current() throws -> [Camera] {
        try DeviceMonitor.devices(ofClass: "Video/Source").map { device in
            // libcamera's provider lists its cameras by id, without a device node.
            let isLibcamera = device.elementFactory == "libcamerasrc"
            return Camera(name: device.name, path: isLibcamera ? nil : device.path,
                          source: isLibcamera ? CameraSource.libcameraPrefix + device.name : nil,
                          formats: device.caps.map(formats) ?? [])
        }
    }

    /// One format per media type, pixel format and size, in the caps' order, with the
    /// rates of every structure that has them. v4l2src lists a size twice when the driver
    /// also offers it as alternate fields (vivid: each size once progressive, once
    /// `interlace-mode=alternate`), which reads as a duplicate line.
    public static func formats(_ caps: Caps) -> [Format] {
        var merged: [Format] = []
        for format in caps.structures.map(format) {
            if let i = merged.firstIndex(where: {
                $0.mediaType == format.mediaType && $0.format == format.format && $0.size == format.size
            }) {
                merged[i].framerates += format.framerates.filter { !merged[i].framerates.contains($0) }
            } else {
                merged.append(format)
            }
        }
        return merged
    }

    static func format(_ s: Structure) -> Format {
        let width = s.serialized("width") ?? "?"
        let height = s.serialized("height") ?? "?"
        return Format(mediaType: s.name, format: s.string("format") ?? s.values("format").first,
                      size: "\(width)x\(height)", framerates: s.values("framerate"))
    }
}
