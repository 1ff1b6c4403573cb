extension IdentityToolkitError {
    /// The catalogue of business error codes: the word a client reads before ` : ` in `error.message`
    /// (contract §1.6). Code compares codes through this type, never message text; a code outside
    /// the catalogue cannot be made (the set is closed, as postgres-nio's `PSQLError.Code` is).
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        private let base: Base

        private init(_ base: Base) { self.base = base }

        /// The code as written on the wire, for example `USER_NOT_FOUND`.
        public var rawValue: String { base.rawValue }
        public var description: String { base.rawValue }

        /// The catalogue's code with this spelling; `nil` for anything else.
        public init?(rawValue: String) {
            guard let base = Base(rawValue: rawValue) else { return nil }
            self.base = base
        }

        public static var all: [Code] { Base.allCases.map(Code.init) }

        public static let adminOnlyOperation = Code(.adminOnlyOperation)
        public static let blockingFunctionErrorResponse = Code(.blockingFunctionErrorResponse)
        public static let captchaCheckFailed = Code(.captchaCheckFailed)
        public static let claimsTooLarge = Code(.claimsTooLarge)
        public static let configurationExists = Code(.configurationExists)
        public static let configurationNotFound = Code(.configurationNotFound)
        public static let credentialMismatch = Code(.credentialMismatch)
        public static let credentialTooOldLoginAgain = Code(.credentialTooOldLoginAgain)
        public static let duplicateEmail = Code(.duplicateEmail)
        public static let duplicateLocalID = Code(.duplicateLocalID)
        public static let duplicateMFAEnrollmentID = Code(.duplicateMFAEnrollmentID)
        public static let emailExists = Code(.emailExists)
        public static let emailNotFound = Code(.emailNotFound)
        public static let expiredOOBCode = Code(.expiredOOBCode)
        public static let federatedUserIDAlreadyLinked = Code(.federatedUserIDAlreadyLinked)
        public static let forbiddenClaim = Code(.forbiddenClaim)
        public static let insufficientPermission = Code(.insufficientPermission)
        public static let invalidAppCredential = Code(.invalidAppCredential)
        public static let invalidAuthenticatorResponse = Code(.invalidAuthenticatorResponse)
        public static let invalidArgument = Code(.invalidArgument)
        public static let invalidClaims = Code(.invalidClaims)
        public static let invalidCode = Code(.invalidCode)
        public static let invalidConfig = Code(.invalidConfig)
        public static let invalidContinueURI = Code(.invalidContinueURI)
        public static let invalidCredentialOrProviderID = Code(.invalidCredentialOrProviderID)
        public static let invalidCustomToken = Code(.invalidCustomToken)
        public static let invalidDisplayName = Code(.invalidDisplayName)
        public static let invalidDuration = Code(.invalidDuration)
        public static let invalidEmail = Code(.invalidEmail)
        public static let invalidGrantType = Code(.invalidGrantType)
        public static let invalidHashAlgorithm = Code(.invalidHashAlgorithm)
        public static let invalidHashParameter = Code(.invalidHashParameter)
        public static let invalidHashRounds = Code(.invalidHashRounds)
        public static let invalidIdentifier = Code(.invalidIdentifier)
        public static let invalidIdpResponse = Code(.invalidIdpResponse)
        public static let invalidIDToken = Code(.invalidIDToken)
        public static let invalidLocalID = Code(.invalidLocalID)
        public static let invalidLoginCredentials = Code(.invalidLoginCredentials)
        public static let invalidMFAEnrollmentID = Code(.invalidMFAEnrollmentID)
        public static let invalidMFAPendingCredential = Code(.invalidMFAPendingCredential)
        public static let invalidMFAPhoneNumber = Code(.invalidMFAPhoneNumber)
        public static let invalidNewEmail = Code(.invalidNewEmail)
        public static let invalidOAuthClientID = Code(.invalidOAuthClientID)
        public static let invalidOOBCode = Code(.invalidOOBCode)
        public static let invalidPassword = Code(.invalidPassword)
        public static let invalidPendingToken = Code(.invalidPendingToken)
        public static let invalidPhoneNumber = Code(.invalidPhoneNumber)
        public static let invalidPhotoURL = Code(.invalidPhotoURL)
        public static let invalidProviderID = Code(.invalidProviderID)
        public static let invalidRefreshToken = Code(.invalidRefreshToken)
        public static let invalidReqType = Code(.invalidReqType)
        public static let invalidRequestURI = Code(.invalidRequestURI)
        public static let invalidSessionInfo = Code(.invalidSessionInfo)
        public static let invalidTemporaryProof = Code(.invalidTemporaryProof)
        public static let invalidTestingPhoneNumber = Code(.invalidTestingPhoneNumber)
        public static let localIDListExceedsLimit = Code(.localIDListExceedsLimit)
        public static let maximumTestPhoneNumberExceeded = Code(.maximumTestPhoneNumberExceeded)
        public static let maximumUserCountExceeded = Code(.maximumUserCountExceeded)
        public static let mfaEnrollmentNotFound = Code(.mfaEnrollmentNotFound)
        public static let missingAppCredential = Code(.missingAppCredential)
        public static let missingAppToken = Code(.missingAppToken)
        public static let missingCode = Code(.missingCode)
        public static let missingContinueURI = Code(.missingContinueURI)
        public static let missingCredential = Code(.missingCredential)
        public static let missingCustomToken = Code(.missingCustomToken)
        public static let missingEmail = Code(.missingEmail)
        public static let missingGrantType = Code(.missingGrantType)
        public static let missingIdentifier = Code(.missingIdentifier)
        public static let missingIDToken = Code(.missingIDToken)
        public static let missingLocalID = Code(.missingLocalID)
        public static let missingMFAEnrollmentID = Code(.missingMFAEnrollmentID)
        public static let missingMFAPendingCredential = Code(.missingMFAPendingCredential)
        public static let missingNewEmail = Code(.missingNewEmail)
        public static let missingNewPassword = Code(.missingNewPassword)
        public static let missingOOBCode = Code(.missingOOBCode)
        public static let missingOrInvalidNonce = Code(.missingOrInvalidNonce)
        public static let missingPassword = Code(.missingPassword)
        public static let missingProviderID = Code(.missingProviderID)
        public static let missingRefreshToken = Code(.missingRefreshToken)
        public static let missingReqType = Code(.missingReqType)
        public static let missingRequestURI = Code(.missingRequestURI)
        public static let missingSessionID = Code(.missingSessionID)
        public static let missingSessionInfo = Code(.missingSessionInfo)
        public static let missingUserAccount = Code(.missingUserAccount)
        public static let notDisabled = Code(.notDisabled)
        public static let operationNotAllowed = Code(.operationNotAllowed)
        public static let passkeyChallengeTimeout = Code(.passkeyChallengeTimeout)
        public static let passkeyEnrollmentNotFound = Code(.passkeyEnrollmentNotFound)
        public static let passkeyExists = Code(.passkeyExists)
        public static let passkeyLimitExceeded = Code(.passkeyLimitExceeded)
        public static let passkeyNotEnabled = Code(.passkeyNotEnabled)
        public static let passwordDoesNotMeetRequirements = Code(.passwordDoesNotMeetRequirements)
        public static let passwordLoginDisabled = Code(.passwordLoginDisabled)
        public static let phoneNumberExists = Code(.phoneNumberExists)
        public static let projectDisabled = Code(.projectDisabled)
        public static let providerAlreadyLinked = Code(.providerAlreadyLinked)
        /// The scope's SMS spend cap or its pumping defence stopped a send (the SDKs' `auth/quota-exceeded`).
        public static let quotaExceeded = Code(.quotaExceeded)
        public static let secondFactorExists = Code(.secondFactorExists)
        public static let secondFactorLimitExceeded = Code(.secondFactorLimitExceeded)
        public static let sessionExpired = Code(.sessionExpired)
        public static let tenantIDMismatch = Code(.tenantIDMismatch)
        public static let tenantNotFound = Code(.tenantNotFound)
        public static let tokenExpired = Code(.tokenExpired)
        public static let tooManyAttemptsTryLater = Code(.tooManyAttemptsTryLater)
        public static let unauthorizedDomain = Code(.unauthorizedDomain)
        public static let unexpectedParameter = Code(.unexpectedParameter)
        public static let unsupportedFirstFactor = Code(.unsupportedFirstFactor)
        public static let unsupportedTenantOperation = Code(.unsupportedTenantOperation)
        public static let unverifiedEmail = Code(.unverifiedEmail)
        public static let userDisabled = Code(.userDisabled)
        public static let userNotFound = Code(.userNotFound)
        public static let weakPassword = Code(.weakPassword)

        private enum Base: String, CaseIterable {
            case adminOnlyOperation = "ADMIN_ONLY_OPERATION"
            case blockingFunctionErrorResponse = "BLOCKING_FUNCTION_ERROR_RESPONSE"
            case captchaCheckFailed = "CAPTCHA_CHECK_FAILED"
            case claimsTooLarge = "CLAIMS_TOO_LARGE"
            case configurationExists = "CONFIGURATION_EXISTS"
            case configurationNotFound = "CONFIGURATION_NOT_FOUND"
            /// A custom token signed by another project's service account (the SDKs' `auth/custom-token-mismatch`).
            case credentialMismatch = "CREDENTIAL_MISMATCH"
            case credentialTooOldLoginAgain = "CREDENTIAL_TOO_OLD_LOGIN_AGAIN"
            case duplicateEmail = "DUPLICATE_EMAIL"
            case duplicateLocalID = "DUPLICATE_LOCAL_ID"
            case duplicateMFAEnrollmentID = "DUPLICATE_MFA_ENROLLMENT_ID"
            case emailExists = "EMAIL_EXISTS"
            case emailNotFound = "EMAIL_NOT_FOUND"
            case expiredOOBCode = "EXPIRED_OOB_CODE"
            case federatedUserIDAlreadyLinked = "FEDERATED_USER_ID_ALREADY_LINKED"
            case forbiddenClaim = "FORBIDDEN_CLAIM"
            case insufficientPermission = "INSUFFICIENT_PERMISSION"
            case invalidAppCredential = "INVALID_APP_CREDENTIAL"
            case invalidAuthenticatorResponse = "INVALID_AUTHENTICATOR_RESPONSE"
            case invalidArgument = "INVALID_ARGUMENT"
            case invalidClaims = "INVALID_CLAIMS"
            case invalidCode = "INVALID_CODE"
            case invalidConfig = "INVALID_CONFIG"
            case invalidContinueURI = "INVALID_CONTINUE_URI"
            case invalidCredentialOrProviderID = "INVALID_CREDENTIAL_OR_PROVIDER_ID"
            case invalidCustomToken = "INVALID_CUSTOM_TOKEN"
            case invalidDisplayName = "INVALID_DISPLAY_NAME"
            case invalidDuration = "INVALID_DURATION"
            case invalidEmail = "INVALID_EMAIL"
            case invalidGrantType = "INVALID_GRANT_TYPE"
            case invalidHashAlgorithm = "INVALID_HASH_ALGORITHM"
            case invalidHashParameter = "INVALID_HASH_PARAMETER"
            case invalidHashRounds = "INVALID_HASH_ROUNDS"
            case invalidIdentifier = "INVALID_IDENTIFIER"
            case invalidIdpResponse = "INVALID_IDP_RESPONSE"
            case invalidIDToken = "INVALID_ID_TOKEN"
            case invalidLocalID = "INVALID_LOCAL_ID"
            case invalidLoginCredentials = "INVALID_LOGIN_CREDENTIALS"
            case invalidMFAEnrollmentID = "INVALID_MFA_ENROLLMENT_ID"
            case invalidMFAPendingCredential = "INVALID_MFA_PENDING_CREDENTIAL"
            case invalidMFAPhoneNumber = "INVALID_MFA_PHONE_NUMBER"
            case invalidNewEmail = "INVALID_NEW_EMAIL"
            case invalidOAuthClientID = "INVALID_OAUTH_CLIENT_ID"
            case invalidOOBCode = "INVALID_OOB_CODE"
            case invalidPassword = "INVALID_PASSWORD"
            case invalidPendingToken = "INVALID_PENDING_TOKEN"
            case invalidPhoneNumber = "INVALID_PHONE_NUMBER"
            case invalidPhotoURL = "INVALID_PHOTO_URL"
            case invalidProviderID = "INVALID_PROVIDER_ID"
            case invalidRefreshToken = "INVALID_REFRESH_TOKEN"
            case invalidReqType = "INVALID_REQ_TYPE"
            case invalidRequestURI = "INVALID_REQUEST_URI"
            case invalidSessionInfo = "INVALID_SESSION_INFO"
            case invalidTemporaryProof = "INVALID_TEMPORARY_PROOF"
            case invalidTestingPhoneNumber = "INVALID_TESTING_PHONE_NUMBER"
            case localIDListExceedsLimit = "LOCAL_ID_LIST_EXCEEDS_LIMIT"
            case maximumTestPhoneNumberExceeded = "MAXIMUM_TEST_PHONE_NUMBER_EXCEEDED"
            case maximumUserCountExceeded = "MAXIMUM_USER_COUNT_EXCEEDED"
            case mfaEnrollmentNotFound = "MFA_ENROLLMENT_NOT_FOUND"
            case missingAppCredential = "MISSING_APP_CREDENTIAL"
            case missingAppToken = "MISSING_APP_TOKEN"
            case missingCode = "MISSING_CODE"
            case missingContinueURI = "MISSING_CONTINUE_URI"
            case missingCredential = "MISSING_CREDENTIAL"
            case missingCustomToken = "MISSING_CUSTOM_TOKEN"
            case missingEmail = "MISSING_EMAIL"
            case missingGrantType = "MISSING_GRANT_TYPE"
            case missingIdentifier = "MISSING_IDENTIFIER"
            case missingIDToken = "MISSING_ID_TOKEN"
            case missingLocalID = "MISSING_LOCAL_ID"
            case missingMFAEnrollmentID = "MISSING_MFA_ENROLLMENT_ID"
            case missingMFAPendingCredential = "MISSING_MFA_PENDING_CREDENTIAL"
            case missingNewEmail = "MISSING_NEW_EMAIL"
            case missingNewPassword = "MISSING_NEW_PASSWORD"
            case missingOOBCode = "MISSING_OOB_CODE"
            case missingOrInvalidNonce = "MISSING_OR_INVALID_NONCE"
            case missingPassword = "MISSING_PASSWORD"
            case missingProviderID = "MISSING_PROVIDER_ID"
            case missingRefreshToken = "MISSING_REFRESH_TOKEN"
            case missingRequestURI = "MISSING_REQUEST_URI"
            case missingReqType = "MISSING_REQ_TYPE"
            case missingSessionID = "MISSING_SESSION_ID"
            case missingSessionInfo = "MISSING_SESSION_INFO"
            case missingUserAccount = "MISSING_USER_ACCOUNT"
            case notDisabled = "NOT_DISABLED"
            case operationNotAllowed = "OPERATION_NOT_ALLOWED"
            case passkeyChallengeTimeout = "PASSKEY_CHALLENGE_TIMEOUT"
            case passkeyEnrollmentNotFound = "PASSKEY_ENROLLMENT_NOT_FOUND"
            case passkeyExists = "PASSKEY_EXISTS"
            case passkeyLimitExceeded = "PASSKEY_LIMIT_EXCEEDED"
            case passkeyNotEnabled = "PASSKEY_NOT_ENABLED"
            case passwordDoesNotMeetRequirements = "PASSWORD_DOES_NOT_MEET_REQUIREMENTS"
            case passwordLoginDisabled = "PASSWORD_LOGIN_DISABLED"
            case phoneNumberExists = "PHONE_NUMBER_EXISTS"
            case projectDisabled = "PROJECT_DISABLED"
            case providerAlreadyLinked = "PROVIDER_ALREADY_LINKED"
            case quotaExceeded = "QUOTA_EXCEEDED"
            case secondFactorExists = "SECOND_FACTOR_EXISTS"
            case secondFactorLimitExceeded = "SECOND_FACTOR_LIMIT_EXCEEDED"
            case sessionExpired = "SESSION_EXPIRED"
            case tenantIDMismatch = "TENANT_ID_MISMATCH"
            case tenantNotFound = "TENANT_NOT_FOUND"
            case tokenExpired = "TOKEN_EXPIRED"
            case tooManyAttemptsTryLater = "TOO_MANY_ATTEMPTS_TRY_LATER"
            case unauthorizedDomain = "UNAUTHORIZED_DOMAIN"
            case unexpectedParameter = "UNEXPECTED_PARAMETER"
            case unsupportedFirstFactor = "UNSUPPORTED_FIRST_FACTOR"
            case unsupportedTenantOperation = "UNSUPPORTED_TENANT_OPERATION"
            case unverifiedEmail = "UNVERIFIED_EMAIL"
            case userDisabled = "USER_DISABLED"
            case userNotFound = "USER_NOT_FOUND"
            case weakPassword = "WEAK_PASSWORD"
        }
    }
}
