/// A storm of device turns shared by the rotation tests of the coordinator and of the session.
public enum RotationStorm {
    /// 20 device rotations, each different from the one before, 50 ms apart (the last at 950 ms).
    public static let degrees = [90, 180, 270, 0, 180, 90, 270, 180, 0, 90, 270, 0, 90, 180, 0, 270, 90, 0, 180, 270]
}
