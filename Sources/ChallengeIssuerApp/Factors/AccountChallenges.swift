import Contracts
import Logging
import PostgresNIO
import ServiceKit
import TenantStore

/// What challenge-issuer holds for an account: its TOTP secrets, recovery codes, open verification
/// sessions and passkey challenges.
struct AccountChallenges: Sendable {
    let client: Database
    let logger: Logger

    /// Deletes them for deleted accounts, in one statement; how many rows went.
    func forget(_ params: AccountsToForget) async throws -> Int {
        let localIds = try params.selection()
        let schema = try ScopeSchema.of(params.projectId, params.tenantId)
        return try await AccountRows.delete(
            from: [
                TOTPFactorRepository.factors, VerificationSessionRepository.sessions, RecoveryCodeRepository.codes,
                RecoveryCodeRepository.sets,
                PasskeyChallenges.table,
            ], in: schema, localIds: localIds,
            client: client, logger: logger
        )
    }
}
