import JSONRPC

/// What a passkey challenge is for: a signed-in user's new passkey, or a sign-in by whoever holds
/// a passkey (discoverable credentials: the challenge names nobody).
public enum PasskeyPurpose: String, Codable, Sendable, Hashable {
    case enroll
    case signIn
}

/// `passkey.issueChallenge`: 32 random bytes for a WebAuthn ceremony (issue 59), kept hashed in the
/// scope's schema with what it is for (and, for an enrollment, whose), until it expires.
public enum IssuePasskeyChallenge: RPCMethod {
    public static let name = "passkey.issueChallenge"

    public struct Params: Codable, Sendable, Hashable {
        public var projectId: String
        public var tenantId: String?
        public var purpose: PasskeyPurpose
        /// The enrolling user; absent for a sign-in.
        public var localId: String?
        /// The client's address (an IPv6 one by its /64, as the gateway says it): challenges are
        /// limited per address (`TOO_MANY_ATTEMPTS_TRY_LATER`), since a sign-in's start needs no
        /// credential at all and each one is a stored row.
        public var clientAddress: String?

        public init(
            projectId: String, tenantId: String? = nil, purpose: PasskeyPurpose, localId: String? = nil, clientAddress: String? = nil
        ) {
            (self.projectId, self.tenantId, self.purpose, self.localId) = (projectId, tenantId, purpose, localId)
            self.clientAddress = clientAddress
        }
    }

    public struct Result: Codable, Sendable, Hashable {
        /// The challenge's bytes, base64url without padding (as `clientDataJSON` carries it back).
        public var challenge: String
        /// RFC 3339: after this the challenge answers `PASSKEY_CHALLENGE_TIMEOUT`.
        public var expiresAt: String
        /// Its lifetime in milliseconds, the options' `timeout`.
        public var timeoutMs: Int

        public init(challenge: String, expiresAt: String, timeoutMs: Int) {
            (self.challenge, self.expiresAt, self.timeoutMs) = (challenge, expiresAt, timeoutMs)
        }
    }
}

/// `passkey.redeemChallenge`: uses a challenge up, atomically (of two redemptions at once, one
/// wins): it must be this scope's, for this purpose and (enrolling) this user. A used, unknown or
/// foreign challenge is `INVALID_AUTHENTICATOR_RESPONSE`; an expired one `PASSKEY_CHALLENGE_TIMEOUT`.
/// Either way it can never be used again.
public enum RedeemPasskeyChallenge: RPCMethod {
    public static let name = "passkey.redeemChallenge"

    public struct Params: Codable, Sendable, Hashable {
        public var projectId: String
        public var tenantId: String?
        public var purpose: PasskeyPurpose
        public var localId: String?
        /// As the browser wrote it in `clientDataJSON` (base64url; either alphabet is read).
        public var challenge: String

        public init(projectId: String, tenantId: String? = nil, purpose: PasskeyPurpose, localId: String? = nil, challenge: String) {
            (self.projectId, self.tenantId, self.purpose, self.localId, self.challenge) = (projectId, tenantId, purpose, localId, challenge)
        }
    }

    public typealias Result = RPCEmpty
}
