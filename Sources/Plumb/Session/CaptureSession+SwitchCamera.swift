import FoundationEssentials
import Glibc
import GStreamer

/// What `switchCamera(to:)` did: the camera before and after, and how long the tee went
/// without frames while the new source started (the source's own restart time).
public struct CameraSwitch: Sendable, Equatable, Encodable {
    public var from: String
    public var to: String
    /// From the old source's stop to the new source's first frame at the tee.
    public var restartSeconds: Double
}

extension CaptureSession {
    /// Switches cameras live, as AVCam does (`isSwitchingVideoDevices`): only the source
    /// elements before the zoom crop are rebuilt. The zoom and the tee stay, and so does
    /// every attached output, and the encoders below the tee are asked for a keyframe from
    /// the new camera. The new camera is asked for the running caps (`size` asks for
    /// another size). When it gives them (an image or the test pattern always does: they
    /// scale), a recording goes on in the same file; when it does not (a V4L2 camera without
    /// that mode, or another `size`), the tee takes the new caps and every running recording
    /// goes on in a new file from the new camera's first frame (`FileSwap`), the old file
    /// finalized. In the same caps, the new camera's frames are pinned to the tee's caps with
    /// every implied field written out (`pinnedCaps`), so nothing below the tee renegotiates.
    ///
    /// A camera that fails to open leaves the old one running; the error names the reason.
    @discardableResult
    public func switchCamera(to new: CameraSource, size: VideoSize? = nil,
                             timeout: Duration = .seconds(5)) async throws -> CameraSwitch {
        guard let pipeline, let zoomCrop else { throw failure ?? CaptureError.closed }
        try await startSwitch()
        defer { for roll in state.endSwitch() { roll.succeed(()) } }
        let old = camera
        let kept = format
        let wanted = CaptureFormat(size: size ?? kept.size, rate: kept.rate)
        // Checked before the old source stops: a missing node never costs a frame.
        if case .device(let device) = new {
            do { try device.checkNode() } catch { throw CaptureError.camera(error) }
        }
        let pin = pinnedCaps(at: zoomCrop)
        let stopped = ContinuousClock.now
        remove(sourceChain, from: pipeline)
        sourceChain = []
        requestKeyframe(at: zoomCrop)
        timeline?.arm()
        frames.restartGaps(rate: wanted.rate, numbered: new.numbersItsFrames)
        // Made once the old source has stopped: the next frame at the tee is the new camera's.
        let first = frames.after(1)
        let roll: FileSwap?
        do {
            roll = try await install(new, format: wanted, in: pipeline, zoom: zoomCrop, pin: pin)
        } catch {
            // Back to the camera that ran a moment ago.
            format = kept
            _ = try? await install(old, format: kept, in: pipeline, zoom: zoomCrop, pin: pin)
            throw error
        }
        do {
            _ = try await first.value(timeout: timeout, what: "the first frame from \(new.identifier)")
            if let roll { await complete(roll, within: timeout, what: "the new camera's caps") }
        } catch {
            guard state.isRunning else { throw failure ?? CaptureError.closed }
            remove(sourceChain, from: pipeline)
            if let roll { await complete(roll, within: .zero, what: "the new camera's caps") }
            timeline?.arm()
            frames.restartGaps(rate: kept.rate, numbered: old.numbersItsFrames)
            if let back = try? await install(old, format: kept, in: pipeline, zoom: zoomCrop, pin: pin) {
                await complete(back, within: timeout, what: "the old camera's caps")
            }
            currentCamera.withLock { $0 = old }
            throw CaptureError.camera(CameraError(device: new.identifier, cause: .noFrames, detail: "nothing within \(timeout)"))
        }
        // Closed while the new camera started: nothing is left to switch.
        guard state.isRunning else { throw failure ?? CaptureError.closed }
        let restart = ContinuousClock.now - stopped
        return CameraSwitch(from: old.identifier, to: new.identifier,
                            restartSeconds: Double(restart.components.seconds) + Double(restart.components.attoseconds) / 1e18)
    }

    /// The caps the running camera's frames enter the zoom crop in, with what they leave
    /// implied written out (`Caps.explicitVideoCaps`): two cameras of the same size and rate
    /// still differ in colorimetry or multiview fields (the test pattern leaves them implied,
    /// a decoded PNG names its own). An encoder that sees such a change may start anew with
    /// new headers (1.26's x264enc does), and mp4mux then writes a second sample description
    /// mid-file that readers choke on ("Invalid NAL unit size"). Pinned, the tee never changes.
    /// Waits until no recording is moving to its next file (`CaptureSessionState.startSwitch`;
    /// at most 10 s: a roll waits for a frame, at most until its cut) and marks the switch as
    /// under way: new caps would otherwise move a recording a second time.
    private func startSwitch() async throws {
        switch state.startSwitch() {
        case .go:
            return
        case .busy:
            throw CaptureError.invalidArgument("a switch to another camera is under way; try again when it is done")
        case .refused(let error):
            throw error
        case .waitForRolls(let ready):
            _ = try? await ready.value(timeout: .seconds(10), what: "the recordings moving to their next files")
            switch state.switchWaitEnded() {
            case .go:
                return
            case .gaveUp(let rolls):
                for roll in rolls { roll.succeed(()) }
                throw CaptureError.invalidArgument("a recording is moving to its next file; try the switch again in a moment")
            case .refused(let error):
                throw error
            }
        }
    }

