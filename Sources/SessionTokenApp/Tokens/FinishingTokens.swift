import Crypto
import Foundation
import ServiceKit

/// The refresh token of the session that finishes a pending sign-in (`mfaSignIn:finalize`) is not
/// random: it is HMAC-SHA256 of the pending credential under a key derived from the master key.
/// A finalize retried after its answer was lost (the credential already used up) then finds the
/// session it started by that token's hash and gets the same token again: one session per
/// credential, and no refusal of a sign-in that succeeded. Without the
/// master key nobody can compute it, so the credential alone does not reveal the token.
struct FinishingTokens: Sendable {
    private let key: SymmetricKey
    let sealKey: TokenSealKey

    init(masterKey: SymmetricKey, sealKey: TokenSealKey) {
        self.sealKey = sealKey
        key = HKDF<SHA256>.deriveKey(
            inputKeyMaterial: masterKey, info: Data("mfa-backend refresh token finishing a pending credential".utf8),
            outputByteCount: 32
        )
    }

    /// The token sealed like every refresh token (`SealedRefreshToken`), its secret bytes and nonce
    /// taken from the HMAC instead of the random generator.
    func token(finishing credential: String, projectId: String, tenantId: String?, localId: String) throws -> RefreshToken {
        try token(derivedFrom: Data(credential.utf8), projectId: projectId, tenantId: tenantId, localId: localId)
    }

    /// The first refresh token of the session an enrollment's finalize starts (decision 22: its
    /// exact retry gets this session back). Derived from the new factor's id, which is itself a
    /// digest of the enrollment session; a label keeps it apart from any credential's.
    func token(finishingEnrollment enrollmentId: String, projectId: String, tenantId: String?, localId: String) throws
        -> RefreshToken
    {
        try token(
            derivedFrom: Data("enrollment \(enrollmentId)".utf8), projectId: projectId, tenantId: tenantId, localId: localId
        )
    }

    private func token(derivedFrom input: Data, projectId: String, tenantId: String?, localId: String) throws -> RefreshToken {
        let secret = HMAC<SHA256>.authenticationCode(for: input, using: key)
        return RefreshToken(
            value: try SealedRefreshToken(projectId: projectId, tenantId: tenantId, localId: localId)
                .seal(with: sealKey, derivedFrom: Data(secret))
        )
    }
}
