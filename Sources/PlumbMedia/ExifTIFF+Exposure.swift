extension ExifTIFF {
    /// How the camera exposed the picture, as far as it reports it; nil fields are not written.
    package struct Exposure {
        /// Seconds as a fraction (the driver's 100 µs units over 10000).
        package var time: (numerator: UInt32, denominator: UInt32)?
        package var program: Program?
        /// true: automatic white balance.
        package var autoWhiteBalance: Bool?
        package var iso: Int?

        package init(time: (numerator: UInt32, denominator: UInt32)?, program: Program?, autoWhiteBalance: Bool?,
                     iso: Int?) {
            self.time = time
            self.program = program
            self.autoWhiteBalance = autoWhiteBalance
            self.iso = iso
        }

        /// EXIF ExposureProgram's values for the V4L2 exposure modes.
        package enum Program: UInt16 {
            case manual = 1, normal = 2, aperturePriority = 3, shutterPriority = 4
        }

        package var isEmpty: Bool { time == nil && program == nil && autoWhiteBalance == nil && iso == nil }
    }

    enum ExposureTag {
        static let exposureTime: UInt16 = 0x829A
        static let exposureProgram: UInt16 = 0x8822
        /// ISOSpeedRatings (EXIF 2.2), PhotographicSensitivity since 2.3.
        static let photographicSensitivity: UInt16 = 0x8827
        static let sensitivityType: UInt16 = 0x8830
        static let exposureMode: UInt16 = 0xA402
        static let whiteBalance: UInt16 = 0xA403
    }

    /// The exposure in the Exif IFD: ExposureTime (RATIONAL seconds, reduced), ExposureProgram
    /// (1 manual, 2 normal, 3 aperture, 4 shutter priority) with ExposureMode (0 auto — the
    /// priority modes choose part of the exposure themselves —, 1 manual), WhiteBalance (0
    /// auto, 1 manual), PhotographicSensitivity (ISOSpeedRatings; at most 65535, the SHORT's
    /// limit the standard says to write for higher speeds) with SensitivityType 0 (unknown: V4L2
    /// does not say which of ISO 12232's measures its ISO sensitivity is).
    package mutating func setExposure(_ exposure: Exposure) {
        guard !exposure.isEmpty else { return }
        var exif = ifd0.children[Tag.exifIFD] ?? Directory()
        if let time = exposure.time, time.denominator > 0 {
            var a = time.numerator, b = time.denominator
            while b != 0 { (a, b) = (b, a % b) }
            let divisor = max(1, a)
            exif.set(rationals(ExposureTag.exposureTime, [(time.numerator / divisor, time.denominator / divisor)]))
        }
        if let program = exposure.program {
            exif.set(short(ExposureTag.exposureProgram, program.rawValue))
            exif.set(short(ExposureTag.exposureMode, program == .manual ? 1 : 0))
        }
        if let auto = exposure.autoWhiteBalance { exif.set(short(ExposureTag.whiteBalance, auto ? 0 : 1)) }
        if let iso = exposure.iso, iso > 0 {
            exif.set(short(ExposureTag.photographicSensitivity, UInt16(min(iso, 65535))))
            exif.set(short(ExposureTag.sensitivityType, 0))
        }
        setSubdirectory(Tag.exifIFD, exif)
    }
}
