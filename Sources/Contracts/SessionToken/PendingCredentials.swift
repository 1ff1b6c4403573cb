import AuthVocabulary
import JSONRPC

/// `pendingCredential.issue`: the `mfaPendingCredential` of a first-factor sign-in that still needs
/// its second factor: opaque, stored as a hash, valid for `mfa.pendingCredentialLifetimeSeconds`
/// (10 minutes), used once by the `session.issue` that completes the sign-in.
public enum IssuePendingCredential: RPCMethod {
    public static let name = "pendingCredential.issue"

    public struct Params: Codable, Sendable, Hashable {
        public var projectId: String
        public var tenantId: String?
        public var localId: String
        /// The first factor (`password`, …), which the completed session keeps.
        public var signInProvider: SignInProvider

        public init(projectId: String, tenantId: String? = nil, localId: String, signInProvider: SignInProvider) {
            self.projectId = projectId
            self.tenantId = tenantId
            self.localId = localId
            self.signInProvider = signInProvider
        }
    }

    public struct Result: Codable, Sendable, Hashable {
        public var mfaPendingCredential: String

        public init(mfaPendingCredential: String) { self.mfaPendingCredential = mfaPendingCredential }
    }
}

/// `tokenSeal.key`: the key pending credentials are sealed with (base64 of 32 bytes),
/// so the gateway can read a credential's facts without a call per sign-in. Asked for again when
/// a credential names a key id the gateway does not hold (session-token's master key rotated).
public enum PublishTokenSealKey: RPCMethod {
    public static let name = "tokenSeal.key"

    public struct Params: Codable, Sendable, Hashable {
        public init() {}
    }

    public struct Result: Codable, Sendable, Hashable {
        public var key: String

        public init(key: String) { self.key = key }
    }
}

/// `pendingCredential.inspect`: whose sign-in a pending credential continues. Unknown, expired or
/// already used: `INVALID_MFA_PENDING_CREDENTIAL`. With `finishing` (a finalize asks), a credential
/// used up by a finalize whose answer was lost still answers, while the session it started stands,
/// was never refreshed, and is younger than a credential's lifetime: the retry can then finish.
public enum InspectPendingCredential: RPCMethod {
    public static let name = "pendingCredential.inspect"

    public struct Params: Codable, Sendable, Hashable {
        public var mfaPendingCredential: String
        public var finishing: Bool?
        public init(mfaPendingCredential: String, finishing: Bool? = nil) {
            self.mfaPendingCredential = mfaPendingCredential
            self.finishing = finishing
        }
    }

    public struct Result: Codable, Sendable, Hashable {
        public var projectId: String
        public var tenantId: String?
        public var localId: String
        public var signInProvider: SignInProvider

        public init(projectId: String, tenantId: String?, localId: String, signInProvider: SignInProvider) {
            self.projectId = projectId
            self.tenantId = tenantId
            self.localId = localId
            self.signInProvider = signInProvider
        }
    }
}

/// `session.revokeFactor`: ends every session of a user that was established with a second factor
/// (contract decision 4, on withdraw), or begun by a first factor of that id (a deleted passkey's
/// `passkey:<credential id>`). Returns how many sessions ended.
public enum RevokeFactorSessions: RPCMethod {
    public static let name = "session.revokeFactor"

    public struct Params: Codable, Sendable, Hashable {
        public var projectId: String
        public var tenantId: String?
        public var localId: String
        public var secondFactorIdentifier: String

        public init(projectId: String, tenantId: String? = nil, localId: String, secondFactorIdentifier: String) {
            self.projectId = projectId
            self.tenantId = tenantId
            self.localId = localId
            self.secondFactorIdentifier = secondFactorIdentifier
        }
    }

    public struct Result: Codable, Sendable, Hashable {
        public var revoked: Int
        public init(revoked: Int) { self.revoked = revoked }
    }
}

extension RPCErrorCode {
    /// `INVALID_MFA_PENDING_CREDENTIAL`.
    public static let invalidPendingCredential = RPCErrorCode(1203)
    /// `INVALID_SESSION_INFO`: an enrollment's session was finished, and this is no exact retry
    /// whose session still stands (decision 22).
    public static let finishedEnrollment = RPCErrorCode(1204)
}
