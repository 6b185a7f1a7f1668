extension ExifTIFF {
    /// The tags EXIF 2.32 requires of a JPEG's primary image (its "Tag Support Levels" for
    /// compressed data), which jifmux leaves out:
    /// - IFD0: XResolution, YResolution and ResolutionUnit (72 dpi, the standard's default,
    ///   when not there), YCbCrPositioning (1, centred, as JPEG samples its chroma);
    /// - Exif IFD: FlashpixVersion (0100) and ColorSpace (1, sRGB) when not there;
    ///   ComponentsConfiguration, PixelXDimension and PixelYDimension always, from the
    ///   JPEG's own frame header. (ExifVersion, also required, is `setTimes`'s.)
    package mutating func setImage(_ frame: JPEGSegments.Frame) {
        if ifd0.entry(Tag.xResolution) == nil { ifd0.set(rationals(Tag.xResolution, [(72, 1)])) }
        if ifd0.entry(Tag.yResolution) == nil { ifd0.set(rationals(Tag.yResolution, [(72, 1)])) }
        if ifd0.entry(Tag.resolutionUnit) == nil { ifd0.set(short(Tag.resolutionUnit, 2)) }  // inches
        if ifd0.entry(Tag.yCbCrPositioning) == nil { ifd0.set(short(Tag.yCbCrPositioning, 1)) }
        var exif = ifd0.children[Tag.exifIFD] ?? Directory()
        if exif.entry(Tag.flashpixVersion) == nil {
            exif.set(Entry(tag: Tag.flashpixVersion, type: 7, count: 4, value: Array("0100".utf8)))
        }
        if exif.entry(Tag.colorSpace) == nil { exif.set(short(Tag.colorSpace, 1)) }
        // Y, Cb, Cr (1, 2, 3); a grey JPEG has Y alone.
        exif.set(Entry(tag: Tag.componentsConfiguration, type: 7, count: 4,
                       value: frame.components == 1 ? [1, 0, 0, 0] : [1, 2, 3, 0]))
        exif.set(long(Tag.pixelXDimension, UInt32(frame.width)))
        exif.set(long(Tag.pixelYDimension, UInt32(frame.height)))
        setSubdirectory(Tag.exifIFD, exif)
    }

    /// A SHORT entry in this structure's byte order.
    func short(_ tag: UInt16, _ value: UInt16) -> Entry {
        let big = [UInt8(value >> 8), UInt8(value & 0xFF)]
        return Entry(tag: tag, type: 3, count: 1, value: littleEndian ? big.reversed() : big)
    }

    /// A LONG entry in this structure's byte order.
    func long(_ tag: UInt16, _ value: UInt32) -> Entry {
        let big = [UInt8(value >> 24), UInt8(value >> 16 & 0xFF), UInt8(value >> 8 & 0xFF), UInt8(value & 0xFF)]
        return Entry(tag: tag, type: 4, count: 1, value: littleEndian ? big.reversed() : big)
    }
}
