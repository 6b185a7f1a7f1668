import GStreamer
import PlumbMedia
import PlumbRotation
import Synchronization

/// The engine's half of `MP4MatrixWriter`: the probe that writes the matrix into the header
/// buffers mp4mux pushes (the bytes and files are PlumbMedia's, which knows no GStreamer).
extension MP4MatrixWriter: TrackMatrixWriter {
    public func install(on muxerSource: Pad, angle: RotationAngle) throws {
        // The probe holds itself for as long as the pad lives.
        Probe(rotation: angle).install(on: muxerSource)
    }

    /// Writes a recording's orientation into the MP4 as `mp4mux` produces it.
    ///
    /// GStreamer 1.22's `mp4mux` ignores the `image-orientation` tag, so this
    /// installs a buffer probe on the muxer's src pad that rewrites the video
    /// track's `tkhd` matrix in every movie header the muxer pushes. The muxer
    /// serialises each `moov` into one buffer, wherever it goes: after the media in a
    /// plain file; first in a fragmented one, and again in place at EOS with the final
    /// duration (after a seek back, when downstream can seek); first and again at the
    /// end with `fragment-mode=first-moov-then-finalise` (which seeks back and rewrites
    /// the start as `free` + `mdat`); repeatedly into reserved space in robust mode.
    /// Every such buffer starts with the top-level boxes, so it is recognised by its
    /// content and patched wherever the preceding segment event puts it: no offset
    /// bookkeeping is needed, and the other buffers (media data, the `mdat` size
    /// rewritten after a seek) pass untouched after a header-only check.
    ///
    /// The angle is fixed for the writer's life: the one latched when the recording
    /// started. A header that cannot be parsed is passed on unchanged and recorded
    /// in `statistics.failures`: the recording is never lost for its orientation.
    public final class Probe: Sendable {
        public let rotation: RotationAngle

        public struct Statistics: Sendable, Equatable {
            /// Movie header buffers rewritten.
            public var headers = 0
            /// Video track headers rewritten in them.
            public var tracks = 0
            /// Header buffers that had to be copied because another reference was held.
            public var copies = 0
            /// Why a header could not be rewritten.
            public var failures: [String] = []
        }

        private let state = Mutex(Statistics())

        public init(rotation: RotationAngle) {
            self.rotation = rotation
        }

        public var statistics: Statistics { state.withLock { $0 } }

        /// Installs the probe on `muxer`'s "src" pad; returns the probe id (`Pad.removeProbe`).
        /// Install it before the muxer produces its first header (before PLAYING).
        @discardableResult
        public func install(on muxer: Element) throws(CaptureError) -> UInt {
            guard let pad = muxer.staticPad("src") else {
                throw .invalidArgument("\(muxer.name) has no \"src\" pad: it is not a muxer Plumb can orient")
            }
            return install(on: pad)
        }

        /// Installs the probe on a muxer's src pad; returns the probe id.
        @discardableResult
        public func install(on muxerSource: Pad) -> UInt {
            muxerSource.addProbe(.buffer) { [self] info in
                handle(info)
                return .ok
            }
        }

        /// Runs on the muxer's streaming thread: only rewrites bytes and counts.
        private func handle(_ info: ProbeInfo) {
            guard info.withBufferBytes({ MP4MatrixWriter.containsMovieHeader($0) }) == true else { return }
            let copied = !info.isBufferWritable
            let rotation = self.rotation
            let result: Result<Int, MediaError>? = info.withWritableBufferBytes { bytes in
                do throws(MediaError) { return .success(try MP4MatrixWriter.patch(bytes, rotation: rotation)) } catch {
                    return .failure(error)
                }
            }
            state.withLock { s in
                if copied { s.copies += 1 }
                switch result {
                case .success(let tracks)?:
                    s.headers += 1
                    s.tracks += tracks
                case .failure(let error)?:
                    s.failures.append("movie header left unrotated: \(error)")
                case nil:
                    s.failures.append("movie header buffer could not be mapped for writing")
                }
            }
        }
    }
}