    private func pinnedCaps(at zoom: ZoomCrop) -> Caps? {
        zoom.crop.staticPad("sink")?.currentCaps?.explicitVideoCaps
    }

    /// Builds `camera`'s source chain in the running pipeline, asking it for `wanted`, and
    /// links it to the zoom crop. When the camera gives other caps than the tee's, the tee
    /// takes them and the recordings' move to new files is armed (returned, to be finished
    /// once the camera runs). In the tee's caps, with `pin`, the chain ends in
    /// `videoconvert ! capsfilter caps=pin`, which passes frames through untouched when the
    /// camera gives them in those caps and converts them when not.
    private func install(_ camera: CameraSource, format wanted: CaptureFormat, in pipeline: Pipeline,
                         zoom: ZoomCrop, pin: Caps?) async throws -> FileSwap? {
        let existing = Set(pipeline.allElements.map(\.name))
        let teeFormat = zoom.format
        var roll: FileSwap?
        do {
            var chain = try makeSource(camera, size: wanted.size, rate: wanted.rate, encoding: encoding, in: pipeline)
            if format.caps != teeFormat.caps {
                try zoom.reformat(format)
                roll = prepareRollOversForNewCaps()
            } else if let pin {
                let convert = try Element(factory: "videoconvert", name: "switch-convert")
                let caps = try Element(factory: "capsfilter", name: "switch-caps")
                try caps.set("caps", pin)
                try pipeline.add(convert, caps)
                try chain.last!.link(to: convert)
                try convert.link(to: caps)
                chain += [convert, caps]
            }
            try chain.last!.link(to: zoom.crop)
            for element in chain.reversed() { try element.syncStateWithParent() }
            sourceChain = chain
            currentCamera.withLock { $0 = camera }
            findZoomControl(of: camera)
            return roll
        } catch {
            // Whatever part of the new chain was added goes again, and the tee keeps its caps.
            if let roll { await complete(roll, within: .zero, what: "the new camera's caps") }
            remove(pipeline.allElements.filter { !existing.contains($0.name) && $0.parent?.name == pipeline.name },
                   from: pipeline)
            try? zoom.reformat(teeFormat)
            format = teeFormat
            throw CaptureError.wrap(error)
        }
    }

    /// Asks every video encoder below the tee (recordings', the preview's) for a keyframe with
    /// headers at the new camera's first frame, for the file and for RTSP consumers: a
    /// downstream force-key-unit event sent into the zoom crop while no source feeds it (the
    /// old one stopped, the new one not yet started). It travels in order with the frames,
    /// behind the old camera's last ones still queued in a branch, so the encoder makes the
    /// new camera's first frame the keyframe; an upstream request would hit whatever frame the
    /// encoder takes next — on a loaded machine, one of the old camera's.
    private func requestKeyframe(at zoom: ZoomCrop) {
        _ = zoom.crop.staticPad("sink")?.send(.forceKeyUnitDownstream(runningTime: ClockTime.none, allHeaders: true, count: 0))
    }

    /// Whether `camera` zooms by its own `zoom_absolute` control; a switch starts at 1×.
    func findZoomControl(of camera: CameraSource) {
        opticalZoom = nil
        if case .device(let device) = camera {
            zoomControl = V4L2ZoomControl.query(device: device.path)
        } else {
            zoomControl = nil
        }
    }

    /// Sets the camera's zoom control when `V4L2ZoomControl.method` chooses it (the crop
    /// then stays at 1×); false when the crop zooms.
    func zoomByControl(_ factor: Double) throws -> Bool {
        guard case .control(let control) = V4L2ZoomControl.method(for: zoomControl),
              let src = sourceChain.first, src.factoryName == "v4l2src" else { return false }
        do {
            try src.set("extra-controls", parsing: V4L2ZoomControl.extraControls(control.value(for: factor, maximum: maximumZoom)))
        } catch {
            throw CaptureError.wrap(error)
        }
        opticalZoom = factor
        zoomCrop?.set(factor: 1, centerX: 0.5, centerY: 0.5, rate: nil)
        return true
    }

    /// Stops source elements (their streaming threads end, so nothing is pushed into an
    /// unlinked pad) and takes them out of the pipeline.
    private func remove(_ chain: [Element], from pipeline: Pipeline) {
        for element in chain { try? element.setState(.null) }
        for element in chain { try? pipeline.remove(element) }
    }
}
