import JSONRPC

/// `blockingEvent.sign`: the JWT a blocking function receives (`{"data": {"jwt": …}}`), signed
/// like an ID token (RS256 under the published keys, `iss` `<issuer base><projectId>`), so the
/// Firebase Functions SDKs verify it as they verify Identity Platform's (docs/blocking-functions.md).
public enum SignBlockingEvent: RPCMethod {
    public static let name = "blockingEvent.sign"

    public struct Params: Codable, Sendable, Hashable {
        public var projectId: String
        /// The function's URL: the token's `aud`.
        public var audience: String
        /// The user the event is about: the token's `sub`.
        public var subject: String?
        /// The event's claims (`event_type`, `user_record`, …); `iss`, `aud`, `sub`, `iat` and
        /// `exp` given here are replaced by session-token's.
        public var claims: [String: JSONValue]

        public init(projectId: String, audience: String, subject: String?, claims: [String: JSONValue]) {
            self.projectId = projectId
            self.audience = audience
            self.subject = subject
            self.claims = claims
        }
    }

    public struct Result: Codable, Sendable, Hashable {
        public var jwt: String

        public init(jwt: String) { self.jwt = jwt }
    }
}

/// `blockingEvent.record`: the audit trail's entry for one call of a blocking function
/// (`blockingFunction.called`); the client's address and user agent travel as the request's origin.
public enum RecordBlockingEvent: RPCMethod {
    public static let name = "blockingEvent.record"

    public struct Params: Codable, Sendable, Hashable {
        public var projectId: String
        public var tenantId: String?
        public var localId: String?
        /// ``BlockingFunctionsConfig/Event``'s raw value.
        public var event: String
        /// The function's URL without its query.
        public var function: String
        /// `allowed`, `blocked` (the function refused) or `failed` (no usable answer in time).
        public var outcome: String
        public var durationMs: Int64

        public init(
            projectId: String, tenantId: String?, localId: String?, event: String, function: String, outcome: String, durationMs: Int64
        ) {
            self.projectId = projectId
            self.tenantId = tenantId
            self.localId = localId
            self.event = event
            self.function = function
            self.outcome = outcome
            self.durationMs = durationMs
        }
    }

    public struct Result: Codable, Sendable, Hashable {
        public init() {}
    }
}
