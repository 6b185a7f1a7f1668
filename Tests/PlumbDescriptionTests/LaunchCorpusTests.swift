import CStandIns
import GStreamer
import PlumbTestSupport
@testable import PlumbDescription
import XCTest

/// Launch strings through Plumb's check and through gst_parse_launch (`Pipeline.parse`): both
/// accept or both reject. GStreamer's own test strings first (1.22's
/// tests/check/pipelines/parse-launch.c, written out), then newer GStreamer's, then ours.
/// Plumb rejects more on purpose, and only where `Disagreement` says why.
final class LaunchCorpusTests: XCTestCase {
    /// What Plumb rejects that GStreamer may accept, and the words of Plumb's error.
    enum Disagreement {
        /// An element left unlinked (a missing `!`): GStreamer accepts it and the pipeline
        /// fails only once playing; Plumb's check rejects it at its place (README).
        case unlinked
        /// A value with a `"` never closed: GStreamer sets the value with the quote in it.
        case unterminatedQuote
        /// One element named twice: GObject keeps the first name and prints a critical
        /// warning; Plumb names both places. (Another property set twice is GStreamer's:
        /// the last wins, silently.)
        case setTwice

        var words: [String] {
            switch self {
            case .unlinked: return ["goes nowhere", "nothing feeds", "missing \"!\""]
            case .unterminatedQuote: return ["unterminated quote"]
            case .setTwice: return ["is set twice on", "(first at 1:"]
            }
        }
    }

    // MARK: - GStreamer 1.22's parse-launch.c

    /// test_launch_lines: every one is accepted.
    static let launchLines = [
        "filesrc location=music.mp3 ! identity silent=true ! fakesink silent=true",
        "filesrc location=music.ogg ! tee ! identity silent=true ! identity silent=true ! fakesink silent=true",
        "filesrc location=http://domain.com/music.mp3 ! identity silent=true ! fakesink silent=true",
        "filesrc location=movie.avi ! tee name=demuxer ! ( queue ! identity silent=true ! fakesink silent=true ) ( demuxer. ! queue ! identity silent=true ! fakesink silent=true )",
        "fakesrc ! video/x-raw ! fakesink silent=true",
        "fakesrc !   video/raw,  format=(string)YUY2; video/raw, format=(string)YV12 ! fakesink silent=true",
        "fakesrc ! audio/x-raw, width=[16,  32], depth={16, 24, 32}, signed=TRUE ! fakesink silent=true",
        "fakesrc ! identity silent=true ! identity silent=true ! identity silent=true ! fakesink silent=true",
        "fakesrc name=100 fakesink name=101 silent=true 100. ! 101.",
        "fakesrc ! 1__dentity ! fakesink silent=true",
        "fakesrc ! tee name=t  t.src_12 ! queue ! fakesink  t.src_3 ! queue ! fakesink",
        "( fakesrc ) ! fakesink",
        "( fakesrc name=dasrc ) dasrc. ! fakesink",
        "deepsrc. ! fakesink fakesrc  ! ( identity ! ( identity ! (  identity name=deepsrc ) ) )",
        "fakesrc : fakesink",
        "fakesrc : video/x-all : fakesink",
        "fakesrc ! video/x-all : fakesink",
        "fakesrc : video/x-all ! fakesink",
    ]

    /// test_launch_lines2 (PIPELINE1 ... PIPELINE15).
    static let launchLines2: [(String, Disagreement?)] = [
        ("fakesrc", .unlinked),
        ("fakesrc name=donald num-buffers= 27 silent =TruE sizetype = 3 data=   Subbuffer\\ data", .unlinked),
        ("fakesrc identity silent=true fakesink silent=true", .unlinked),
        ("fakesrc num-buffers=4 .src ! identity silent=true !.sink identity silent=true .src ! .sink fakesink silent=true", nil),
        ("fakesrc num-buffers=4 name=src identity silent=true name=id1 identity silent=true name = id2 fakesink silent=true name =sink src. ! id1. id1.! id2.sink id2.src!sink.sink", nil),
        ("pipeline.(name=\"john\" fakesrc num-buffers=4 ! ( bin. (  queue ! identity silent=true !( queue ! fakesink silent=true )) ))", nil),
        ("fakesrc num-buffers=4 ! tee name=tee .src_%u ! queue ! fakesink silent=true tee.src_%u ! queue ! fakesink silent=true queue name =\"foo\" ! fakesink silent=true tee.src_%u ! foo.", nil),
        ("fakesrc num-buffers=4 ! fakesink silent=true", nil),
        ("fakesrc num-buffers=4 ! test. fakesink silent=true name=test", nil),
        ("( fakesrc num-buffers=\"4\"  ) ! identity silent=true ! fakesink silent=true", nil),
        ("fakesink silent=true name = sink identity silent=true name=id ( fakesrc num-buffers=\"4\" ! id. ) id. ! sink.", nil),
        ("file:///tmp/test.file ! fakesink silent=true", nil),
        ("fakesrc ! file:///tmp/test.file", nil),
        ("capsfilter caps=application/x-rtp,sprop-parameter-sets=(string)\"x\\,x\"", .unlinked),
        ("capsfilter caps=application/x-rtp,sprop-parameter-sets=(string)\"x\\\"x\\,x\"", .unlinked),
    ]

