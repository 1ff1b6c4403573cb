import Contracts
import Foundation
import IdentityToolkit
import JSONRPC
import ServiceKit

/// `securetoken.googleapis.com/v1/token` (contract §2.14, decision 2): exchanges a refresh token
/// for a new ID token and a new refresh token (the old one rotates and may not be used again).
/// Checks: `MISSING_GRANT_TYPE`, `INVALID_GRANT_TYPE`, `MISSING_REFRESH_TOKEN`, then
/// `INVALID_REFRESH_TOKEN` (unknown, revoked, reused, or its user gone), `USER_DISABLED`, and
/// `TOKEN_EXPIRED` for a sign-in older than the user's `validSince` or one whose second factor the
/// user no longer has.
///
/// A token that names its user (`SealedRefreshToken`) makes two calls in sequence: the account from
/// factor-registry, then session-token's rotation, which makes the checks above itself with the
/// account's state (issue 26); the scope's settings come from the gateway's cache. Any other token,
/// or a scope whose sign-in is disabled, takes the sequential path, one check after another.
struct SecureTokenOperation: Sendable {
    let registry: RPCClient
    let sessions: RPCClient
    let keys: TokenSealKeys
    let cachedSettings: CachedSettings
    /// Sent as `project_id` (Google sends the project number there; the emulator sends "12345").
    let projectNumber: String

    func handle(_ request: PublicRequest) async throws -> JSONValue {
        let body = request.body
        guard let grantType = body["grantType"]?.stringValue, !grantType.isEmpty else {
            throw IdentityToolkitError(.missingGrantType)
        }
        guard grantType == "refresh_token" else { throw IdentityToolkitError(.invalidGrantType) }
        guard let refreshToken = body["refreshToken"]?.stringValue, !refreshToken.isEmpty else {
            throw IdentityToolkitError(.missingRefreshToken)
        }
        if let answer = try await refreshNamingItsUser(refreshToken, request: request) { return answer }
        let session = try await PeerCall.call(
            sessions, InspectRefreshToken.self, .init(refreshToken: refreshToken, clientAddress: request.clientAddress),
            requestID: request.requestID
        )
        if case .apiKey(let projectId) = request.caller, projectId != session.projectId {
            throw IdentityToolkitError(.invalidRefreshToken)
        }
        _ = try await ScopeSettings.enabled(
            registry, projectId: session.projectId, tenantId: session.tenantId, requestID: request.requestID
        )
        let account: Account
        do {
            account = try await PeerCall.call(
                registry, GetAccount.self,
                .init(projectId: session.projectId, tenantId: session.tenantId, localId: session.localId),
                requestID: request.requestID
            )
        } catch let error as IdentityToolkitError where error.code == .userNotFound {
            throw IdentityToolkitError(.invalidRefreshToken)
        }
        // A session from before the account existed is a deleted account's whose uid was given again.
        if let authTime = session.authTime, account.postdates(signInAt: authTime) {
            throw IdentityToolkitError(.invalidRefreshToken)
        }
        if account.disabled { throw IdentityToolkitError(.userDisabled) }
        if let validSince = account.validSince, session.signedInAt < validSince {
            throw IdentityToolkitError(.tokenExpired)
        }
        // Decision 4, as the ID-token prelude applies it: a session established with a factor the
        // account no longer has is over, whether the user withdrew it or an admin replaced the list.
        if let factor = session.secondFactorIdentifier, !account.lists(factor: factor) {
            throw IdentityToolkitError(.tokenExpired)
        }
        let tokens = try await PeerCall.call(
            sessions, RefreshSession.self,
            .init(
                refreshToken: refreshToken,
                user: SessionUser(account)
            ),
            requestID: request.requestID
        )
        return answer(tokens)
    }

    /// The two-call refresh, or `nil` for the sequential path: a token not sealed by session-token,
    /// another project's key, a scope whose sign-in is disabled, an account that is gone (each
    /// answered there in contract order, the token's own validity first).
    private func refreshNamingItsUser(_ refreshToken: String, request: PublicRequest) async throws -> JSONValue? {
        guard let named = await keys.refreshToken(refreshToken, requestID: request.requestID) else { return nil }
        if case .apiKey(let projectId) = request.caller, projectId != named.projectId { return nil }
        guard
            let settings = try? await cachedSettings.enabled(
                projectId: named.projectId, tenantId: named.tenantId, requestID: request.requestID
            ), !settings.disableAuth,
            let account = try? await PeerCall.call(
                registry, GetAccount.self, .init(projectId: named.projectId, tenantId: named.tenantId, localId: named.localId),
                requestID: request.requestID
            )
        else { return nil }
        let tokens = try await PeerCall.call(
            sessions, RefreshSession.self,
            .init(
                refreshToken: refreshToken, user: SessionUser(account), clientAddress: request.clientAddress,
                account: .init(
                    localId: account.localId, createdAt: Int64(account.createdAt), disabled: account.disabled,
                    validSince: account.validSince, secondFactors: account.mfaInfo?.map(\.mfaEnrollmentId) ?? []
                )
            ),
            requestID: request.requestID
        )
        return answer(tokens)
    }

    /// The token endpoint answers in snake_case.
    private func answer(_ tokens: RefreshSession.Result) -> JSONValue {
        [
            "id_token": .string(tokens.idToken), "access_token": .string(tokens.idToken),
            "expires_in": .string(tokens.expiresIn), "refresh_token": .string(tokens.refreshToken),
            "token_type": "Bearer", "user_id": .string(tokens.localId), "project_id": .string(projectNumber),
        ]
    }
}
