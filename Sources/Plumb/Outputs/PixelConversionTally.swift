/// What videoconvert did to a recording branch's frames: how many it made anew (a copy)
/// instead of passing the tee's buffer through, and the conversion, from the first copy on.
/// Fed by probes on its two pads: a frame that leaves as another buffer than the one that
/// entered last was copied.
struct PixelConversionTally: Sendable {
    private(set) var copied = 0
    /// "YUY2 -> I420", once a frame was copied.
    private(set) var conversion: String?
    private var lastInput: UInt?
    private var inputFormat: String?

    /// A frame entered (its buffer's identity): whether the input format is still wanted
    /// (read it from the pad's caps for `input(format:)`).
    mutating func entered(_ identity: UInt?) -> Bool {
        lastInput = identity
        return conversion == nil
    }

    mutating func input(format: String) { inputFormat = format }

    /// A frame left (its buffer's identity): whether it was a copy and the conversion is
    /// still to be noted (read the output format for `converted(to:)`).
    mutating func left(_ identity: UInt?) -> Bool {
        guard identity != lastInput else { return false }
        copied += 1
        return conversion == nil
    }

    mutating func converted(to format: String) {
        conversion = "\(inputFormat ?? "?") -> \(format)"
    }
}
