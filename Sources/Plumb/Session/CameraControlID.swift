/// The standard V4L2 control IDs the plain control names map to (linux/v4l2-controls.h).
public enum CameraControlID {
    public static let brightness: UInt32 = 0x0098_0900 // V4L2_CID_BRIGHTNESS
    public static let contrast: UInt32 = 0x0098_0901 // V4L2_CID_CONTRAST
    public static let saturation: UInt32 = 0x0098_0902 // V4L2_CID_SATURATION
    public static let autoWhiteBalance: UInt32 = 0x0098_090c // V4L2_CID_AUTO_WHITE_BALANCE
    public static let autoGain: UInt32 = 0x0098_0912 // V4L2_CID_AUTOGAIN
    public static let gain: UInt32 = 0x0098_0913 // V4L2_CID_GAIN
    public static let powerLineFrequency: UInt32 = 0x0098_0918 // V4L2_CID_POWER_LINE_FREQUENCY
    public static let whiteBalanceTemperature: UInt32 = 0x0098_091a // V4L2_CID_WHITE_BALANCE_TEMPERATURE
    public static let sharpness: UInt32 = 0x0098_091b // V4L2_CID_SHARPNESS
    public static let exposureAuto: UInt32 = 0x009a_0901 // V4L2_CID_EXPOSURE_AUTO
    public static let exposureAbsolute: UInt32 = 0x009a_0902 // V4L2_CID_EXPOSURE_ABSOLUTE (100 µs units)
    public static let focusAbsolute: UInt32 = 0x009a_090a // V4L2_CID_FOCUS_ABSOLUTE
    public static let focusAuto: UInt32 = 0x009a_090c // V4L2_CID_FOCUS_AUTO (continuous)
    public static let zoomAbsolute: UInt32 = 0x009a_090d // V4L2_CID_ZOOM_ABSOLUTE
    public static let autoExposureBias: UInt32 = 0x009a_0913 // V4L2_CID_AUTO_EXPOSURE_BIAS (0.001 EV)
    public static let isoSensitivity: UInt32 = 0x009a_0917 // V4L2_CID_ISO_SENSITIVITY
    public static let isoSensitivityAuto: UInt32 = 0x009a_0918 // V4L2_CID_ISO_SENSITIVITY_AUTO
    public static let threeALock: UInt32 = 0x009a_091b // V4L2_CID_3A_LOCK
    public static let autoFocusStart: UInt32 = 0x009a_091c // V4L2_CID_AUTO_FOCUS_START (single shot)
    public static let flashLEDMode: UInt32 = 0x009c_0901 // V4L2_CID_FLASH_LED_MODE
    public static let flashTorchIntensity: UInt32 = 0x009c_0908 // V4L2_CID_FLASH_TORCH_INTENSITY

    /// The plain name each ID is listed under (several IDs can share one: focus, torch).
    public static let plainNames: [UInt32: String] = [
        exposureAuto: "exposure", exposureAbsolute: "exposure-time", autoExposureBias: "exposure-bias",
        gain: "gain", autoGain: "gain", isoSensitivity: "iso", isoSensitivityAuto: "iso",
        focusAuto: "focus", autoFocusStart: "focus", focusAbsolute: "focus-distance",
        autoWhiteBalance: "white-balance", whiteBalanceTemperature: "white-balance-temperature",
        brightness: "brightness", contrast: "contrast", saturation: "saturation", sharpness: "sharpness",
        powerLineFrequency: "power-line", flashLEDMode: "torch", flashTorchIntensity: "torch", zoomAbsolute: "zoom",
    ]

    /// Every plain name, in the order the README lists them.
    public static let allPlainNames = [
        "exposure", "exposure-time", "exposure-bias", "gain", "iso", "focus", "focus-distance", "white-balance",
        "white-balance-temperature", "brightness", "contrast", "saturation", "sharpness", "power-line", "torch", "zoom",
    ]

    /// The control whose auto mode makes `id` inactive, with the plain setting that frees it.
    static let modeOf: [UInt32: (mode: UInt32, words: String)] = [
        exposureAbsolute: (exposureAuto, "exposure is auto: set exposure=manual first"),
        gain: (autoGain, "gain is auto: set gain=manual first"),
        whiteBalanceTemperature: (autoWhiteBalance, "white balance is auto: set white-balance=manual first"),
        focusAbsolute: (focusAuto, "focus is continuous: set focus=manual first"),
        isoSensitivity: (isoSensitivityAuto, "iso is auto: set a number with iso=manual first"),
    ]
}
