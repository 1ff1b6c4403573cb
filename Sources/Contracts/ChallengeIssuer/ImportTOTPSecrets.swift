import JSONRPC

/// `totp.importSecrets`: the shared secrets of imported TOTP factors (this server's extension of
/// `accounts:batchCreate`: `mfaInfo[].totpInfo.sharedSecretKey`, base32), sealed and stored before
/// factor-registry stores their enrollments, so a failure in between leaves only secrets that the
/// orphan sweep deletes, never a factor without its secret. An entry whose key is not base32 of 10
/// to 64 bytes, or whose enrollment id another user's factor has, is refused by its index.
public enum ImportTOTPSecrets: RPCMethod {
    public static let name = "totp.importSecrets"
    /// Never batched: it seals secrets by the thousand (``RPCMethod/sharesBatches``).
    public static let sharesBatches = false

    public struct Secret: Codable, Sendable, Hashable {
        public var localId: String
        public var mfaEnrollmentId: String
        public var sharedSecretKey: String

        public init(localId: String, mfaEnrollmentId: String, sharedSecretKey: String) {
            self.localId = localId
            self.mfaEnrollmentId = mfaEnrollmentId
            self.sharedSecretKey = sharedSecretKey
        }
    }

    public struct Params: Codable, Sendable, Hashable {
        public var projectId: String
        public var tenantId: String?
        public var secrets: [Secret]

        public init(projectId: String, tenantId: String? = nil, secrets: [Secret]) {
            self.projectId = projectId
            self.tenantId = tenantId
            self.secrets = secrets
        }
    }

    public struct Result: Codable, Sendable, Hashable {
        /// Indexes of `secrets` that were not stored, and why.
        public var refused: [Refusal]

        public init(refused: [Refusal]) { self.refused = refused }
    }

    public struct Refusal: Codable, Sendable, Hashable {
        public var index: Int
        public var message: String

        public init(index: Int, message: String) {
            self.index = index
            self.message = message
        }
    }
}
