import Foundation
import XCTest

/// Pictures for `image:` cameras, made by independent writers: QR codes by qrencode, linear
/// barcodes by zint, placed on a white canvas and grids drawn by ffmpeg. Each file lives in
/// a directory removed when the test ends.
public struct TestPictures {
    let test: XCTestCase
    let folder: URL

    public init(_ test: XCTestCase) throws {
        self.test = test
        folder = try temporaryDirectory(test)
    }

    /// A code's PNG and its size in pixels (as ffprobe reads it).
    public struct Code {
        public var url: URL
        public var width: Int
        public var height: Int
    }

    /// A QR code of `text`, `module` pixels per module, no margin (the white canvas is its
    /// quiet zone).
    public func qr(_ text: String, module: Int = 6) throws -> Code {
        let url = folder.appendingPathComponent("qr-\(UUID().uuidString).png")
        let r = try PlumbProcess.run(PlumbProcess.tool("qrencode"), ["-o", url.path, "-s", "\(module)", "-m", "0", text])
        XCTAssertEqual(r.code, 0, r.stderr)
        return try measured(url)
    }

    /// A linear barcode by zint: `type` is zint's name (EANX for EAN-13 and EAN-8 by the
    /// data's length, UPCA, CODE128, CODE39), `scale` 1 is two pixels per module; no human
    /// readable text, zint's own quiet zones.
    public func barcode(_ type: String, _ data: String, scale: Int = 1, height: Int = 60) throws -> Code {
        let url = folder.appendingPathComponent("\(type)-\(UUID().uuidString).png")
        let r = try PlumbProcess.run(PlumbProcess.tool("zint"), ["-b", type, "-d", data, "--scale=\(scale)",
                                                               "--height=\(height)", "--notext", "-o", url.path])
        XCTAssertEqual(r.code, 0, r.stdout + r.stderr)
        return try measured(url)
    }

    /// A white `width`x`height` picture with each code at its top-left pixel, then turned
    /// `transpose` (ffmpeg's transpose filter: 2 is a quarter turn counter-clockwise) when given.
    public func picture(width: Int = 640, height: Int = 480, codes: [(Code, x: Int, y: Int)],
                        transpose: Int? = nil) throws -> URL {
        let url = folder.appendingPathComponent("picture-\(UUID().uuidString).png")
        var args = ["-v", "error", "-y", "-f", "lavfi", "-i", "color=white:s=\(width)x\(height)"]
        for code in codes { args += ["-i", code.0.url.path] }
        var filter = "[0:v]"
        for (i, code) in codes.enumerated() {
            filter += "[\(i + 1):v]overlay=\(code.x):\(code.y)[v\(i)];[v\(i)]"
        }
        filter += transpose.map { "transpose=\($0),format=rgb24" } ?? "format=rgb24"
        args += ["-filter_complex", filter, "-frames:v", "1", url.path]
        let r = try PlumbProcess.run(PlumbProcess.tool("ffmpeg"), args)
        XCTAssertEqual(r.code, 0, r.stderr)
        return url
    }

    /// A picture of one colour (ffmpeg's colour names), 320x240 unless told.
    public func plain(_ colour: String, width: Int = 320, height: Int = 240) throws -> URL {
        let url = folder.appendingPathComponent("\(colour)-\(UUID().uuidString).png")
        let r = try PlumbProcess.run(PlumbProcess.tool("ffmpeg"), ["-v", "error", "-y", "-f", "lavfi", "-i",
                                                                 "color=\(colour):s=\(width)x\(height)", "-frames:v", "1", url.path])
        XCTAssertEqual(r.code, 0, r.stderr)
        return url
    }

    /// A 640x480 white picture with a black grid: lines 2 px thick every 40 px (ffmpeg's drawgrid).
    public func grid() throws -> URL {
        let url = folder.appendingPathComponent("grid-\(UUID().uuidString).png")
        let r = try PlumbProcess.run(PlumbProcess.tool("ffmpeg"), ["-v", "error", "-y", "-f", "lavfi", "-i",
                                                                 "color=white:s=640x480,drawgrid=w=40:h=40:t=2:c=black",
                                                                 "-frames:v", "1", "-pix_fmt", "rgb24", url.path])
        XCTAssertEqual(r.code, 0, r.stderr)
        return url
    }

    private func measured(_ url: URL) throws -> Code {
        let r = try PlumbProcess.run(PlumbProcess.tool("ffprobe"), ["-v", "error", "-show_entries", "stream=width,height",
                                                                  "-of", "csv=p=0", url.path])
        let parts = r.stdout.trimmingCharacters(in: .whitespacesAndNewlines).split(separator: ",").compactMap { Int($0) }
        XCTAssertEqual(parts.count, 2, "ffprobe on \(url.lastPathComponent): \(r.stdout) \(r.stderr)")
        guard parts.count == 2 else { throw CocoaError(.fileReadCorruptFile) }
        return Code(url: url, width: parts[0], height: parts[1])
    }
}
