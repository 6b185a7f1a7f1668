import FoundationEssentials
import Glibc
import PlumbBase

extension ExifTIFF {
    /// When the picture was taken, the EXIF 2.31 way: DateTime (IFD0), DateTimeOriginal and
    /// DateTimeDigitized (Exif IFD) as the wall-clock time in `timeZone`; OffsetTime,
    /// OffsetTimeOriginal and OffsetTimeDigitized with that zone's UTC offset ("+05:30"),
    /// without which a reader cannot tell the instant; SubSecTime* with the milliseconds.
    /// ExifVersion becomes 0231, the first that has the offsets, unless it is later already.
    package mutating func setTimes(_ date: Date, timeZone: TimeZone) {
        // Whole milliseconds, as the facts' `taken_at` has them; the rest from whole seconds,
        // so the calendar's arithmetic cannot round a second up or down.
        let milliseconds = Int64((date.timeIntervalSince1970 * 1000).rounded())
        let (seconds, fraction) = milliseconds.quotientAndRemainder(dividingBy: 1000)
        let second = Date(timeIntervalSince1970: TimeInterval(seconds))
        let c = Calendar(identifier: .gregorian).dateComponents(in: timeZone, from: second)
        let local = String(cFormat: "%04d:%02d:%02d %02d:%02d:%02d", c.year!, c.month!, c.day!, c.hour!, c.minute!, c.second!)
        let offset = timeZone.secondsFromGMT(for: second)
        let zone = (offset < 0 ? "-" : "+") + String(cFormat: "%02d:%02d", abs(offset) / 3600, abs(offset) % 3600 / 60)
        let subSeconds = String(cFormat: "%03d", Int(fraction))

        ifd0.set(.ascii(Tag.dateTime, local))
        var exif = ifd0.children[Tag.exifIFD] ?? Directory()
        // "0231" or later: the version sorts as its four digits.
        let version = exif.entry(Tag.exifVersion)?.value ?? []
        if version.count != 4 || version.lexicographicallyPrecedes(Array("0231".utf8)) {
            exif.set(Entry(tag: Tag.exifVersion, type: 7, count: 4, value: Array("0231".utf8)))
        }
        for (tag, text) in [(Tag.dateTimeOriginal, local), (Tag.dateTimeDigitized, local),
                            (Tag.offsetTime, zone), (Tag.offsetTimeOriginal, zone), (Tag.offsetTimeDigitized, zone),
                            (Tag.subSecTime, subSeconds), (Tag.subSecTimeOriginal, subSeconds),
                            (Tag.subSecTimeDigitized, subSeconds)] {
            exif.set(.ascii(tag, text))
        }
        setSubdirectory(Tag.exifIFD, exif)
    }

    /// Puts `directory` under IFD0 at the pointer `tag`, adding the pointer entry if needed
    /// (its value is written with the layout).
    mutating func setSubdirectory(_ tag: UInt16, _ directory: Directory) {
        if ifd0.entry(tag) == nil { ifd0.set(Entry(tag: tag, type: 4, count: 1, value: [0, 0, 0, 0])) }
        ifd0.children[tag] = directory
    }
}

extension ExifTIFF.Entry {
    /// An ASCII entry: the text and its terminating NUL.
    static func ascii(_ tag: UInt16, _ text: String) -> Self {
        let value = Array(text.utf8) + [0]
        return Self(tag: tag, type: 2, count: UInt32(value.count), value: value)
    }
}
