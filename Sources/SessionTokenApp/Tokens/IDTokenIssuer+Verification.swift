import Contracts
import IdentityToolkit
import JSONRPC

extension IDTokenIssuer {
    /// `session.verifyIdToken`: the claims of one of our ID tokens; `TOKEN_EXPIRED` or `INVALID_ID_TOKEN`.
    func check(_ params: VerifyIDToken.Params) async throws -> VerifyIDToken.Result {
        do {
            let claims = try await verify(params.idToken)
            return .init(
                projectId: claims.audience, tenantId: claims.tenant, localId: claims.subject, issuedAt: claims.issuedAt,
                authTime: claims.authTime, signInProvider: claims.signInProvider, secondFactor: claims.signInSecondFactor,
                secondFactorIdentifier: claims.secondFactorIdentifier, secondFactorAuthTime: claims.secondFactorAuthTime,
                enrollmentOnlyUntil: claims.enrollmentOnlyUntil, firstFactorIdentifier: claims.firstFactorIdentifier
            )
        } catch VerificationFailure.expired {
            throw RPCError(code: .invalidIDToken, business: IdentityToolkitError(.tokenExpired))
        } catch {
            throw RPCError(code: .invalidIDToken, business: IdentityToolkitError(.invalidIDToken))
        }
    }
}
