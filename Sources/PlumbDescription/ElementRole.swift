/// The roles Plumb gives elements of a user's pipeline, by naming convention:
/// an element named exactly the role, or the role followed by `_` and a suffix
/// (`preview_flip_hdmi`). Later capabilities attach rotation and outputs to them.
public enum ElementRole: String, CaseIterable, Sendable {
    /// The camera or test-pattern source (`name=src`).
    case source = "src"
    /// The fan-out tee where outputs attach (`name=tee`).
    case tee = "tee"
    /// A `videoflip` turned live with the device (`name=preview_flip`).
    case previewFlip = "preview_flip"
    /// A recording's encoder, asked for keyframes (`name=rec_enc`).
    case recordingEncoder = "rec_enc"
    /// A recording's `mp4mux`, whose track matrix Plumb writes (`name=rec_mux`).
    case recordingMux = "rec_mux"

    /// The role an element name carries, if any.
    public static func of(elementName name: String) -> ElementRole? {
        allCases.first { name == $0.rawValue || name.hasPrefix($0.rawValue + "_") }
    }

    /// The factories an element of this role must come from, if the role demands any.
    var expectedFactories: [String]? {
        switch self {
        case .previewFlip: return ["videoflip"]
        case .recordingMux: return ["mp4mux", "qtmux"]
        case .tee: return ["tee"]
        case .source, .recordingEncoder: return nil
        }
    }
}