    /// expected_failures and leaking_failures: GStreamer's test expects each to fail.
    static let expectedFailures: [(String, Disagreement?)] = [
        ("fakesrc num-buffers=4 name=\"a=b\"  a=b. ! fakesink silent=true", nil),
        ("filesrc blocksize=absdff", nil),
        ("fakesrc ! video/raw,format=(antwerp)monkeys ! fakesink silent=true", nil),
        ("", nil),
        ("fakesrc ! ", nil),
        (" ! fakesink silent=true", nil),
        ("borky://fdaffd ! fakesink silent=true", nil),
        ("fakesrc ! borky://fdaffd", nil),
        ("fakesrc name=src fakesink silent=true name=sink noexiste. ! sink.", nil),
        ("fakesrc name=src fakesink silent=true name=sink src. ! noexiste.", nil),
        ("fakesink silent=true ! fakesink silent=true", nil),
        ("! identity silent=true ! identity silent=true ! fakesink silent=true", nil),
        ("bin.( )", nil),
        ("bin.( non_existent_element )", nil),
        ("( filesrc blocksize=4 location=/dev/null @ )", nil),
        ("( fakesrc num-buffers=\"4\" ! ) identity silent=true ! fakesink silent=true", nil),
        ("pipeline.(name=\"john\" fakesrc num-buffers=4 ( bin. ( ! queue ! identity silent=true !( queue ! fakesink silent=true )) ))", nil),
        ("coffeebin.( fakesrc ! identity ! fakesink )", nil),
        ("fakesrc ! coffeebin.( identity ) ! fakesink", nil),
        ("fakesrc ! .ch0 .ch1 fakesink", nil),
        ("fakesrc .ch0 .ch1 !  fakesink", nil),
        ("(fakesrc .ch1) !  fakesink", nil),
        ("(fakesrc name=s  s.ch1) !  fakesink", nil),
        ("s.ch1 fakesrc ! fakesink", nil),
        ("fakesrc ! fakesink s.ch1", nil),
        // GStreamer's test runs without souphttpsrc; with it (Debian) the URI source is made,
        // and left unlinked.
        ("http://eff.org fakesrc ! fakesink", .unlinked),
        ("(", nil),
        (")", nil),
        (")  (", nil),
        ("fakesrc ! identity silent=true ! sgsdfagfd @ gfdgfdsgfsgSF", nil),
        ("fakesrc ! .foo file:///dev/null", nil),
        ("error-does-not-exist-src", nil),
    ]

    /// delayed_link (a pad that appears on PAUSED), test_missing_elements, test_preset,
    /// test_flags, test_parsing.
    static let otherTests: [(String, Disagreement?)] = [
        ("parsetestelement name=src ! fakesink silent=true name=sink", nil),
        ("parsetestelement name=src .src ! .sink fakesink silent=true name=sink", nil),
        ("parsetestelement name=src ! application/x-test-caps ! fakesink silent=true name=sink", nil),
        ("parsetestelement name=src ! application/x-test-caps ! identity silent=true ! application/x-other-caps ! fakesink silent=true name=sink silent=true", nil),
        ("fakesrc ! coffeesink", nil),
        ("fakesrc ! bogusenc ! identity ! goomux ! fakesink", nil),
        ("fakesrc ! bogusenc ! mux.sink blahsrc ! goomux name=mux ! fakesink   fakesrc ! goosink", nil),
        ("fakesrc ! identity @preset=\"Wrong preset\" ! fakesink", nil),
        ("filesrc location=x\\", .unlinked),
    ]

    /// Added to test_launch_lines after 1.22 (arrays in caps); 1.22 takes some of them.
    static let newerLaunchLines = [
        "fakesrc ! audio/x-opus, channel-mapping=(int)<0, 1> ! fakesink silent=true",
        "fakesrc ! audio/x-opus, channel-mapping=(int)<0,\\ 1> ! fakesink silent=true",
        "fakesrc ! capsfilter caps=\"audio/x-opus, channel-mapping=(int)<0, 1>\" ! fakesink silent=true",
        "fakesrc ! capsfilter caps=\"audio/x-opus, channel-mapping=(int)<0,\\ 1>\" ! fakesink silent=true",
    ]

    // MARK: - Ours

