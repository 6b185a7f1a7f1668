import FoundationEssentials
import Glibc
import PlumbBase
import GStreamer

extension PipelineLoader {
    /// Sinks that write files open them when they start (filesink truncates at READY):
    /// each is kept out of the check's state change, and what it would write is checked by
    /// looking only — the folder exists and is writable, the location is not a folder.
    /// Bins that write (splitmuxsink, hlssink2) open files only once data flows; they still
    /// go to READY, which checks the elements they make.
    static func holdFileSinks(_ elements: [(element: Element, index: Int?)], _ resolved: ResolvedDescription,
                              _ items: [LaunchLexer.Item]) throws(Diagnostic)
    {
        for (element, index) in elements {
            let locations = writtenLocations(element)
            guard !locations.isEmpty else { continue }
            for (property, path) in locations {
                guard let reason = unwritableReason(path) else { continue }
                throw Diagnostic(place(of: property, path: path, element, index, resolved, items),
                                 "cannot write \"\(path)\" (\(property) of \(element.factoryName ?? element.name)): \(reason)")
            }
            if !(element is Bin) { element.isStateLocked = true }
        }
    }

    /// The files a sink would write (`location`, hlssink's `playlist-location`), as paths;
    /// none for an element that is not a sink, a network sink, or a sink whose location is
    /// a network URL (rtmp2sink) or not set (filesink then fails at READY, as before).
    static func writtenLocations(_ element: Element) -> [(property: String, path: String)] {
        guard let factory = element.factoryName, let klass = Gst.elementClass(factory),
              klass.contains("Sink") || factory.hasSuffix("sink"), !klass.contains("Network") else { return [] }
        var found: [(property: String, path: String)] = []
        for property in ["location", "playlist-location"] where element.hasProperty(property) {
            guard case .string(let value?)? = try? element.value(of: property), !value.isEmpty else { continue }
            if value.contains("://") {
                // giosink's location is a URI; only a file: URI names a file here.
                guard let url = URL(string: value), url.isFileURL else { return [] }
                found.append((property, url.path))
            } else {
                found.append((property, value))
            }
        }
        return found
    }

    /// Why `path` could not be written, or nil; looks without opening anything. A relative
    /// path is relative to the current folder, as for the sink. A pattern (`seg%05d.mp4`)
    /// is checked as its folder.
    static func unwritableReason(_ path: String) -> String? {
        var isFolder = false
        if FileManager.default.fileExists(atPath: path, isDirectory: &isFolder) {
            if isFolder { return "it is a folder, not a file" }
            if access(path, W_OK) != 0 { return "the file is not writable (\(String(cString: strerror(errno))))" }
            return nil
        }
        var folder = Path.folder(path)
        if folder.isEmpty { folder = "." }
        guard FileManager.default.fileExists(atPath: folder, isDirectory: &isFolder) else {
            return "the folder \"\(folder)\" does not exist"
        }
        guard isFolder else { return "\"\(folder)\" is not a folder" }
        if access(folder, W_OK | X_OK) != 0 {
            return "the folder \"\(folder)\" is not writable (\(String(cString: strerror(errno))))"
        }
        return nil
    }

    /// The `property=` value the user wrote, else the element; a URI element's URI.
    private static func place(of property: String, path: String, _ element: Element, _ index: Int?,
                              _ resolved: ResolvedDescription, _ items: [LaunchLexer.Item]) -> SourceLocation {
        if let index, case .element(let e) = items[index] {
            return resolved.location(at: e.properties.last(where: { $0.key == property })?.valueOffset ?? e.offset)
        }
        for case .element(let e) in items where e.isURI && URL(string: e.factory)?.path == path {
            return resolved.location(at: e.offset)
        }
        return resolved.start
    }
}
