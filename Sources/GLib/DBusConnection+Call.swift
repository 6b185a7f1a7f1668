internal import CGio

extension DBusConnection {
    /// Calls `method` asynchronously (g_dbus_connection_call) with `replyType` as the
    /// expected reply type, e.g. "(a{sv})" or "()": GDBus checks the reply against it, and a
    /// reply of another type is an error (`GLibError.IOErrorCode.invalidArgument`), as is an
    /// error the peer replies with (`dbusName` set). `completion` runs once, on the
    /// connection's thread, with the reply's values — also for arguments that cannot be
    /// sent, and with `closed` when the connection closes first.
    public func call(destination: String, path: String, interface: String, method: String,
                     arguments: [Variant] = [], replyType: String, timeout: Duration = .seconds(25),
                     completion: @escaping @Sendable (Result<[Variant], GLibError>) -> Void) {
        let request = Result { () throws(GLibError) in
            try MethodCall(destination: destination, path: path, interface: interface, method: method,
                           arguments: arguments, replyType: replyType, timeout: timeout)
        }
        let core = core
        core.perform {
            switch request {
            case .failure(let error): completion(.failure(error))
            case .success(let request): Self.start(request, on: core, completion: completion)
            }
        }
    }

    /// `call(...)`, awaited.
    public func call(destination: String, path: String, interface: String, method: String,
                     arguments: [Variant] = [], replyType: String,
                     timeout: Duration = .seconds(25)) async throws(GLibError) -> [Variant] {
        let result = await withCheckedContinuation { continuation in
            call(destination: destination, path: path, interface: interface, method: method,
                 arguments: arguments, replyType: replyType, timeout: timeout) { continuation.resume(returning: $0) }
        }
        return try result.get()
    }

    /// Calls `method` and blocks until the reply (g_dbus_connection_call_sync), on the
    /// calling thread; for teardown, when the call must be on the wire before the
    /// connection closes. Checks the reply type as `call(...)` does.
    public func callSync(destination: String, path: String, interface: String, method: String,
                         arguments: [Variant] = [], replyType: String,
                         timeout: Duration = .seconds(25)) throws(GLibError) -> [Variant] {
        let request = try MethodCall(destination: destination, path: path, interface: interface, method: method,
                                     arguments: arguments, replyType: replyType, timeout: timeout)
        let body = try request.makeBody()
        defer { g_variant_unref(body) }
        let type = g_variant_type_new(request.replyType)
        defer { g_variant_type_free(type) }
        let result: Result<[Variant], GLibError>? = core.withConnection { connection in
            var error: UnsafeMutablePointer<GError>?
            guard let reply = GIO.loaded.dbus_connection_call_sync(
                connection, request.destination, request.path, request.interface, request.method, body, type,
                G_DBUS_CALL_FLAGS_NONE, request.timeoutMS, nil, &error) else {
                return .failure(GLibError(taking: error, fallback: "\(request) failed"))
            }
            defer { g_variant_unref(reply) }
            return Result { () throws(GLibError) in try Variant(reading: reply).tupleItems }
        }
        guard let result else { throw .closedConnection }
        return try result.get()
    }

    /// On the connection's thread, so GDBus completes the call on its context.
    private static func start(_ request: MethodCall, on core: DBusConnectionCore,
                              completion: @escaping @Sendable (Result<[Variant], GLibError>) -> Void) {
        let body: OpaquePointer
        do { body = try request.makeBody() } catch { return completion(.failure(error)) }
        defer { g_variant_unref(body) }
        let type = g_variant_type_new(request.replyType)
        defer { g_variant_type_free(type) }
        let sent: Void? = core.withConnection { connection in
            // Released, and counted done, in the callback, which GDBus always runs.
            core.begin()
            let pending = Unmanaged.passRetained(PendingCall(core: core, completion: completion)).toOpaque()
            GIO.loaded.dbus_connection_call(connection, request.destination, request.path, request.interface, request.method,
                                            body, type, G_DBUS_CALL_FLAGS_NONE, request.timeoutMS, nil, { source, result, userData in
                let pending = Unmanaged<PendingCall>.fromOpaque(userData!).takeRetainedValue()
                var error: UnsafeMutablePointer<GError>?
                let outcome: Result<[Variant], GLibError>
                if let reply = GIO.loaded.dbus_connection_call_finish(OpaquePointer(source), result, &error) {
                    defer { g_variant_unref(reply) }
                    outcome = Result { () throws(GLibError) in try Variant(reading: reply).tupleItems }
                } else {
                    outcome = .failure(GLibError(taking: error, fallback: "the D-Bus call failed"))
                }
                pending.completion(outcome)
                pending.core.end()
            }, pending)
        }
        if sent == nil { completion(.failure(.closedConnection)) }
    }
}

/// A call's completion, held by GDBus as user_data until its callback.
private final class PendingCall {
    let core: DBusConnectionCore
    let completion: @Sendable (Result<[Variant], GLibError>) -> Void
    init(core: DBusConnectionCore, completion: @escaping @Sendable (Result<[Variant], GLibError>) -> Void) {
        self.core = core
        self.completion = completion
    }
}

/// A method call whose names, arguments and reply type have been checked.
private struct MethodCall: Sendable, CustomStringConvertible {
    let destination: String
    let path: String
    let interface: String
    let method: String
    let arguments: [Variant]
    let replyType: String
    let timeoutMS: Int32

    init(destination: String, path: String, interface: String, method: String, arguments: [Variant],
         replyType: String, timeout: Duration) throws(GLibError) {
        try DBusName.checkBusName(destination)
        try DBusName.checkPath(path)
        try DBusName.checkInterface(interface)
        try DBusName.checkMember(method)
        try Variant.checkDBusType(replyType)
        guard replyType.hasPrefix("(") else {
            throw .invalidArgument("the reply type \"\(replyType)\" is not a tuple type (\"(\(replyType))\"?)")
        }
        for argument in arguments { try argument.validate(insideArray: false) }
        self.destination = destination
        self.path = path
        self.interface = interface
        self.method = method
        self.arguments = arguments
        self.replyType = replyType
        let millis = timeout.components.seconds * 1000 + timeout.components.attoseconds / 1_000_000_000_000_000
        timeoutMS = Int32(clamping: max(1, millis))
    }

    /// The arguments as the message body, a tuple the caller owns.
    func makeBody() throws(GLibError) -> OpaquePointer { try Variant.tuple(arguments).makeGVariant() }

    var description: String { "\(destination) \(path) \(interface).\(method)" }
}

extension Variant {
    /// A tuple's items (a reply's values, a signal's arguments).
    var tupleItems: [Variant] {
        if case .tuple(let items) = self { return items }
        return [self]
    }
}
