import JSONRPC

/// `customToken.verify`: checks a custom token for `signInWithCustomToken` (contract §2.7): an
/// RS256 JWT signed by one of the configured service-account keys (or, in development mode, the
/// Admin SDKs' unsigned emulator tokens), for the Identity Toolkit audience, unexpired, naming a
/// user and carrying only allowed claims. Errors (code 1202) carry `INVALID_CUSTOM_TOKEN : …`,
/// `TENANT_ID_MISMATCH`, `MISSING_IDENTIFIER`, `INVALID_CLAIMS`, `FORBIDDEN_CLAIM : <name>`,
/// `CLAIMS_TOO_LARGE`.
public enum VerifyCustomToken: RPCMethod {
    public static let name = "customToken.verify"

    public struct Params: Codable, Sendable, Hashable {
        public var projectId: String
        /// The tenant the request named, if any; the token's `tenant_id` must agree.
        public var tenantId: String?
        public var token: String

        public init(projectId: String, tenantId: String? = nil, token: String) {
            self.projectId = projectId
            self.tenantId = tenantId
            self.token = token
        }
    }

    public struct Result: Codable, Sendable, Hashable {
        public var localId: String
        /// The request's tenant, else the token's `tenant_id`.
        public var tenantId: String?
        /// The token's `claims`, for the session.
        public var claims: [String: JSONValue]?

        public init(localId: String, tenantId: String?, claims: [String: JSONValue]?) {
            self.localId = localId
            self.tenantId = tenantId
            self.claims = claims
        }
    }
}

extension RPCErrorCode {
    /// A custom token that `signInWithCustomToken` refuses.
    public static let invalidCustomToken = RPCErrorCode(1202)
}
