// swift-tools-version:6.0
import PackageDescription

/// This manifest's folder: the linker is handed the order file by its full path.
let packageRoot = String(#filePath.dropLast("/Package.swift".count))

/// The executables carry the Swift runtime and Foundation linked in (`-static-stdlib`):
/// only the parts they use are mapped, instead of every page of libswiftCore, libFoundation*
/// and ICU the dynamic libraries bring (issue 26: about 6 MiB less resident per process).
/// Still position-independent (ASLR for a daemon on the network). Linked by lld (the
/// toolchain's) with packed relative relocations (`-z pack-relative-relocs`, DT_RELR, which
/// glibc 2.36 reads): the loader reads 15 KiB of relocations instead of gold's 1.8 MiB of
/// `.rela.dyn`, and lld keeps read-only data out of the code's pages: about 1.4 MiB less
/// resident (issue 26, bench/README.md).
///
/// The functions a run executes are laid out together, in the order of
/// `linker/symbol-order.txt` (`make order` records them): the kernel maps a program's code
/// 64 KiB around each page it touches, so the code a `plumb run` executes, scattered over
/// 17 MiB of text, made 7.9 MiB of it resident; gathered, 3.6 (with Foundation gone, below).
/// Our own modules are compiled with a section per function so that the linker can move them
/// one by one. `--no-export-dynamic`: nothing loads symbols from the executable, and every
/// library's symbol lookup went through its 0.5 MiB table first. No module linked into the
/// executables imports Foundation (FoundationEssentials and PlumbBase instead; LayerTests):
/// Foundation brought CoreFoundation's initializer and ICU's static constructors (with
/// libstdc++'s locales) into every start. The Swift runtime's few C++ needs come from
/// libstdc++'s archive: `linker/static-libstdc++/libstdc++.so` is a linker script naming
/// `libstdc++.a`, found before the shared library for the toolchain's own `-lstdc++` (swiftc
/// has no `-static-libstdc++`), so the 2 MiB library, 0.9 MiB of it resident, is not loaded;
/// likewise the unwinder, from libgcc's archives (`-static-libgcc`), not libgcc_s.
let staticSwift: [LinkerSetting] = [.unsafeFlags(["-static-stdlib", "-lCoreFoundation", "-l_FoundationICU",
                                                  "-l_FoundationCShims", "-l_FoundationCollections",
                                                  "-L\(packageRoot)/linker/static-libstdc++", "-Xclang-linker", "-static-libgcc",
                                                  "-use-ld=lld", "-Xlinker", "-z", "-Xlinker", "pack-relative-relocs",
                                                  "-Xlinker", "--no-export-dynamic",
                                                  "-Xlinker", "--symbol-ordering-file=\(packageRoot)/linker/symbol-order.txt",
                                                  "-Xlinker", "--no-warn-symbol-ordering"])]

let package = Package(
    name: "Plumb",
    products: [
        .executable(name: "plumb", targets: ["PlumbCLI"]),
        // The daemon (`plumb serve` execs it): the HTTP server's libraries in it alone.
        .executable(name: "plumb-serve", targets: ["PlumbServe"]),
        // Measurements for `make bench` (bench/*.sh): too machine-dependent for tests.
        .executable(name: "plumb-bench", targets: ["PlumbBench"]),
        .library(name: "Plumb", targets: ["Plumb", "PlumbRotation", "PlumbMedia", "PlumbLocation", "PlumbDescription"]),
    ],
    targets: [
        // GLib, GObject and GIO: the C side of the GLib module (main contexts, key files, D-Bus).
        // gobject-2.0's flags, not gio-2.0's: GIO's headers are in the same folder, and its library
        // is not linked (CGioShim loads its D-Bus functions when D-Bus is first used).
        .systemLibrary(name: "CGio", pkgConfig: "gobject-2.0", providers: [.apt(["libglib2.0-dev"])]),
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
        // libsoup 3, GLib's HTTP server, for the control API of `plumb serve`.
        .systemLibrary(
            name: "CSoup",
            pkgConfig: "libsoup-3.0",
            providers: [.apt(["libsoup-3.0-dev"])]
        ),
        // zbar's barcode decoder (the library GStreamer's zbar element wraps), for scanning.
        // Linked from its archive (the module map links `:libzbar.a`), not through pkg-config,
        // whose `-L/usr/lib/... -lzbar` would pick the shared library: that one loads X11, libv4l,
        // libjpeg and D-Bus into every plumb process (issue 26). The scanner needs none of them.
        .systemLibrary(name: "CZBar", providers: [.apt(["libzbar-dev"])]),
        // The libdbus symbols zbar's archive refers to but Plumb never has it call.
        .target(name: "CZBarShim"),
        // What Swift cannot call directly: macros, varargs, function-pointer casts.
        .target(name: "CGStreamerShim", dependencies: ["CGStreamer"]),
        // GIO's D-Bus functions, loaded with libgio when D-Bus is first used: only the sensor-proxy
        // accelerometer needs them, and libgio with what it loads is 0.7 MiB resident (issue 26).
        .target(name: "CGioShim", dependencies: ["CGio"]),
        // What Swift cannot call in libsoup/GIO: varargs constructors, signal and source callback casts.
        .target(name: "CSoupShim", dependencies: ["CSoup"]),
        // What the executables alone need in C: holding the stop signals before any initializer runs.
        .target(name: "CPlumbCLIShim"),

        // The Swift layers over C, lowest first. Each layer imports only the ones below it.
        // GLib: main contexts and their threads, key files, the log hook, a typed D-Bus client.
        .target(name: "GLib", dependencies: ["CGio", "CGioShim"]),
        // GStreamer: elements, bins, pads, caps, tags, buses, the RTSP server.
        .target(name: "GStreamer", dependencies: ["GLib", "CGStreamer", "CGStreamerShim"]),
        // The RTSP server over gst-rtsp-server: apart, so that only the daemon loads its libraries.
        .target(name: "GStreamerRTSP", dependencies: ["GStreamer", "GLib", "CGStreamer", "CGStreamerShim", "CGstRTSPServer"]),
        // ZBar: zbar's image scanner, the symbols it finds and where.
        .target(name: "ZBar", dependencies: ["CZBar", "CZBarShim"]),
        // Soup: the HTTP server over libsoup, run on a GLib MainContext.
        .target(name: "Soup", dependencies: ["GLib", "CSoup", "CSoupShim", "PlumbBase"]),

        // What FoundationEssentials lacks of Foundation, which no module here imports (issue 26):
        // printf numbers, trimming, path parts, stdout/stderr, a named thread.
        .target(name: "PlumbBase"),

        // Plumb itself.
        // Rotation: angles, gravity samples, the coordinator, the observer, accelerometers. No GStreamer.
        .target(name: "PlumbRotation", dependencies: ["GLib", "PlumbBase"]),
        // Location: the gpsd client, fixes, GeoLocation, the kernel's wall clock state. No GStreamer.
        .target(name: "PlumbLocation", dependencies: ["PlumbBase"]),
        // Media: MP4 and JPEG/EXIF readers and writers (orientation, location), crash repair. No GStreamer.
        .target(name: "PlumbMedia", dependencies: ["PlumbRotation", "PlumbLocation", "PlumbBase"]),
        // Description files: parsed, checked, built into pipelines, run. GStreamer, not the engine.
        .target(name: "PlumbDescription", dependencies: ["GStreamer", "GLib", "PlumbBase"]),
        // The engine: capture session, outputs, preview, thumbnails, the MP4 header probes.
        .target(name: "Plumb",
                dependencies: ["PlumbRotation", "PlumbMedia", "PlumbLocation", "PlumbDescription", "GStreamer", "GLib", "ZBar",
                               "PlumbBase"]),
        // The preview over RTSP: the engine's stream served by gst-rtsp-server. Apart from the
        // engine because only the daemon serves it: `plumb` does not load gst-rtsp-server.
        .target(name: "PlumbRTSP", dependencies: ["Plumb", "GStreamerRTSP", "GStreamer", "GLib"]),
        // `plumb serve`: the daemon, its config, the control API, the continuous recorder.
        // It sees the engine's types and errors only: no GStreamer (LayerTests).
        .target(name: "PlumbService", dependencies: ["Plumb", "PlumbRTSP", "PlumbRotation", "PlumbMedia", "PlumbLocation", "Soup", "GLib", "PlumbBase"]),
        // What both executables share: arguments, the command protocol, exit codes, signals.
        .target(name: "PlumbCommandLine", dependencies: ["CPlumbCLIShim", "PlumbBase"]),
        // The `plumb` executable: the one-shot commands. No GStreamer or GLib of its own, and not
        // the daemon: `plumb serve` execs `plumb-serve` (LayerTests).
        .executableTarget(name: "PlumbCLI",
                          dependencies: ["PlumbCommandLine", "Plumb", "PlumbRotation", "PlumbMedia", "PlumbLocation", "PlumbDescription",
                                         "CPlumbCLIShim", "PlumbBase"],
                          linkerSettings: staticSwift),
        // The `plumb-serve` executable: `plumb serve`, the daemon.
        .executableTarget(name: "PlumbServe", dependencies: ["PlumbCommandLine", "PlumbService", "Plumb", "PlumbBase"],
                          linkerSettings: staticSwift),
        .executableTarget(name: "PlumbBench", dependencies: ["PlumbService", "Plumb", "PlumbRTSP", "PlumbRotation", "GStreamer", "GLib"],
                          linkerSettings: staticSwift),

        // Helpers shared by the test targets: running processes, ffprobe, temporary folders.
        .target(name: "PlumbTestSupport", dependencies: ["PlumbRotation"], path: "Tests/Support"),
        .testTarget(name: "PlumbBaseTests", dependencies: ["PlumbBase"]),
        .testTarget(name: "GLibTests", dependencies: ["GLib", "PlumbTestSupport"]),
        .testTarget(name: "GStreamerTests", dependencies: ["GStreamer", "GStreamerRTSP", "GLib", "PlumbTestSupport"]),
        .testTarget(name: "SoupTests", dependencies: ["Soup", "GLib", "PlumbTestSupport"]),
        // The fake iio-sensor-proxy calls GDBus itself: GIO linked.
        .testTarget(name: "PlumbRotationTests", dependencies: ["PlumbRotation", "GLib", "CGio", "PlumbTestSupport"],
                    linkerSettings: [.linkedLibrary("gio-2.0")]),
        .testTarget(name: "PlumbLocationTests", dependencies: ["PlumbLocation", "PlumbTestSupport"]),
        .testTarget(name: "PlumbMediaTests", dependencies: ["PlumbMedia", "PlumbLocation", "PlumbRotation", "PlumbTestSupport"]),
        // Test-only stand-ins for hardware elements (v4l2h264enc, vah264enc ...): the GType
        // registration of a GstBin subclass, registered in the test process only.
        .target(name: "CStandIns", dependencies: ["CGStreamer"], path: "Tests/CStandIns"),
        .testTarget(name: "PlumbDescriptionTests",
                    dependencies: ["PlumbDescription", "GStreamer", "GLib", "PlumbTestSupport", "CStandIns"]),
        .testTarget(name: "PlumbTests",
                    dependencies: ["Plumb", "PlumbRTSP", "PlumbRotation", "PlumbMedia", "PlumbLocation", "PlumbDescription",
                                   "GStreamer", "GStreamerRTSP", "GLib", "PlumbTestSupport", "CStandIns"]),
        .testTarget(name: "PlumbServiceTests",
                    dependencies: ["PlumbService", "Plumb", "PlumbRotation", "PlumbLocation", "Soup", "GStreamer", "GLib",
                                   "PlumbTestSupport"]),
        // Runs the built `plumb` binary, as a user would.
        // GStreamer for the RECORD server `plumb serve` publishes to in its tests.
        .testTarget(name: "PlumbCLITests", dependencies: ["PlumbTestSupport", "GStreamer", "GStreamerRTSP", "GLib"]),
    ],
    swiftLanguageModes: [.v6]
)

// A section per function in every module of ours, so the linker can order them (staticSwift).
for target in package.targets where target.type == .regular || target.type == .executable {
    target.swiftSettings = (target.swiftSettings ?? []) + [.unsafeFlags(["-Xfrontend", "-function-sections"])]
}
