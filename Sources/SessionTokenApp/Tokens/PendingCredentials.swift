import AuthVocabulary
import Contracts
import Foundation
import IdentityToolkit
import JSONRPC
import Logging
import PostgresNIO
import ServiceKit
import TenantStore

/// MFA pending credentials: what a first-factor sign-in hands out instead of tokens when the user
/// has second factors. Sealed facts (`SealedPendingCredential`), stored by hash in the tenant's
/// schema, expiring, used once.
struct PendingCredentials: Sendable {
    static let table: SQLText = "mfa_pending_credentials"
    let client: Database
    let logger: Logger
    let lifetime: Duration
    /// For a finalize's retry: the session a used credential started (`inspect(_:finishing:)`).
    let sessions: SessionRepository
    let finishing: FinishingTokens
    let sealKey: TokenSealKey

    static let invalid = RPCError(code: .invalidPendingCredential, business: IdentityToolkitError(.invalidMFAPendingCredential))

    func issue(_ params: IssuePendingCredential.Params) async throws -> IssuePendingCredential.Result {
        let schema = try ScopeSchema.of(params.projectId, params.tenantId)
        let seconds = Double(lifetime.components.seconds)
        // The facts ride sealed in the credential (the gateway reads them without a call); the
        // stored hash is what makes it usable, and only once.
        let credential = PendingCredential(
            value: try SealedPendingCredential(
                projectId: params.projectId, tenantId: params.tenantId, localId: params.localId,
                signInProvider: params.signInProvider, expiresAt: .now + Int64(seconds)
            ).seal(with: sealKey)
        )
        try await client.run(
            InsertCredential(hash: credential.hash, localId: params.localId, signInProvider: params.signInProvider, seconds: seconds),
            in: schema, logger: logger)
        return .init(mfaPendingCredential: credential.value)
    }

    func inspect(_ text: String, finishing retry: Bool = false) async throws -> InspectPendingCredential.Result {
        let credential = PendingCredential(value: text)
        guard let scope = credential.scope, let schema = try? ScopeSchema.of(scope.projectId, scope.tenantId)
        else { throw Self.invalid }
        let usable: Pending?
        do {
            usable = try await client.first(ReadUsable(hash: credential.hash), in: schema, logger: logger)
        } catch {
            if TenantSchema.isMissing(error) { throw Self.invalid }
            throw error
        }
        if let row = usable {
            return .init(projectId: scope.projectId, tenantId: scope.tenantId, localId: row.localId, signInProvider: row.signInProvider)
        }
        if retry, let facts = SealedPendingCredential.open(text, keys: [sealKey]) {
            let token = try finishing.token(
                finishing: text, projectId: scope.projectId, tenantId: scope.tenantId, localId: facts.localId
            )
            if let finished = try await sessions.finished(by: token.hash, in: schema) {
                return .init(
                    projectId: scope.projectId, tenantId: scope.tenantId, localId: finished.localId,
                    signInProvider: finished.signInProvider
                )
            }
        }
        throw Self.invalid
    }
}

extension PendingCredentials {
    /// Expired pending credentials: an expired credential is refused like an unknown one, so it
    /// can go at once. A used one is deleted when it is used; one never used (a sign-in abandoned
    /// at its second step) would otherwise stay for good. Rows that earlier versions marked used
    /// expire the same way.
    static let expired = RetentionRule(
        "expired pending credentials", table: Self.table, key: "credential_hash", column: "expires_at",
        retention: .zero, indexed: true
    )
}
