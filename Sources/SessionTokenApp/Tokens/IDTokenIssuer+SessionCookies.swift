import AuthVocabulary
import Contracts
import Foundation
import IdentityToolkit
import JSONRPC

extension IDTokenIssuer {
    /// Firebase's session cookies are issued by `https://session.firebase.google.com/<project>`:
    /// the Admin SDKs check that issuer, so a cookie never passes for an ID token, nor one for a cookie.
    static let sessionCookieIssuerBase = "https://session.firebase.google.com/"

    /// `sessionCookie.issue`: the ID token's claims again, under the cookie's issuer and lifetime.
    func sessionCookie(_ params: IssueSessionCookie.Params, now: Date = Date()) async throws -> IssueSessionCookie.Result {
        var claims: IDTokenClaims
        do {
            claims = try await verify(params.idToken, now: now)
        } catch VerificationFailure.expired {
            throw RPCError(code: .invalidIDToken, business: IdentityToolkitError(.tokenExpired))
        } catch {
            throw RPCError(code: .invalidIDToken, business: IdentityToolkitError(.invalidIDToken))
        }
        let issuedAt = EpochSeconds(now)
        claims.issuer = Self.sessionCookieIssuerBase + claims.audience
        claims.issuedAt = issuedAt
        claims.expiresAt = issuedAt + params.validDuration
        return .init(sessionCookie: try sign(claims))
    }
}
