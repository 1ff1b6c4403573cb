import AuthVocabulary
import JSONRPC

/// `oobCode.create`: a new out-of-band code (contract §2.5). Only a hash of the code is
/// stored; the code itself is returned once. What each request type needs and records:
/// - `VERIFY_EMAIL`, `PASSWORD_RESET`: the account (by `localId`, or by `email` for an admin or a
///   reset request) and its current email.
/// - `EMAIL_SIGNIN`: `email`; the account is optional (signing in creates it).
/// - `VERIFY_AND_CHANGE_EMAIL`: the account and `newEmail`, the address it will change to
///   (`INVALID_NEW_EMAIL`, `EMAIL_EXISTS`).
/// - `RECOVER_EMAIL`: the account (`localId`), `email` = the address to restore, `newEmail` = the
///   address being undone.
/// - `REVERT_SECOND_FACTOR_ADDITION`: the account (`localId`) and `enrollmentId`.
/// - `REVERT_PHONE_NUMBER_ADDITION`: the account (`localId`) and `phoneNumber`, the number it has now.
/// Checks: `USER_NOT_FOUND`, `MISSING_EMAIL`, `INVALID_REQ_TYPE`.
public enum CreateOOBCode: RPCMethod {
    public static let name = "oobCode.create"

    public struct Params: Codable, Sendable, Hashable {
        public var projectId: String
        public var tenantId: String?
        public var requestType: OOBRequestType
        public var localId: String?
        public var email: String?
        /// The client's address when a client asked for the code to be mailed: the mail is limited
        /// per address and per account. An admin generating a link sends none.
        public var clientAddress: String?
        public var newEmail: String?
        public var enrollmentId: String?
        public var phoneNumber: String?
        /// `RECOVER_EMAIL`: whether the address it restores had been proved before the change. When
        /// it had not, the recovery is that address's first proof and claims the account (issue 56).
        public var emailProved: Bool?

        public init(
            projectId: String, tenantId: String? = nil, requestType: OOBRequestType, localId: String? = nil, email: String? = nil,
            clientAddress: String? = nil, newEmail: String? = nil, enrollmentId: String? = nil, phoneNumber: String? = nil,
            emailProved: Bool? = nil
        ) {
            self.emailProved = emailProved
            self.phoneNumber = phoneNumber
            self.clientAddress = clientAddress
            self.projectId = projectId
            self.tenantId = tenantId
            self.requestType = requestType
            self.localId = localId
            self.email = email
            self.newEmail = newEmail
            self.enrollmentId = enrollmentId
        }
    }

    public struct Result: Codable, Sendable, Hashable {
        /// 54 base64url characters (320 random bits).
        public var oobCode: String
        /// The code's email (see the request types above).
        public var email: String
        /// Absent for an email sign-in to an address with no account yet.
        public var localId: String?
        public var newEmail: String?

        public init(oobCode: String, email: String, localId: String?, newEmail: String? = nil) {
            self.oobCode = oobCode
            self.email = email
            self.localId = localId
            self.newEmail = newEmail
        }
    }
}

/// `oobCode.inspect`: what a code is for, without using it (the SDKs' `checkActionCode`, sent as
/// `accounts:resetPassword {oobCode}`). Checks: `INVALID_OOB_CODE`, `EXPIRED_OOB_CODE`.
public enum InspectOOBCode: RPCMethod {
    public static let name = "oobCode.inspect"

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

    public typealias Result = OOBCodeInfo
}

/// What an out-of-band code is for.
public struct OOBCodeInfo: Codable, Sendable, Hashable {
    public var requestType: OOBRequestType
    public var email: String
    public var newEmail: String?
    /// The factor a `REVERT_SECOND_FACTOR_ADDITION` code removes.
    public var enrollment: Enrollment?
    /// What the applied revert removed with ``enrollment``: the recovery codes that backed up the
    /// account's last factor, which go with it (their set is deleted by id, like the factor's secret).
    public var alsoRemoved: [Enrollment]?
    /// The number a `REVERT_PHONE_NUMBER_ADDITION` code removes.
    public var phoneNumber: String?
    /// `VERIFY_AND_CHANGE_EMAIL`, once applied: whether the address it changed from had been proved
    /// (the `RECOVER_EMAIL` link mailed there carries it).
    public var emailProved: Bool?

    public init(
        requestType: OOBRequestType, email: String, newEmail: String? = nil, enrollment: Enrollment? = nil, phoneNumber: String? = nil,
        emailProved: Bool? = nil, alsoRemoved: [Enrollment]? = nil
    ) {
        self.alsoRemoved = alsoRemoved
        self.emailProved = emailProved
        self.phoneNumber = phoneNumber
        self.requestType = requestType
        self.email = email
        self.newEmail = newEmail
        self.enrollment = enrollment
    }
}

