import AuthVocabulary
import JSONRPC

/// `account.update`: changes an account (Admin SDK `updateUser`, and later the user's own changes).
/// A password or email change also moves `validSince` to now, ending every earlier session; an
/// email change clears `emailVerified`. Checks: `USER_NOT_FOUND`, `INVALID_EMAIL`, `EMAIL_EXISTS`,
/// `WEAK_PASSWORD`. A sign-in is recorded with `account.recordSignIn`.
public enum UpdateAccount: RPCMethod {
    public static let name = "account.update"
    /// Never batched: it may hash a password (``RPCMethod/sharesBatches``).
    public static let sharesBatches = false

    public struct Params: Codable, Sendable, Hashable {
        public var projectId: String
        public var tenantId: String?
        public var localId: String
        public var email: String?
        public var password: String?
        public var displayName: String?
        public var deleteDisplayName: Bool?
        public var emailVerified: Bool?
        public var disabled: Bool?
        /// Seconds since the epoch; sessions begun earlier are revoked.
        public var validSince: EpochSeconds?
        /// Developer claims, a JSON object in text; `{}` removes them all.
        public var customAttributes: String?
        /// E.164 (`INVALID_PHONE_NUMBER : Invalid format.`, `PHONE_NUMBER_EXISTS`).
        public var phoneNumber: String?
        /// Removes the phone number (`deleteProvider: ["phone"]`).
        public var deletePhoneNumber: Bool?
        /// At most 2048 bytes (`INVALID_PHOTO_URL`).
        public var photoUrl: String?
        public var deletePhotoUrl: Bool?
        /// Identity providers whose users are unlinked from the account (`deleteProvider: ["google.com"]`).
        public var unlinkProviders: [String]?
        /// The user's own unlink (`deleteProvider`): refused with `OPERATION_NOT_ALLOWED` when it
        /// would leave the account no way to sign in (issue 56, F-12). An admin's update may.
        public var keepWayIn: Bool?

        public init(
            projectId: String, tenantId: String? = nil, localId: String, email: String? = nil, password: String? = nil,
            displayName: String? = nil, deleteDisplayName: Bool? = nil, emailVerified: Bool? = nil, disabled: Bool? = nil,
            validSince: EpochSeconds? = nil, customAttributes: String? = nil, phoneNumber: String? = nil, deletePhoneNumber: Bool? = nil,
            photoUrl: String? = nil, deletePhotoUrl: Bool? = nil, unlinkProviders: [String]? = nil, keepWayIn: Bool? = nil
        ) {
            self.unlinkProviders = unlinkProviders
            self.keepWayIn = keepWayIn
            self.photoUrl = photoUrl
            self.deletePhotoUrl = deletePhotoUrl
            self.phoneNumber = phoneNumber
            self.deletePhoneNumber = deletePhoneNumber
            self.projectId = projectId
            self.tenantId = tenantId
            self.localId = localId
            self.email = email
            self.password = password
            self.displayName = displayName
            self.deleteDisplayName = deleteDisplayName
            self.emailVerified = emailVerified
            self.disabled = disabled
            self.validSince = validSince
            self.customAttributes = customAttributes
        }
    }

    public typealias Result = Account
}

/// `account.list`: a project's or tenant's accounts ordered by `localId`, a page at a time.
public enum ListAccounts: RPCMethod {
    public static let name = "account.list"

    public struct Params: Codable, Sendable, Hashable {
        public var projectId: String
        public var tenantId: String?
        /// 1...1000, default 20.
        public var maxResults: Int?
        /// The last `localId` of the previous page.
        public var pageToken: String?

        public init(projectId: String, tenantId: String? = nil, maxResults: Int? = nil, pageToken: String? = nil) {
            self.projectId = projectId
            self.tenantId = tenantId
            self.maxResults = maxResults
            self.pageToken = pageToken
        }
    }

    public struct Result: Codable, Sendable, Hashable {
        public var accounts: [Account]
        public var nextPageToken: String?

        public init(accounts: [Account], nextPageToken: String?) {
            self.accounts = accounts
            self.nextPageToken = nextPageToken
        }
    }
}
