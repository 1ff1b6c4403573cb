import JSONRPC

/// `sessionCookie.issue`: a session cookie for the holder of a valid ID token (the Admin SDKs'
/// `create_session_cookie`): the token's claims, signed with the ID tokens' keys, whose issuer is
/// `https://session.firebase.google.com/<project>` and which lasts `validDuration` seconds.
/// `INVALID_ID_TOKEN`, `TOKEN_EXPIRED`.
public enum IssueSessionCookie: RPCMethod {
    public static let name = "sessionCookie.issue"

    public struct Params: Codable, Sendable, Hashable {
        public var idToken: String
        /// Seconds, 300 to 1,209,600 (the gateway checks: `INVALID_DURATION`).
        public var validDuration: Int64

        public init(idToken: String, validDuration: Int64) {
            self.idToken = idToken
            self.validDuration = validDuration
        }
    }

    public struct Result: Codable, Sendable, Hashable {
        public var sessionCookie: String
        public init(sessionCookie: String) { self.sessionCookie = sessionCookie }
    }
}
