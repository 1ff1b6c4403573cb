import JSONRPC

/// `oobCode.create`: a new out-of-band code for an account's email (`VERIFY_EMAIL`). The account is
/// named by `localId` (the signed-in user) or by `email` (an admin generating a link). Only a hash of
/// the code is stored; the code itself is returned once. Checks: `USER_NOT_FOUND`, `MISSING_EMAIL`.
public enum CreateOobCode: RPCMethod {
    public static let name = "oobCode.create"

    public struct Params: Codable, Sendable, Hashable {
        public var projectId: String
        public var tenantId: String?
        public var requestType: String
        public var localId: String?
        public var email: String?
        /// The client's address when a client asked for the code to be mailed: the mail is limited
        /// per address and per account. An admin generating a link sends none.
        public var clientAddress: String?

        public init(
            projectId: String, tenantId: String? = nil, requestType: String, localId: String? = nil, email: String? = nil,
            clientAddress: String? = nil
        ) {
            self.clientAddress = clientAddress
            self.projectId = projectId
            self.tenantId = tenantId
            self.requestType = requestType
            self.localId = localId
            self.email = email
        }
    }

    public struct Result: Codable, Sendable, Hashable {
        /// 54 base64url characters (320 random bits).
        public var oobCode: String
        public var email: String
        public var localId: String

        public init(oobCode: String, email: String, localId: String) {
            self.oobCode = oobCode
            self.email = email
            self.localId = localId
        }
    }
}

/// `oobCode.apply`: uses a code once. For `VERIFY_EMAIL` the account gets `emailVerified`, provided
/// its email is still the one the code was sent to. Checks: `INVALID_OOB_CODE` (unknown, used, or
/// the email changed since), `EXPIRED_OOB_CODE`.
public enum ApplyOobCode: RPCMethod {
    public static let name = "oobCode.apply"

    public struct Params: Codable, Sendable, Hashable {
        public var projectId: String
        public var tenantId: String?
        public var oobCode: String

        public init(projectId: String, tenantId: String? = nil, oobCode: String) {
            self.projectId = projectId
            self.tenantId = tenantId
            self.oobCode = oobCode
        }
    }

    public struct Result: Codable, Sendable, Hashable {
        public var requestType: String
        public var account: Account

        public init(requestType: String, account: Account) {
            self.requestType = requestType
            self.account = account
        }
    }
}
