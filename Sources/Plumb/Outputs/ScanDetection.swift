import FoundationEssentials
import Glibc
import PlumbBase
import PlumbLocation

/// One code the scanner found: reported once while it stays in view (see `ScanOptions.forgetAfter`).
public struct ScanDetection: Sendable, Hashable {
    public var symbology: Symbology
    /// The code's bytes, exactly as encoded.
    public var data: Data
    /// zbar's quality: for linear codes how many scan lines read it; 1 for QR codes.
    public var quality: Int
    /// Where it lies, in normalised coordinates of the upright picture (the capture angle applied).
    public var bounds: NormalizedRect
    /// The frame's time (its buffer timestamp, nanoseconds), and the wall-clock time it was read.
    public var frameTime: UInt64?
    public var date: Date

    /// The data as text when it is valid UTF-8.
    public var text: String? { String(validating: data, as: UTF8.self) }

    /// One line of JSON: symbology, text (valid UTF-8) or base64 (otherwise), quality,
    /// bounds {x,y,width,height}, time (ISO 8601).
    public var jsonLine: String {
        struct Line: Encodable {
            var symbology: String, quality: Int, time: String, bounds: NormalizedRect, text: String?, base64: String?
        }
        return JSONLine.encode(Line(symbology: symbology.rawValue, quality: quality, time: date.iso8601Milliseconds,
                                    bounds: bounds, text: text, base64: text == nil ? data.base64EncodedString() : nil))
    }
}
