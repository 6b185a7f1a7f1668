/// Which way a camera looks: away from the viewer (back) or at the viewer (front).
///
/// A front camera sees the device turn the other way round, so its capture
/// angle turns against the device's rotation (90 and 270 swap).
public enum CameraFacing: String, Sendable, CaseIterable, CustomStringConvertible {
    case back
    case front

    public var description: String { rawValue }
}
