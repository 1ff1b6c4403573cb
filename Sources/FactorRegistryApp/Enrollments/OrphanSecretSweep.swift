import Contracts
import JSONRPC
import Logging
import PostgresNIO
import ServiceKit
import TenantStore

/// Deletes TOTP secrets that challenge-issuer keeps for no enrollment (DESIGN: "a clean-up for
/// orphans"). An enrollment stores its secret in challenge-issuer first and its metadata here
/// second, and a withdrawal deletes the metadata first and the secret second, so a crash or an
/// unreachable challenge-issuer between the two steps leaves a secret nobody can use (sign-in
/// checks the metadata) but that should not stay at rest.
///
/// This service holds the truth about enrollments, so it decides: for each active project and
/// tenant, challenge-issuer lists its secrets older than `minimumAge` a page at a time, and those
/// whose (account, enrollment id) has no row here are deleted. `minimumAge` keeps an enrollment
/// between its two steps (milliseconds apart) out of the comparison. Any failure ends the pass
/// before a deletion it could not justify; the next pass starts again.
struct OrphanSecretSweep: Sendable {
    let enrollments: EnrollmentRepository
    let tenants: TenantRepository
    let challenges: PeerClient<ChallengeIssuerAPI>
    let minimumAge: Duration
    let logger: Logger

    /// Factors per page (challenge-issuer's list, then one statement here).
    static let page = 500

    /// One pass over every active project and tenant; the number of secrets deleted.
    @discardableResult
    func sweep() async throws -> Int {
        var deleted = 0
        for scope in try await tenants.activeScopes() {
            guard let schema = try? ScopeSchema.of(scope.projectId, scope.tenantId) else { continue }
            deleted += try await sweep(projectId: scope.projectId, tenantId: scope.tenantId, schema: schema)
        }
        if deleted > 0 { logger.info("deleted orphan TOTP secrets", metadata: ["count": "\(deleted)"]) }
        return deleted
    }

    private func sweep(projectId: String, tenantId: String?, schema: TenantSchema) async throws -> Int {
        var deleted = 0
        var after: String?
        while true {
            let stored = try await challenges.call(
                ListStoredTOTPFactors.self,
                .init(
                    projectId: projectId, tenantId: tenantId, olderThanSeconds: Int(minimumAge.components.seconds), after: after,
                    limit: Self.page
                )
            ).factors
            guard let last = stored.last else { return deleted }
            let enrolled: Set<StoredTOTPFactor>
            do {
                enrolled = try await enrollments.recorded(stored, in: schema)
            } catch  where TenantSchema.isMissing(error) {
                return deleted  // the tenant went away meanwhile; its schemas go with it
            }
            for orphan in stored where !enrolled.contains(orphan) {
                _ = try await challenges.call(
                    DeleteTOTPFactor.self,
                    .init(projectId: projectId, tenantId: tenantId, localId: orphan.localId, mfaEnrollmentId: orphan.mfaEnrollmentId)
                )
                deleted += 1
            }
            if stored.count < Self.page { return deleted }
            after = last.mfaEnrollmentId
        }
    }
}
