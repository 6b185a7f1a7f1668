import GStreamer

/// Auto exposure, focus and white balance frozen at what they chose, for a capture, and
/// then released: `freeze` is the batch that switches each auto mode that is on to manual
/// with the value it had reached (read while still under auto), `release` the one that
/// puts the modes back as they were. Modes already manual are left alone.
public struct CameraControlLock: Sendable {
    public var freeze: [(V4L2ControlInfo, V4L2ControlValue)]
    public var release: [(V4L2ControlInfo, V4L2ControlValue)]

    public init(controls: [V4L2ControlInfo], values: [UInt32: V4L2ControlValue]) {
        typealias ID = CameraControlID
        var byID: [UInt32: V4L2ControlInfo] = [:]
        for control in controls where !control.flags.contains(.disabled) { byID[control.id] = control }
        freeze = []
        release = []
        // (auto control, its manual value, the value it drives)
        let pairs: [(UInt32, Int64, UInt32)] = [
            (ID.exposureAuto, 1, ID.exposureAbsolute), (ID.autoGain, 0, ID.gain),
            (ID.focusAuto, 0, ID.focusAbsolute), (ID.autoWhiteBalance, 0, ID.whiteBalanceTemperature),
        ]
        for (autoID, manual, valueID) in pairs {
            guard let mode = byID[autoID], !mode.flags.contains(.readOnly), let current = values[autoID]?.integer,
                  current != manual, mode.kind != .menu || mode.menu.contains(where: { $0.index == manual }) else { continue }
            freeze.append((mode, .integer(manual)))
            if let driven = byID[valueID], !driven.flags.contains(.readOnly), let reached = values[valueID] {
                freeze.append((driven, reached))
            }
            release.append((mode, .integer(current)))
        }
    }
}