    /// What the outside testing found, linked so that only the lexing is in question, and more.
    static let ours: [(String, Disagreement?)] = [
        ("fakesrc name = src num-buffers= 27 silent =TruE sizetype = 3 data=   Subbuffer\\ data ! fakesink", nil),
        ("videotestsrc num-buffers=1 ! textoverlay text=Hello\\ World ! fakesink", nil),
        ("fakesrc ! capsfilter caps=application/x-rtp,sprop-parameter-sets=(string)\"x\\,x\" ! fakesink", nil),
        ("videotestsrc ! capsfilter caps=video/x-raw,format=(string)\"I420\" ! fakesink", nil),
        ("videotestsrc ! video/x-raw,format=(string)\"I420\" ! fakesink", nil),
        ("videotestsrc ! textoverlay text=\"a b\" ! fakesink", nil),
        ("videotestsrc ! textoverlay text=\"a \\\"b\\\" c\" ! fakesink", nil),
        ("videotestsrc name='a b' ! fakesink", nil),
        ("fakesrc ! identity name=a\\! ! fakesink", nil),
        ("( name=b fakesrc ) ! fakesink", nil),
        ("videotestsrc ! tee name=t t. ! queue ! fakesink t. ! queue ! fakesink", nil),
        ("videotestsrc\n  ! video/x-raw, width=320,\n    height=240\n  ! fakesink", nil),
        ("videotestsrc ! video/x-raw,width=320;video/x-raw,width=640 ! fakesink", nil),
        ("videotestsrc ! video/x-raw,width=320 : fakesink", nil),
        ("videotestsrc ! queue max-size-buffers = 5 ! fakesink", nil),
        ("videotestsrc ! \"video/x-raw\" ! fakesink", nil),
        ("videotestsrc ! video/x-raw", nil),
        ("video/x-raw ! fakesink", nil),
        ("videotestsrc ! t. ! fakesink", nil),
        ("/dev/null ! fakesink", nil),
        ("videotestsrc ! file:///tmp/x ! fakesink", nil),
        ("videotestsrc ! fakesink name=", nil),
        ("videotestsrc ! = fakesink", nil),
        ("videotestsrc ! fakesink ; fakesink", nil),
        ("videotestsrc ! { fakesink }", nil),
        ("fakesrc name=src! fakesink", .unlinked),
        ("fakesrc ! fakesink name=\"open", .unterminatedQuote),
        ("fakesrc name=x name=y ! fakesink", .setTwice),
        ("fakesrc name = x num-buffers=1 name=x ! fakesink", .setTwice),
        ("fakesrc num-buffers=1 num-buffers = 2 ! fakesink", nil),
        ("file:///dev/null", .unlinked),
        ("videotestsrc ! fakesink file:///dev/null", .unlinked),
        ("videotestsrc ! videoconvert fakesink", .unlinked),
    ]

    override func setUpWithError() throws {
        try Gst.initialize()
        XCTAssertTrue(plumb_stand_in_register_parse_test_elements() != 0)
    }

    func testGStreamersOwnLaunchStrings() throws {
        let all = Self.launchLines.map { ($0, Disagreement?.none) } + Self.launchLines2 + Self.expectedFailures
            + Self.otherTests
        XCTAssertEqual(all.count, 74, "every distinct string of parse-launch.c")
        for (text, disagreement) in all { compare(text, disagreement) }
    }

    func testNewerGStreamersLaunchStrings() throws {
        for text in Self.newerLaunchLines { compare(text, nil) }
    }

    func testOurLaunchStrings() throws {
        for (text, disagreement) in Self.ours { compare(text, disagreement) }
    }

    /// Plumb's check against GStreamer's parser on one string.
    private func compare(_ text: String, _ disagreement: Disagreement?, file: StaticString = #filePath,
                         line: UInt = #line) {
        var gstError: String?
        do { _ = try Pipeline.parse(text) } catch { gstError = error.message }
        var plumbError: String?
        do {
            _ = try PipelineLoader.check(try PipelineDescription(text: text, file: "corpus").resolve())
        } catch {
            plumbError = error.description
        }
        if let disagreement, gstError == nil {
            guard let error = plumbError else {
                return XCTFail("Plumb accepts [\(text)], which it rejects on purpose", file: file, line: line)
            }
            XCTAssertTrue(disagreement.words.contains { error.contains($0) },
                          "[\(text)]: Plumb's error is not the \(disagreement) one: \(error)", file: file, line: line)
        } else {
            XCTAssertEqual(plumbError == nil, gstError == nil,
                           "[\(text)]: GStreamer \(gstError.map { "rejects: \($0)" } ?? "accepts"), "
                            + "Plumb \(plumbError.map { "rejects: \($0)" } ?? "accepts")", file: file, line: line)
        }
    }
}
