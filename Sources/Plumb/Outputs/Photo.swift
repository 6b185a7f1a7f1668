import FoundationEssentials
import Glibc

/// A JPEG and its facts.
public struct Photo: Sendable {
    public var jpeg: Data
    public var facts: PhotoFacts
    /// The frame's timestamp on the session's clock (running time, nanoseconds).
    public var frameTime: UInt64?
    /// The sequence number of the frame within the photo output (equal for photos from one frame).
    public var frameNumber: Int
}
