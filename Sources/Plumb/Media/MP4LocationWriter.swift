import GStreamer
import PlumbLocation
import PlumbMedia
import Synchronization

/// Writes where a recording started into its MP4 as mp4mux produces it: a global comment
/// tag on the muxer reserves the room (`MP4LocationPatcher.placeholder`), and a buffer
/// probe on the muxer's src pad turns it into `moov/udta/©xyz` in every movie header the
/// muxer pushes (the first of a fragmented file, the final one, each rewrite), like
/// `MP4MatrixWriter.Probe` does with the track matrix.
///
/// A header without the placeholder is passed on unchanged and recorded in
/// `statistics.failures`: the recording is never lost for its location.
public final class MP4LocationWriter: Sendable {
    public let location: GeoLocation
    /// The ISO 6709 text written.
    public let iso6709: String
    private let box: [UInt8]
    private let placeholder: String

    public struct Statistics: Sendable, Equatable {
        /// Movie header buffers rewritten.
        public var headers = 0
        /// Why a header could not be rewritten.
        public var failures: [String] = []
    }

    private let state = Mutex(Statistics())

    public init(location: GeoLocation) {
        self.location = location
        iso6709 = MP4LocationPatcher.iso6709(location)
        box = MP4LocationPatcher.locationBox(iso6709)
        placeholder = MP4LocationPatcher.placeholder(for: box)
    }

    public var statistics: Statistics { state.withLock { $0 } }

    /// Gives `muxer` (mp4mux) the placeholder tag and installs the probe on its "src" pad.
    /// Before the muxer writes its first header (before PLAYING).
    /// - Throws: `CaptureError.invalidArgument` for an element that is no muxer (Plumb's
    ///   word: GStreamer reported nothing); a tag GStreamer refuses, as GStreamer said it.
    public func install(on muxer: Element) throws {
        guard let pad = muxer.staticPad("src") else {
            throw CaptureError.invalidArgument("\(muxer.name) has no \"src\" pad: it is not a muxer Plumb can locate")
        }
        var tags = TagList()
        try tags.set(TagList.comment, placeholder)
        try tags.apply(to: muxer, mode: .replace)
        pad.addProbe(.buffer) { [self] info in
            handle(info)
            return .ok
        }
    }

    /// The muxer's streaming thread: rewrites bytes and counts.
    private func handle(_ info: ProbeInfo) {
        guard info.withBufferBytes({ MP4MatrixWriter.containsMovieHeader($0) }) == true else { return }
        let box = self.box, placeholder = self.placeholder
        let result: Result<Int, MediaError>? = info.withWritableBufferBytes { bytes in
            do throws(MediaError) {
                return .success(try MP4LocationPatcher.patch(bytes, box: box, placeholder: placeholder))
            } catch {
                return .failure(error)
            }
        }
        state.withLock { s in
            switch result {
            case .success(let headers)?: s.headers += headers
            case .failure(let error)?: s.failures.append("movie header left without its location: \(error)")
            case nil: s.failures.append("movie header buffer could not be mapped for writing")
            }
        }
    }
}
