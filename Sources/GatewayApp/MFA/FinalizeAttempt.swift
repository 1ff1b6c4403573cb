import AuthVocabulary
import Contracts
import Crypto
import Foundation

/// What makes a retried finalize the same attempt as the first (a finalize
/// whose answer was lost after it changed something must reach the same outcome when retried).
/// Both are one-way digests of a secret only the client holds, so neither reveals it.
enum FinalizeAttempt {
    /// The enrollment an enrollment session becomes: the same session always gives the same id,
    /// so a retried `mfaEnrollment:finalize` finds the factor its first attempt saved instead of
    /// adding a second one. 28 letters and digits, like every other id.
    static func enrollmentId(finishing sessionInfo: String) -> String {
        let digest = SHA256.hash(data: Data("mfa-backend enrollment of session \(sessionInfo)".utf8))
        return RandomIdentifier.from(bytes: Array(digest))
    }

    /// The sign-in a pending credential finishes, as challenge-issuer records it with the step or
    /// session it spent (`attempt`): the same credential may spend it again, no other.
    static func signIn(finishing credential: String) -> String {
        let digest = SHA256.hash(data: Data("mfa-backend sign-in of pending credential \(credential)".utf8))
        return Data(digest).base64EncodedString()
    }
}

extension Account {
    /// Whether the account's last revocation was the enrollment of `enrollmentId`: enrolling moves
    /// `validSince` to the second after `enrolledAt` in the same commit, and anything that revokes
    /// sessions later moves it again. Only then may a token that enrollment revoked retry it.
    func lastRevoked(byEnrolling enrollmentId: String) -> Bool {
        guard let validSince, let enrollment = mfaInfo?.first(where: { $0.mfaEnrollmentId == enrollmentId }),
            let enrolledAt = Self.seconds(enrollment.enrolledAt)
        else { return false }
        return validSince == enrolledAt + 1
    }

    private static func seconds(_ rfc3339: String) -> EpochSeconds? {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        guard let date = formatter.date(from: rfc3339) ?? ISO8601DateFormatter().date(from: rfc3339) else { return nil }
        return EpochSeconds(date)
    }
}
