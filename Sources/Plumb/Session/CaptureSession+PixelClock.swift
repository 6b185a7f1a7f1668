import GStreamer

extension CaptureSession {
    /// Writes the wall clock into every frame leaving `element` ("test:clock"), at the
    /// moment the test pattern made it: the capture time glass-to-glass is measured from.
    static func stampClock(on element: Element, size: VideoSize) {
        // The tee's caps are I420 with GStreamer's default stride (width rounded up to 4).
        let stride = (size.width + 3) / 4 * 4
        _ = element.staticPad("src")?.addProbe(.buffer) { info in
            let code = PixelClock.code(milliseconds: PixelClock.now())
            _ = info.withWritableBufferBytes { bytes in
                PixelClock.write(code, into: bytes, width: size.width, height: size.height, stride: stride)
            }
            return .ok
        }
    }
}
