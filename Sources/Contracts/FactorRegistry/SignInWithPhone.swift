import AuthVocabulary
import JSONRPC

/// `account.signInWithPhone`: the phone as a first factor, after the number was verified (contract
/// §2.13). The account with the number is signed in (`lastLoginAt`), or created the first time
/// (`isNewUser`). An account with any second factor cannot use a phone as its first factor:
/// `UNSUPPORTED_FIRST_FACTOR : A phone number cannot be set as a first factor on an SMS based MFA
/// user.` Also `USER_DISABLED`.
public enum SignInWithPhone: RPCMethod {
    public static let name = "account.signInWithPhone"

    public struct Params: Codable, Sendable, Hashable {
        public var projectId: String
        public var tenantId: String?
        public var phoneNumber: String
        public var clientAddress: String?
        /// A new account is created disabled, held for its `beforeCreate` function: the gateway
        /// releases it once the function allows it (docs/blocking-functions.md), so no crash in between
        /// leaves a way in the function never allowed.
        public var holdNewAccount: Bool?

        public init(
            projectId: String, tenantId: String? = nil, phoneNumber: String, clientAddress: String? = nil, holdNewAccount: Bool? = nil
        ) {
            self.holdNewAccount = holdNewAccount
            self.projectId = projectId
            self.tenantId = tenantId
            self.phoneNumber = phoneNumber
            self.clientAddress = clientAddress
        }
    }

    public struct Result: Codable, Sendable, Hashable {
        public var account: Account
        public var isNewUser: Bool
        /// Seconds since the epoch.
        public var lastLoginAt: EpochSeconds

        public init(account: Account, isNewUser: Bool, lastLoginAt: EpochSeconds) {
            self.account = account
            self.isNewUser = isNewUser
            self.lastLoginAt = lastLoginAt
        }
    }
}
