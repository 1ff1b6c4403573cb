import JSONRPC

/// `sms.issueProof`: a `temporaryProof` that `phoneNumber` was just verified (contract §2.13). The
/// gateway asks for one after a verified code could not be linked to the signed-in user because
/// another account has the number: the client may then sign in to that account with the proof,
/// without a second SMS. Single use, five minutes; only its hash is kept.
public enum IssuePhoneProof: RPCMethod {
    public static let name = "sms.issueProof"

    public struct Params: Codable, Sendable, Hashable {
        public var projectId: String
        public var tenantId: String?
        public var phoneNumber: String

        public init(projectId: String, tenantId: String? = nil, phoneNumber: String) {
            self.projectId = projectId
            self.tenantId = tenantId
            self.phoneNumber = phoneNumber
        }
    }

    public struct Result: Codable, Sendable, Hashable {
        public var temporaryProof: String
        public init(temporaryProof: String) { self.temporaryProof = temporaryProof }
    }
}

/// `sms.redeemProof`: uses a `temporaryProof` for its number. Unknown, used, expired or for
/// another number: `INVALID_TEMPORARY_PROOF`.
public enum RedeemPhoneProof: RPCMethod {
    public static let name = "sms.redeemProof"

    public struct Params: Codable, Sendable, Hashable {
        public var projectId: String
        public var tenantId: String?
        public var phoneNumber: String
        public var temporaryProof: String

        public init(projectId: String, tenantId: String? = nil, phoneNumber: String, temporaryProof: String) {
            self.projectId = projectId
            self.tenantId = tenantId
            self.phoneNumber = phoneNumber
            self.temporaryProof = temporaryProof
        }
    }

    public typealias Result = RPCEmpty
}
