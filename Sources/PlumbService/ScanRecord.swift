import FoundationEssentials
import Glibc
import Plumb
import PlumbLocation

/// A detection as `barcode` events and `GET /scans` give it.
public struct ScanRecord: Sendable, Codable, Equatable {
    public var symbology: String
    /// The data when it is valid UTF-8.
    public var text: String?
    /// The data in base64 when it is not.
    public var base64: String?
    public var quality: Int
    /// Normalised in the upright picture.
    public var bounds: NormalizedRect
    public var time: String
    /// The still saved with it (`[scan] photo`), by name in the recordings folder.
    public var photo: String?

    init(_ d: ScanDetection, photo: String? = nil) {
        symbology = d.symbology.rawValue
        text = d.text
        base64 = d.text == nil ? d.data.base64EncodedString() : nil
        quality = d.quality
        bounds = d.bounds
        time = d.date.iso8601Milliseconds
        self.photo = photo
    }
}
