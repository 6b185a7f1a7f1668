import Foundation
import XCTest

/// Debian's own kernel booted once, under QEMU's emulation, by virtme-ng (the test venv's
/// `vng`), with this machine's root file system read-only: `Tests/Kernel/run-in-vm.sh`
/// runs every scenario of `Tests/Kernel/scenarios` inside it against the real kernel
/// drivers (vivid, uvcvideo, IIO ...) and writes what each observed under
/// `.build/kernel-vm/NAME`; the `Kernel*Tests` classes assert on that. The first test
/// that asks boots the VM; every later one reads the same run.
///
/// A machine that cannot boot it (no QEMU, no kernel in /boot, no virtme-ng) fails these
/// tests saying what is missing: they are never skipped.
public final class KernelVM: @unchecked Sendable {
    public static let shared = KernelVM()

    /// Where the run writes: one folder per scenario, `vm.txt` (the kernel, the boot time
    /// and each scenario's status and seconds), and `vng.log` (the VM's console).
    public static let outputFolder = PlumbProcess.root.appendingPathComponent(".build/kernel-vm")
    /// The most one scenario may take inside the VM (run-in-vm.sh kills it after that).
    /// (Room for a machine busy with other work: a vivid scenario of ~40 s alone took 185-245 s
    /// under a load of 5-14 on the 2 cores.)
    public static let scenarioLimit = 300
    /// The most the whole VM may take, boot included, before it is stopped and the tests fail.
    public static let runLimit: TimeInterval = 1500

    public struct Failure: Error, CustomStringConvertible {
        public var description: String
    }

    private let lock = NSLock()
    private var run: Result<URL, Failure>?

    /// The output folder of scenario `name` (its file name without `.sh`, with or without
    /// its number: "10-vivid-devices" or "vivid-devices"), after the VM ran. Throws with the
    /// scenario's log when it failed, did not run, or the VM could not boot.
    public func output(of name: String) throws -> URL {
        let folder = try lock.withLock {
            if run == nil { run = Self.boot() }
            return try run!.get()
        }
        let names = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
        guard let match = names.first(where: { $0 == name || $0.drop { $0 != "-" }.dropFirst() == name }) else {
            throw Failure(description: "kernel scenario \(name) did not run (no \(folder.path)/\(name)); the VM's summary:\n"
                          + Self.text(folder.appendingPathComponent("vm.txt"), tail: 4000))
        }
        let out = folder.appendingPathComponent(match)
        let status = Self.text(out.appendingPathComponent("status"), tail: 100).trimmingCharacters(in: .whitespacesAndNewlines)
        guard status == "0" else {
            let why = status.isEmpty ? "did not finish (the VM ended first)"
                : status == "124" ? "took longer than \(Self.scenarioLimit) s and was stopped" : "exited with status \(status)"
            throw Failure(description: "kernel scenario \(match) \(why); its log:\n"
                          + Self.text(out.appendingPathComponent("log"), tail: 6000))
        }
        return out
    }

