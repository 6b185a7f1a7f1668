import FoundationEssentials
import Glibc

extension MP4File {
    /// Cuts off the `moof` a file ends inside (a write that failed mid-fragment, as on a full
    /// disk) and returns how many bytes went; nil when the file does not end inside one.
    /// Readers such as ffmpeg read nothing at all of a file that ends in a cut `moof`; without
    /// it, every whole fragment before it plays. Only for a file nothing writes any more.
    @discardableResult
    public static func trimTornFragment(path: String) throws(MediaError) -> Int? {
        let torn = try withMappedBytes(of: path) { (view: ByteView) throws(MediaError) -> (offset: Int, fileSize: Int)? in
            var offset = 0
            while let box = try MP4Box.header(in: view, at: offset, limit: view.count, allowPastLimit: true) {
                guard box.end <= view.count else { return box.type == "moof" ? (box.offset, view.count) : nil }
                offset = box.end
            }
            return nil
        }
        guard let torn else { return nil }
        guard truncate(path, off_t(torn.offset)) == 0 else {
            throw .cannotRead(path: path, reason: "could not cut off its torn fragment: \(String(cString: strerror(errno)))")
        }
        return torn.fileSize - torn.offset
    }
}
