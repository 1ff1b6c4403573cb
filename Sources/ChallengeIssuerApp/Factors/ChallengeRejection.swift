import Contracts
import IdentityToolkit
import JSONRPC

/// The Identity Toolkit answers of challenge checks.
enum ChallengeRejection {
    static func error(_ code: IdentityToolkitError.Code, detail: String? = nil) -> RPCError {
        error(IdentityToolkitError(code, detail: detail))
    }

    static func error(_ error: IdentityToolkitError) -> RPCError {
        RPCError(code: .challengeRejected, business: error)
    }

    static let invalidSession = error(.invalidSessionInfo)
    static let sessionExpired = error(.sessionExpired)
    static let invalidCode = error(.invalidCode)
    static let tooManyAttempts = error(.tooManyAttemptsTryLater)
    static let enrollmentNotFound = error(.mfaEnrollmentNotFound)
}