    /// Boots the VM once and waits for it; the folder of the run, or why there is none.
    private static func boot() -> Result<URL, Failure> {
        let fm = FileManager.default
        let out = outputFolder
        try? fm.removeItem(at: out)
        do { try fm.createDirectory(at: out, withIntermediateDirectories: true) } catch {
            return .failure(Failure(description: "cannot make \(out.path): \(error)"))
        }
        guard let kernel = kernelImage() else {
            return .failure(Failure(description: "no Debian kernel (/boot/vmlinuz-*) to boot the kernel tests' VM: "
                                    + "install linux-image-amd64 (make deps)"))
        }
        guard ["/usr/bin/qemu-system-x86_64", "/usr/local/bin/qemu-system-x86_64"].contains(where: fm.isExecutableFile) else {
            return .failure(Failure(description: "qemu-system-x86_64 is missing, the kernel tests cannot boot their VM: "
                                    + "install qemu-system-x86 (make deps)"))
        }
        let vng: URL
        do { vng = try TestVenv.vng() } catch {
            return .failure(Failure(description: "virtme-ng (vng) is missing from the test venv and `make test-venv` "
                                    + "could not install it: \(error)"))
        }
        // The registry of the host's GStreamer, read by the VM as it is (no rescan of every
        // plugin under emulation); made here first if this user has none yet.
        _ = try? PlumbProcess.run(URL(fileURLWithPath: "/usr/bin/env"), ["gst-inspect-1.0", "coreelements"], timeout: 120)
        let registry = ProcessInfo.processInfo.environment["GST_REGISTRY"]
            ?? fm.homeDirectoryForCurrentUser.appendingPathComponent(".cache/gstreamer-1.0/registry.x86_64.bin").path
        let script = PlumbProcess.root.appendingPathComponent("Tests/Kernel/run-in-vm.sh").path
        let inside = "HOST_GST_REGISTRY=\(shellQuoted(registry)) KERNEL_SCENARIOS=\(shellQuoted(ProcessInfo.processInfo.environment["KERNEL_SCENARIOS"] ?? "")) "
            + "bash \(shellQuoted(script)) \(shellQuoted(out.path)) \(shellQuoted(PlumbProcess.binary.path)) \(scenarioLimit)"
        // Under KVM a nested guest hangs at boot on these machines: always QEMU's emulation.
        let args = ["--disable-kvm", "--disable-microvm", "--run", kernel.path, "--memory", "2G", "--cpus", "2",
                    "--rwdir", out.path, "--", inside]
        let started = Date()
        // In a session of its own, so that stopping it stops QEMU too.
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/setsid")
        p.arguments = [vng.path] + args
        p.currentDirectoryURL = out
        var environment = ProcessInfo.processInfo.environment
        environment["PATH"] = vng.deletingLastPathComponent().path + ":" + (environment["PATH"] ?? "/usr/bin:/bin")
        p.environment = environment
        let log = out.appendingPathComponent("vng.log")
        _ = fm.createFile(atPath: log.path, contents: nil)
        guard let handle = try? FileHandle(forWritingTo: log) else {
            return .failure(Failure(description: "cannot write \(log.path)"))
        }
        defer { try? handle.close() }
        p.standardOutput = handle
        p.standardError = handle
        p.standardInput = FileHandle.nullDevice
        PlumbProcess.watchExit(p)
        do { try p.run() } catch {
            return .failure(Failure(description: "could not start \(vng.path): \(error)"))
        }
        if !PlumbProcess.waitForExit(p, timeout: runLimit - Date().timeIntervalSince(started)) {
            kill(-p.processIdentifier, SIGKILL)
        }
        p.waitUntilExit()
        let seconds = Int(Date().timeIntervalSince(started))
        try? "whole VM run: \(seconds) s (vng exit \(p.terminationStatus))\n"
            .appendLine(to: out.appendingPathComponent("vm.txt"))
        let summary = text(out.appendingPathComponent("vm.txt"), tail: 4000)
        guard summary.contains("done after") else {
            return .failure(Failure(description: "the kernel tests' VM (\(kernel.lastPathComponent)) did not finish its "
                                    + "scenarios within \(Int(runLimit)) s (after \(seconds) s, vng exit \(p.terminationStatus)); "
                                    + "summary:\n\(summary)\nits console:\n" + text(log, tail: 6000)))
        }
        print("kernel VM: \(kernel.lastPathComponent), \(seconds) s in all\n\(summary)")
        return .success(out)
    }

    /// `KERNEL_VM_KERNEL`, else the newest /boot/vmlinuz-* (Debian's linux-image-amd64).
    static func kernelImage() -> URL? {
        if let path = ProcessInfo.processInfo.environment["KERNEL_VM_KERNEL"] { return URL(fileURLWithPath: path) }
        let names = (try? FileManager.default.contentsOfDirectory(atPath: "/boot")) ?? []
        let kernels = names.filter { $0.hasPrefix("vmlinuz-") }
            .sorted { $0.compare($1, options: .numeric) == .orderedAscending }
        return kernels.last.map { URL(fileURLWithPath: "/boot/\($0)") }
    }

    static func shellQuoted(_ s: String) -> String { "'" + s.replacingOccurrences(of: "'", with: "'\\''") + "'" }

    /// The last `tail` characters of a file, or a note that it is missing.
    static func text(_ url: URL, tail: Int) -> String {
        guard let data = FileManager.default.contents(atPath: url.path) else { return "(no \(url.path))" }
        return String(String(decoding: data, as: UTF8.self).suffix(tail))
    }
}

private extension String {
    func appendLine(to url: URL) throws {
        let handle = try FileHandle(forWritingTo: url)
        defer { try? handle.close() }
        try handle.seekToEnd()
        try handle.write(contentsOf: Data(utf8))
    }
}
