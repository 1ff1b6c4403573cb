import Contracts
import JSONRPC

/// The Identity Toolkit answers of challenge checks.
enum ChallengeRejection {
    static func error(_ message: String) -> RPCError {
        RPCError(code: .challengeRejected, identityToolkitError: message)
    }

    static let invalidSession = error("INVALID_SESSION_INFO")
    static let sessionExpired = error("SESSION_EXPIRED")
    static let invalidCode = error("INVALID_CODE")
    static let tooManyAttempts = error("TOO_MANY_ATTEMPTS_TRY_LATER")
    static let enrollmentNotFound = error("MFA_ENROLLMENT_NOT_FOUND")
}
