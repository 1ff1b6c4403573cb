import JSONRPC

/// A passkey as factor-registry keeps it (issue 59): the credential's id and COSE public key as the
/// authenticator gave them (base64url without padding), its algorithm, its signature counter, and
/// the name its owner gave it.
public struct PasskeyCredential: Codable, Sendable, Hashable {
    public var credentialId: String
    public var publicKey: String
    /// The COSE algorithm: -7 (ES256), -8 (EdDSA) or -257 (RS256).
    public var algorithm: Int
    public var signCount: Int64
    public var name: String
    /// The authenticator model's AAGUID (base64url); all zeros for most passkeys.
    public var aaguid: String?
    public var backupEligible: Bool
    public var backedUp: Bool

    public init(
        credentialId: String, publicKey: String, algorithm: Int, signCount: Int64, name: String, aaguid: String? = nil,
        backupEligible: Bool = false, backedUp: Bool = false
    ) {
        (self.credentialId, self.publicKey, self.algorithm, self.signCount, self.name) = (
            credentialId, publicKey, algorithm, signCount, name
        )
        (self.aaguid, self.backupEligible, self.backedUp) = (aaguid, backupEligible, backedUp)
    }

    /// What a passkey is known by where a factor's id goes: the sessions it started
    /// (`session.revokeFactor`, `firebase.first_factor_identifier`) and its new-factor notice's
    /// `REVERT_SECOND_FACTOR_ADDITION` code. Never a second factor's id (those are random hex).
    public static func factorIdentifier(_ credentialId: String) -> String { factorPrefix + credentialId }

    /// The credential id a factor identifier names, if it is a passkey's.
    public static func credentialId(factorIdentifier: String) -> String? {
        guard factorIdentifier.hasPrefix(factorPrefix), factorIdentifier.count > factorPrefix.count else { return nil }
        return String(factorIdentifier.dropFirst(factorPrefix.count))
    }

    private static let factorPrefix = "passkey:"
}

/// `passkeyInfo` of a user record: what its owner sees of a passkey.
public struct PasskeyEntry: Codable, Sendable, Hashable {
    public var localId: String
    public var credentialId: String
    public var name: String

    public init(localId: String, credentialId: String, name: String) {
        (self.localId, self.credentialId, self.name) = (localId, credentialId, name)
    }
}

/// `passkey.add`: keeps a verified new passkey for an account, audited as `factor.enrolled`
/// (`details.kind`: passkey). The account's row is locked while its passkeys are counted, so two
/// enrollments at once cannot pass the limit together. Errors: `USER_NOT_FOUND`, `PASSKEY_EXISTS`
/// (the credential id is registered in the scope, to anyone), `PASSKEY_LIMIT_EXCEEDED`.
public enum AddPasskey: RPCMethod {
    public static let name = "passkey.add"

    public struct Params: Codable, Sendable, Hashable {
        public var projectId: String
        public var tenantId: String?
        public var localId: String
        public var credential: PasskeyCredential
        /// Passkeys an account may have, this one included.
        public var maximumPerAccount: Int

        public init(projectId: String, tenantId: String? = nil, localId: String, credential: PasskeyCredential, maximumPerAccount: Int) {
            (self.projectId, self.tenantId, self.localId, self.credential) = (projectId, tenantId, localId, credential)
            self.maximumPerAccount = maximumPerAccount
        }
    }

    public typealias Result = RPCEmpty
}

/// `passkey.find`: the passkey with this credential id in the scope, to check a sign-in with.
/// Errors: `PASSKEY_ENROLLMENT_NOT_FOUND`.
public enum FindPasskey: RPCMethod {
    public static let name = "passkey.find"

    public struct Params: Codable, Sendable, Hashable {
        public var projectId: String
        public var tenantId: String?
        public var credentialId: String

        public init(projectId: String, tenantId: String? = nil, credentialId: String) {
            (self.projectId, self.tenantId, self.credentialId) = (projectId, tenantId, credentialId)
        }
    }

    public struct Result: Codable, Sendable, Hashable {
        public var localId: String
        public var credential: PasskeyCredential

        public init(localId: String, credential: PasskeyCredential) {
            (self.localId, self.credential) = (localId, credential)
        }
    }
}

/// `passkey.recordUse`: a checked sign-in's new counter, set only if the stored one is still
/// `previousSignCount` (two sign-ins with one passkey at once: one moves it, the other is refused
/// as `INVALID_AUTHENTICATOR_RESPONSE`); `PASSKEY_ENROLLMENT_NOT_FOUND` when the passkey went meanwhile.
public enum RecordPasskeyUse: RPCMethod {
    public static let name = "passkey.recordUse"

    public struct Params: Codable, Sendable, Hashable {
        public var projectId: String
        public var tenantId: String?
        public var credentialId: String
        public var previousSignCount: Int64
        public var signCount: Int64

        public init(projectId: String, tenantId: String? = nil, credentialId: String, previousSignCount: Int64, signCount: Int64) {
            (self.projectId, self.tenantId, self.credentialId) = (projectId, tenantId, credentialId)
            (self.previousSignCount, self.signCount) = (previousSignCount, signCount)
        }
    }

    public typealias Result = RPCEmpty
}

/// `passkey.remove`: deletes an account's passkeys by credential id (another account's ids are
/// left alone), each audited as `factor.withdrawn`. Returns the ids that went.
public enum RemovePasskeys: RPCMethod {
    public static let name = "passkey.remove"

    public struct Params: Codable, Sendable, Hashable {
        public var projectId: String
        public var tenantId: String?
        public var localId: String
        public var credentialIds: [String]

        public init(projectId: String, tenantId: String? = nil, localId: String, credentialIds: [String]) {
            (self.projectId, self.tenantId, self.localId, self.credentialIds) = (projectId, tenantId, localId, credentialIds)
        }
    }

    public struct Result: Codable, Sendable, Hashable {
        public var removed: [String]

        public init(removed: [String]) { self.removed = removed }
    }
}

/// `passkey.list`: the passkeys of some accounts (`passkeyInfo` of their user records), oldest first.
public enum ListPasskeys: RPCMethod {
    public static let name = "passkey.list"

    public struct Params: Codable, Sendable, Hashable {
        public var projectId: String
        public var tenantId: String?
        public var localIds: [String]

        public init(projectId: String, tenantId: String? = nil, localIds: [String]) {
            (self.projectId, self.tenantId, self.localIds) = (projectId, tenantId, localIds)
        }
    }

    public struct Result: Codable, Sendable, Hashable {
        public var passkeys: [PasskeyEntry]

        public init(passkeys: [PasskeyEntry]) { self.passkeys = passkeys }
    }
}
