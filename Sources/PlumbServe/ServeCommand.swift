import Dispatch
import FoundationEssentials
import Glibc
import Plumb
import PlumbBase
import PlumbCommandLine
import PlumbService
import Synchronization

/// `plumb serve [--config FILE] [--listen ADDR:PORT] [--set GROUP.KEY=VALUE]... [--print-config]`
enum ServeCommand: Command {
    static let name = DaemonCommand.name
    static let summary = DaemonCommand.summary
    static var watchedSignals: [Int32] { DaemonCommand.watchedSignals }
    static let help = """
        Usage: plumb serve [--config FILE] [--listen ADDR:PORT] [--set GROUP.KEY=VALUE]... [--print-config]

        Opens the camera once and serves everyone from it until stopped: the RTSP preview
        (rtsp://HOST:8554/preview), the HTTP control API (http://127.0.0.1:8080: /status,
        /photo, /clip, /event, /recording/start|stop, /recordings, /events), continuous
        recording when configured, and a push to another RTSP server when [publish] url is set.
        Without a config file every key has its default (config/plumb.example.ini lists
        them all): the first camera found, else the test pattern; rotation from an
        accelerometer if one is found, else fixed at 0 — it says which on stderr.

        Options:
          --config FILE             the INI config file
          --listen ADDR:PORT        the control API's address ([http] listen)
          --set GROUP.KEY=VALUE     any config key, e.g. --set camera.size=640x480 (repeatable)
          --print-config            print the resulting config as INI and exit

        Signals: SIGUSR1 saves a still into the recordings folder; SIGUSR2 saves an event
        clip ([events] pre-seconds before it to post-seconds after; another during one
        extends it); SIGTERM, SIGINT and SIGHUP finalize every file (a clip being recorded
        is cut short and answered), close every client and exit 0; a second one aborts (130).

        Exit codes: 0 stopped cleanly, 1 could not serve (an address in use, an unwritable
        folder), 2 bad usage or config (the message names the file, group and key).
        """

    static func run(_ arguments: inout Arguments) async throws -> ExitCode {
        let configPath = try arguments.option("--config")
        let listen = try arguments.option("--listen")
        let sets = try arguments.options("--set")
        let printConfig = arguments.flag("--print-config")
        try arguments.finish()

        var overrides: [String: String] = [:]
        for set in sets {
            guard let eq = set.firstIndex(of: "="), set[..<eq].contains(".") else {
                throw UsageError("--set \(set): expected GROUP.KEY=VALUE, e.g. --set camera.size=640x480")
            }
            overrides[String(set[..<eq])] = String(set[set.index(after: eq)...])
        }
        if let listen { overrides["http.listen"] = listen }

        let config: ServeConfig
        let choices: ServeChoices
        switch Result(catching: { () throws(ConfigError) -> ServeConfig in
            try loadConfig(path: configPath, overrides: overrides)
        }) {
        case .success(let loaded): config = loaded
        case .failure(let error):
            StandardStream.error.write("plumb serve: \(error)\n")
            return .usage
        }
        if printConfig {
            StandardStream.output.write(config.iniText())
            return .success
        }
        switch Result(catching: { () throws(ConfigError) -> ServeChoices in 
            try ServeChoices.resolve(config, origin: configPath.map { .file($0) } ?? .commandLine)
        }) {
        case .success(let resolved): choices = resolved
        case .failure(let error):
            StandardStream.error.write("plumb serve: \(error)\n")
            return .usage
        }

        let log: @Sendable (String) -> Void = { line in StandardStream.error.write("plumb serve: \(line)\n") }
        let control = ServeControl()
        let signals = SignalWatch(watchedSignals) { control.received($0) }
        defer { signals.cancel() }

        log(choices.cameraSentence)
        log(choices.rotationSentence)
        let daemon: ServeDaemon
        let addresses: ServeDaemon.Addresses
        do {
            daemon = try ServeDaemon(config: config, choices: choices, log: log)
            log("recordings folder: \(daemon.recordingsFolder)")
            addresses = try await daemon.start()
        } catch {
            StandardStream.error.write("plumb serve: error: \(error)\n")
            return .failure
        }
        let everywhere = ["0.0.0.0", "::"].contains(config.preview.address)
        log("RTSP preview: \(addresses.rtsp)" + (everywhere ? " (on every interface: rtsp://THIS-HOST:PORT/...)" : ""))
        log("control API: \(addresses.http.httpURL)" + (config.http.token == nil ? "" : " (bearer token required)"))
        log("ready; SIGUSR1 saves a still, SIGUSR2 an event clip, Ctrl-C or SIGTERM stops")

        var stop = SIGTERM
        for await signal in control.signals {
            if signal == SIGUSR1 {
                await daemon.saveStill()
                continue
            }
            if signal == SIGUSR2 {
                await daemon.saveEvent()
                continue
            }
            log("\(signalName(signal)): finalizing every file and stopping")
            control.setAbortOnNextStop()
            stop = signal
            break
        }
        await daemon.shutdown(reason: "plumb serve is stopping (\(signalName(stop)))")
        log("stopped")
        return .success
    }

    /// The file (or the defaults) with the command line on top.
    static func loadConfig(path: String?, overrides: [String: String]) throws(ConfigError) -> ServeConfig {
        let file = try path.map { path throws(ConfigError) in try ServeConfig.load(path: path) } ?? ServeConfig()
        return try file.applying(overrides: overrides)
    }

    static func signalName(_ signal: Int32) -> String {
        switch signal {
        case SIGINT: "SIGINT"
        case SIGTERM: "SIGTERM"
        case SIGHUP: "SIGHUP"
        case SIGUSR1: "SIGUSR1"
        case SIGUSR2: "SIGUSR2"
        default: "signal \(signal)"
        }
    }
}

/// The signals `plumb serve` acts on, as a stream the command reads in order; once a
/// stop is under way, a second stop signal aborts at once (exit 130).
final class ServeControl: Sendable {
    let signals: AsyncStream<Int32>
    private let continuation: AsyncStream<Int32>.Continuation
    private let stopping = Mutex(false)

    init() {
        (signals, continuation) = AsyncStream.makeStream(bufferingPolicy: .unbounded)
    }

    func setAbortOnNextStop() { stopping.withLock { $0 = true } }

    /// On a Dispatch queue.
    func received(_ signal: Int32) {
        if signal != SIGUSR1, signal != SIGUSR2, stopping.withLock({ $0 }) {
            StandardStream.error.write("plumb serve: \(ServeCommand.signalName(signal)) again: aborting; "
                                           + "recordings keep what their last whole fragment holds\n")
            _exit(ExitCode.aborted.rawValue)  // not exit: see Interrupt (a finishing stop would win with 0)
        }
        continuation.yield(signal)
    }
}
