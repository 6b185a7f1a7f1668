import FoundationEssentials
import Glibc
import PlumbBase
import Plumb
import PlumbCommandLine
import PlumbLocation

/// `--location SOURCE`, `--gps LAT,LON[,ALT]` (the older spelling of `--location fixed:...`)
/// and `--max-fix-age SECONDS`, shared by `plumb photo` and `plumb record`.
struct LocationOptions {
    var source: LocationSource = .off
    var maxFixAge = LocationProvider.defaultMaxFixAge

    /// How long a capture waits for gpsd's answer, "5 s", for help and warnings.
    static let answerWait = "\(LocationProvider.answerWait.components.seconds) s"

    static let help = """
          --location SOURCE
                           where the capture was taken: gpsd (this machine's gpsd on
                           127.0.0.1:2947), gpsd:HOST:PORT, fixed:LAT,LON[,ALT] (degrees, north
                           and east positive; metres) or off (default). gpsd is asked for the
                           fix it holds and waited for at most \(answerWait); a fix younger than
                           --max-fix-age is used, without one the capture goes without GPS
                           and a warning says why
          --gps LAT,LON[,ALT]
                           the same as --location fixed:LAT,LON[,ALT]
          --max-fix-age S  the oldest gpsd fix to use, in seconds (default 300)
        """

    static func parse(_ arguments: inout Arguments) throws(UsageError) -> LocationOptions {
        var options = LocationOptions()
        let location = try arguments.option("--location")
        let gps = try arguments.option("--gps")
        switch (location, gps) {
        case (.some, .some):
            throw UsageError("--location and --gps: give one (--gps LAT,LON is --location fixed:LAT,LON)")
        case (let text?, nil):
            do {
                options.source = try LocationSource(parsing: text)
            } catch {
                throw UsageError("--location \(error)")
            }
        case (nil, let text?):
            do {
                options.source = .fixed(try LocationSource.parseCoordinates(text, in: text))
            } catch {
                throw UsageError("--gps \(error)")
            }
        case (nil, nil):
            break
        }
        if let text = try arguments.option("--max-fix-age") {
            guard let seconds = Double(text), seconds.isFinite, (0.1...86_400).contains(seconds) else {
                throw UsageError("--max-fix-age \(text): expected a number of seconds from 0.1 to 86400")
            }
            options.maxFixAge = .milliseconds(Int((seconds * 1000).rounded()))
        }
        return options
    }

    /// The provider for the command, its problems said on stderr as `plumb COMMAND: warning:`
    /// (a one-shot command does not say when gpsd answers: only when it does not). Not started.
    func provider(command: String) -> LocationProvider {
        LocationProvider(source: source, maxFixAge: maxFixAge) { notice in
            guard notice.kind != .connected else { return }
            StandardStream.error.write("plumb \(command): warning: \(notice)\n")
        }
    }
}
