// swift-tools-version:6.0
import PackageDescription

let package = Package(
    name: "Plumb",
    products: [
        .executable(name: "plumb", targets: ["PlumbCLI"]),
        .library(name: "Plumb", targets: ["Plumb"]),
    ],
    targets: [
        // GStreamer core plus the -base libraries (app, video, tag, pbutils); see module.modulemap.
        .systemLibrary(
            name: "CGStreamer",
            pkgConfig: "gstreamer-pbutils-1.0",
            providers: [.apt(["libgstreamer1.0-dev", "libgstreamer-plugins-base1.0-dev"])]
        ),
        // What Swift cannot call directly: macros, varargs, function-pointer casts.
        .target(name: "CGStreamerShim", dependencies: ["CGStreamer"]),
        .target(name: "GStreamer", dependencies: ["CGStreamer", "CGStreamerShim"]),
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
        .target(name: "Plumb", dependencies: ["GStreamer", "Soup"]),
        .executableTarget(name: "PlumbCLI", dependencies: ["Plumb"]),
        .testTarget(name: "GStreamerTests", dependencies: ["GStreamer"]),
        .testTarget(name: "PlumbTests", dependencies: ["Plumb", "GStreamer", "Soup"]),
        .testTarget(name: "SoupTests", dependencies: ["Soup", "GStreamer"]),
        // Runs the built `plumb` binary, as a user would.
        .testTarget(name: "PlumbCLITests"),
    ],
    swiftLanguageModes: [.v6]
)
