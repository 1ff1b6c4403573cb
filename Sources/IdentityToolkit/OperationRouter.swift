import Foundation

/// Finds the Identity Toolkit operation a request addresses, with or without the host prefix:
/// `/identitytoolkit.googleapis.com/v1/accounts:signUp` and `/v1/accounts:signUp` are the same
/// operation, `/admin/v2/projects/{p}/config` is `/v2/projects/{p}/config` (contract §1.1), and
/// `/securetoken.googleapis.com/v1/token` is the token endpoint. The legacy v3 paths the iOS and
/// Android SDKs still use (`/www.googleapis.com/identitytoolkit/v3/relyingparty/signupNewUser`)
/// are their v1 operations, as the Auth emulator maps them.
public struct OperationRouter: Sendable {
    public struct Match: Sendable, Hashable {
        public let operation: DiscoverySchemas.Operation
        /// Values of the path's `{name}` segments, percent-decoded.
        public let pathParameters: [String: String]
    }

    public enum Outcome: Sendable, Hashable {
        case matched(Match)
        /// The path exists for another HTTP method.
        case methodNotAllowed
        case notFound
    }

    /// The v3 `relyingparty` method names and the v1 paths they are: the Auth emulator's table
    /// (firebase-tools `src/emulator/auth/server.ts`, `registerLegacyRoutes`), and `verifyClient`,
    /// which the iOS SDK sends there outside emulator mode.
    static let legacyRelyingParty: [String: [String]] = [
        "createAuthUri": ["v1", "accounts:createAuthUri"], "deleteAccount": ["v1", "accounts:delete"],
        "emailLinkSignin": ["v1", "accounts:signInWithEmailLink"], "getAccountInfo": ["v1", "accounts:lookup"],
        "getOobConfirmationCode": ["v1", "accounts:sendOobCode"], "getProjectConfig": ["v1", "projects"],
        "getRecaptchaParam": ["v1", "recaptchaParams"], "publicKeys": ["v1", "publicKeys"],
        "resetPassword": ["v1", "accounts:resetPassword"], "sendVerificationCode": ["v1", "accounts:sendVerificationCode"],
        "setAccountInfo": ["v1", "accounts:update"], "signupNewUser": ["v1", "accounts:signUp"],
        "verifyAssertion": ["v1", "accounts:signInWithIdp"], "verifyCustomToken": ["v1", "accounts:signInWithCustomToken"],
        "verifyPassword": ["v1", "accounts:signInWithPassword"], "verifyPhoneNumber": ["v1", "accounts:signInWithPhoneNumber"],
        "verifyClient": ["v1", "accounts:verifyIosClient"],
    ]
    static let legacyPrefix = ["identitytoolkit", "v3", "relyingparty"]

    static let identityToolkitHost = "identitytoolkit.googleapis.com"
    static let secureTokenHost = "securetoken.googleapis.com"
    let operations: [DiscoverySchemas.Operation]

    public init(schemas: DiscoverySchemas) {
        operations = schemas.operations
    }

    public func route(method: String, path: String) -> Outcome {
        guard var segments = Self.segments(of: path) else { return .notFound }
        if segments.count == 5, segments[0] == "www.googleapis.com", Array(segments[1...3]) == Self.legacyPrefix {
            segments.removeFirst()
        }
        if segments.count == 4, Array(segments.prefix(3)) == Self.legacyPrefix {
            guard let v1 = Self.legacyRelyingParty[segments[3]] else { return .notFound }
            segments = v1
        }
        var host: String? = nil
        if let first = segments.first, first == Self.identityToolkitHost || first == Self.secureTokenHost {
            host = first
            segments.removeFirst()
        }
        if segments.first == "admin", segments.count > 1, segments[1] == "v2" {
            segments.removeFirst()
        }
        let effectiveHost = host ?? (segments == ["v1", "token"] ? Self.secureTokenHost : Self.identityToolkitHost)
        var pathExists = false
        for operation in operations where operation.host == effectiveHost && operation.segments.count == segments.count {
            guard let parameters = Self.bind(operation.segments, to: segments) else { continue }
            guard operation.method == method else {
                pathExists = true
                continue
            }
            return .matched(Match(operation: operation, pathParameters: parameters))
        }
        return pathExists ? .methodNotAllowed : .notFound
    }

    /// Path segments, percent-decoded; `nil` when a segment does not decode.
    static func segments(of path: String) -> [String]? {
        let withoutQuery = path.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false).first ?? ""
        var result: [String] = []
        for raw in withoutQuery.split(separator: "/") {
            // Without a `%` there is nothing to decode (Foundation's decoder costs about as much as
            // the rest of the routing).
            guard raw.contains("%") else {
                result.append(String(raw))
                continue
            }
            guard let decoded = String(raw).removingPercentEncoding else { return nil }
            result.append(decoded)
        }
        return result
    }

    static func bind(_ template: [String], to segments: [String]) -> [String: String]? {
        var parameters: [String: String] = [:]
        for (pattern, segment) in zip(template, segments) {
            if pattern.hasPrefix("{"), let close = pattern.firstIndex(of: "}") {
                // `{name}` is the whole segment; `{name}:verb` (`projects/{p}:createSessionCookie`) its start.
                let suffix = pattern[pattern.index(after: close)...]
                // No id has a colon: a `{name}` segment never swallows another operation's `:verb`.
                guard segment.hasSuffix(suffix), segment.count > suffix.count, !segment.dropLast(suffix.count).contains(":") else {
                    return nil
                }
                parameters[String(pattern[pattern.index(after: pattern.startIndex)..<close])] = String(segment.dropLast(suffix.count))
            } else if pattern != segment {
                return nil
            }
        }
        return parameters
    }
}
