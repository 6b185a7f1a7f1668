/// Bearer-token authentication (RFC 6750) with a comparison whose time does not
/// depend on how much of a guess is right.
public struct BearerToken: Sendable {
    private let expected: [UInt8]
    public let realm: String

    public init(_ token: String, realm: String = "plumb") {
        expected = Array(token.utf8)
        self.realm = realm
    }

    public enum Verdict: Sendable, Equatable {
        case accepted
        case missing
        case invalid
    }

    /// Checks an `Authorization` header value.
    public func check(authorization: String?) -> Verdict {
        guard let authorization else { return .missing }
        let parts = authorization.split(separator: " ", maxSplits: 1, omittingEmptySubsequences: true)
        guard parts.count == 2, parts[0].lowercased() == "bearer" else { return .missing }
        let given = parts[1].trimmingCharactersInSet(" \t")
        return BearerToken.constantTimeEquals(Array(given.utf8), expected) ? .accepted : .invalid
    }

    /// The 401 answer for a request that failed `check`.
    public func challenge(_ verdict: Verdict) -> HTTPResponse {
        switch verdict {
        case .accepted, .missing:
            return .error(401, "this API needs a bearer token: send the header \"Authorization: Bearer TOKEN\" with the token set in [http] token",
                          headers: ["WWW-Authenticate": "Bearer realm=\"\(realm)\""])
        case .invalid:
            return .error(401, "the bearer token is wrong: send the token set in [http] token",
                          headers: ["WWW-Authenticate": "Bearer realm=\"\(realm)\", error=\"invalid_token\""])
        }
    }

    /// Compares every byte of `expected` whatever `given` holds: the time depends
    /// only on the expected token's length, never on where the first difference is.
    public static func constantTimeEquals(_ given: [UInt8], _ expected: [UInt8]) -> Bool {
        var difference: UInt8 = given.count == expected.count ? 0 : 1
        for i in 0..<expected.count {
            let g = i < given.count ? given[i] : 0
            difference |= g ^ expected[i]
        }
        return difference == 0
    }
}

extension Substring {
    fileprivate func trimmingCharactersInSet(_ set: String) -> String {
        var s = self
        while let f = s.first, set.contains(f) { s.removeFirst() }
        while let l = s.last, set.contains(l) { s.removeLast() }
        return String(s)
    }
}