/// `oobCode.apply`: uses a code once, in one transaction with what it does:
/// - `VERIFY_EMAIL`: `emailVerified`, while the account's email is still the code's.
/// - `PASSWORD_RESET` (with `newPassword`: `WEAK_PASSWORD` before the code is used): the new
///   password, `emailVerified` (the mail reached the owner), `validSince` moved to now.
/// - `VERIFY_AND_CHANGE_EMAIL`: the email becomes `newEmail`, verified; `validSince` moved
///   (`EMAIL_EXISTS` when another account took it meanwhile, the code unused).
/// - `RECOVER_EMAIL`: back to the code's email, verified, while the account still has `newEmail`;
///   `validSince` moved.
/// - `REVERT_SECOND_FACTOR_ADDITION`: the factor removed (if still there); `validSince` moved.
/// - `REVERT_PHONE_NUMBER_ADDITION`: the number removed while the account still has it; `validSince`
///   moved (every session ends, the one that linked it too).
/// A disabled account answers `USER_DISABLED`, the code unused. A code of a type not in
/// `requestTypes` is not used and answers `INVALID_OOB_CODE`, like an
/// unknown or used one, and like one whose account changed since (`stale`). `EXPIRED_OOB_CODE`.
/// `EMAIL_SIGNIN` codes are used by `emailLink.signIn`.
public enum ApplyOOBCode: RPCMethod {
    public static let name = "oobCode.apply"

    public struct Params: Codable, Sendable, Hashable {
        public var projectId: String
        public var tenantId: String?
        public var oobCode: String
        /// The types this caller may use; absent: `VERIFY_EMAIL` only.
        public var requestTypes: [OOBRequestType]?
        public var newPassword: String?

        public init(
            projectId: String, tenantId: String? = nil, oobCode: String, requestTypes: [OOBRequestType]? = nil, newPassword: String? = nil
        ) {
            self.projectId = projectId
            self.tenantId = tenantId
            self.oobCode = oobCode
            self.requestTypes = requestTypes
            self.newPassword = newPassword
        }
    }

    public struct Result: Codable, Sendable, Hashable {
        public var requestType: OOBRequestType
        public var account: Account
        /// The code's email, new email and factor (as `oobCode.inspect` tells them).
        public var info: OOBCodeInfo?

        public init(requestType: OOBRequestType, account: Account, info: OOBCodeInfo? = nil) {
            self.requestType = requestType
            self.account = account
            self.info = info
        }
    }
}

/// `emailLink.signIn`: an `EMAIL_SIGNIN` code used for its email (`accounts:signInWithEmailLink`).
/// The code must have been sent to `email` (`INVALID_EMAIL : The email provided does not match the
/// sign-in email address.`). The account with that email has it verified; with none, one is
/// created (verified, no password), in the same transaction as the code's use. As with a password
/// (`account.verifyPassword`): an account with a factor of `secondFactorKinds` is answered with
/// `secondFactorRequired` and no sign-in recorded; otherwise the sign-in is recorded
/// (`lastLoginAt`, seconds). Checks: `INVALID_OOB_CODE`, `EXPIRED_OOB_CODE`, `USER_DISABLED`.
public enum SignInWithEmailLink: RPCMethod {
    public static let name = "emailLink.signIn"

    public struct Params: Codable, Sendable, Hashable {
        public var projectId: String
        public var tenantId: String?
        public var oobCode: String
        public var email: String
        public var secondFactorKinds: [FactorKind]?
        /// Link instead: the address becomes this (signed-in) account's, verified (`EMAIL_EXISTS`
        /// when another account has it). No second factor is asked: the user is signed in already.
        public var linkTo: String?
        /// A new account is created disabled, held for its `beforeCreate` function: the gateway
        /// releases it once the function allows it (docs/blocking-functions.md), so no crash in between
        /// leaves a way in the function never allowed.
        public var holdNewAccount: Bool?

        public init(
            projectId: String, tenantId: String? = nil, oobCode: String, email: String, secondFactorKinds: [FactorKind]? = nil,
            linkTo: String? = nil, holdNewAccount: Bool? = nil
        ) {
            self.holdNewAccount = holdNewAccount
            self.projectId = projectId
            self.tenantId = tenantId
            self.oobCode = oobCode
            self.email = email
            self.secondFactorKinds = secondFactorKinds
            self.linkTo = linkTo
        }
    }

    public struct Result: Codable, Sendable, Hashable {
        public var account: Account
        public var isNewUser: Bool
        public var lastLoginAt: EpochSeconds
        public var secondFactorRequired: Bool?

        public init(account: Account, isNewUser: Bool, lastLoginAt: EpochSeconds, secondFactorRequired: Bool? = nil) {
            self.account = account
            self.isNewUser = isNewUser
            self.lastLoginAt = lastLoginAt
            self.secondFactorRequired = secondFactorRequired
        }
    }
}
