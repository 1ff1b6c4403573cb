import Contracts
import Foundation
import IdentityToolkit
import JSONRPC
import ServiceKit

/// `securetoken.googleapis.com/v1/token` (contract §2.14, decision 2): exchanges a refresh token
/// for a new ID token and a new refresh token (the old one rotates and may not be used again).
/// Checks: `MISSING_GRANT_TYPE`, `INVALID_GRANT_TYPE`, `MISSING_REFRESH_TOKEN`, then
/// `INVALID_REFRESH_TOKEN` (unknown, revoked, reused, another project's, or its user gone),
/// `PROJECT_DISABLED`, `USER_DISABLED`, and `TOKEN_EXPIRED` for a sign-in older than the user's
/// `validSince` or one whose second factor the user no longer has.
///
/// The checks are made once, in that order, by one path: the token's owner comes from the token
/// itself when session-token sealed it (no call), else from `session.inspectRefresh`; the settings
/// come from the gateway's cache; then the account from factor-registry and session-token's
/// rotation, which makes the account's checks itself with the account's state. So a sealed token
/// costs two calls in sequence. A refusal before the rotation asks session-token about
/// the token first, so a token that is itself invalid is answered as such.
struct SecureTokenOperation: Sendable {
    let registry: PeerClient<FactorRegistryAPI>
    let sessions: PeerClient<SessionTokenAPI>
    let keys: TokenSealKeys
    let cachedSettings: CachedSettings
    /// Sent as `project_id` (Google sends the project number there; the emulator sends "12345").
    let projectNumber: String

    func handle(_ request: PublicRequest) async throws -> JSONValue {
        let body = try request.decode(GrantTokenRequest.self)
        guard let grantType = body.grantType.nonEmpty else {
            throw IdentityToolkitError(.missingGrantType)
        }
        guard grantType == "refresh_token" else { throw IdentityToolkitError(.invalidGrantType) }
        guard let refreshToken = body.refreshToken.nonEmpty else {
            throw IdentityToolkitError(.missingRefreshToken)
        }
        let owner: (projectId: String, tenantId: String?, localId: String)
        let inspected: Bool
        if let named = await keys.refreshToken(refreshToken, requestID: request.requestID) {
            (owner, inspected) = ((named.projectId, named.tenantId, named.localId), false)
        } else {
            let session = try await inspect(refreshToken, request: request)
            (owner, inspected) = ((session.projectId, session.tenantId, session.localId), true)
        }
        /// The token's own validity comes before any other refusal.
        func refusing(_ refusal: any Error) async throws -> any Error {
            if !inspected { _ = try await inspect(refreshToken, request: request) }
            return refusal
        }
        if case .apiKey(let projectId) = request.caller, projectId != owner.projectId {
            throw try await refusing(IdentityToolkitError(.invalidRefreshToken))
        }
        do {
            _ = try await cachedSettings.enabled(projectId: owner.projectId, tenantId: owner.tenantId, requestID: request.requestID)
        } catch {
            throw try await refusing(error)
        }
        let account: Account
        do {
            account = try await PeerCall.call(
                registry, GetAccount.self, .init(projectId: owner.projectId, tenantId: owner.tenantId, localId: owner.localId),
                requestID: request.requestID
            )
        } catch let error as IdentityToolkitError where error.code == .userNotFound {
            throw try await refusing(IdentityToolkitError(.invalidRefreshToken))
        }
        let tokens = try await PeerCall.call(
            sessions, RefreshSession.self,
            .init(
                refreshToken: refreshToken, user: SessionUser(account),
                // Counted against the address once: by the inspection when there was one.
                clientAddress: inspected ? nil : request.clientAddress,
                account: .init(
                    localId: account.localId, createdAt: Int64(account.createdAt), disabled: account.disabled,
                    validSince: account.validSince, secondFactors: account.mfaInfo?.map(\.mfaEnrollmentId) ?? []
                )
            ),
            requestID: request.requestID
        )
        return try answer(tokens, request)
    }

    private func inspect(_ refreshToken: String, request: PublicRequest) async throws -> InspectRefreshToken.Result {
        try await PeerCall.call(
            sessions, InspectRefreshToken.self, .init(refreshToken: refreshToken, clientAddress: request.clientAddress),
            requestID: request.requestID
        )
    }

    /// The token endpoint answers in snake_case.
    private func answer(_ tokens: RefreshSession.Result, _ request: PublicRequest) throws -> JSONValue {
        try request.answer(
            GrantTokenResponse(
                idToken: tokens.idToken, accessToken: tokens.idToken, expiresIn: tokens.expiresIn, refreshToken: tokens.refreshToken,
                userId: tokens.localId, projectId: projectNumber
            )
        )
    }
}
