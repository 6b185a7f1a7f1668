/// One camera of `plumb devices --json`, as the kernel tests read it.
struct ListedCamera: Decodable {
    struct Format: Decodable {
        var media_type: String
        var format: String?
        var size: String
        var framerates: [String]
    }

    var name: String
    var path: String?
    var formats: [Format]
}
