// swift-tools-version:6.0
import PackageDescription

let package = Package(
    name: "Plumb",
    products: [
        .executable(name: "plumb", targets: ["PlumbCLI"]),
        // Measurements for `make bench` (bench/*.sh): too machine-dependent for tests.
        .executable(name: "plumb-bench", targets: ["PlumbBench"]),
        .library(name: "Plumb", targets: ["Plumb"]),
    ],
    targets: [
        // GStreamer core plus the -base libraries (app, video, tag, pbutils); see module.modulemap.
        .systemLibrary(
            name: "CGStreamer",
            pkgConfig: "gstreamer-pbutils-1.0",
            providers: [.apt(["libgstreamer1.0-dev", "libgstreamer-plugins-base1.0-dev"])]
        ),
        // gst-rtsp-server, for the RTSP preview.
        .systemLibrary(
            name: "CGstRTSPServer",
            pkgConfig: "gstreamer-rtsp-server-1.0",
            providers: [.apt(["libgstrtspserver-1.0-dev"])]
        ),
        // What Swift cannot call directly: macros, varargs, function-pointer casts.
        .target(name: "CGStreamerShim", dependencies: ["CGStreamer"]),
        .target(name: "GStreamer", dependencies: ["CGStreamer", "CGStreamerShim", "CGstRTSPServer"]),
        // libsoup 3, GLib's HTTP server, for the control API of `plumb serve`.
        .systemLibrary(
            name: "CSoup",
            pkgConfig: "libsoup-3.0",
            providers: [.apt(["libsoup-3.0-dev"])]
        ),
        // What Swift cannot call in libsoup/GIO: varargs constructors, signal and source callback casts.
        .target(name: "CSoupShim", dependencies: ["CSoup"]),
        // The Swift HTTP server over libsoup, run on a GStreamer-layer MainContext.
        .target(name: "Soup", dependencies: ["CSoup", "CSoupShim", "GStreamer"]),
        // GIO's GDBus, for iio-sensor-proxy; the API Plumb uses needs no C shim (typed callbacks only).
        .systemLibrary(name: "CGio", pkgConfig: "gio-2.0", providers: [.apt(["libglib2.0-dev"])]),
        .target(name: "Plumb", dependencies: ["GStreamer", "Soup", "CGio"]),
        // What the executable alone needs in C: holding the stop signals before any initializer runs.
        .target(name: "CPlumbCLIShim"),
        .executableTarget(name: "PlumbCLI", dependencies: ["Plumb", "GStreamer", "CPlumbCLIShim"]),
        .executableTarget(name: "PlumbBench", dependencies: ["Plumb", "GStreamer"]),
        // Helpers shared by the test targets: running processes, ffprobe, temporary folders.
        .target(name: "PlumbTestSupport", path: "Tests/Support"),
        .testTarget(name: "GStreamerTests", dependencies: ["GStreamer", "PlumbTestSupport"]),
        .testTarget(name: "PlumbTests", dependencies: ["Plumb", "GStreamer", "Soup", "CGio", "PlumbTestSupport"]),
        .testTarget(name: "SoupTests", dependencies: ["Soup", "GStreamer", "PlumbTestSupport"]),
        // Runs the built `plumb` binary, as a user would.
        // GStreamer for the RECORD server `plumb serve` publishes to in its tests.
        .testTarget(name: "PlumbCLITests", dependencies: ["PlumbTestSupport", "GStreamer"]),
    ],
    swiftLanguageModes: [.v6]
)
