import Contracts
import Foundation
import JSONRPC
import Logging
import PostgresNIO
import ServiceKit
import TenantStore

/// Sign-in sessions (refresh-token families) in each tenant's schema.
struct SessionRepository: Sendable {
    let client: PostgresClient
    let logger: Logger

    /// Starts a family for one sign-in and records its first refresh token (by hash only).
    func startFamily(_ params: IssueSession.Params, token: RefreshToken) async throws {
        let schema = try TenantSchemaCatalog.schema(for: TenantScope(projectId: params.projectId, tenantId: params.tenantId))
        let familyID = UUID().uuidString.lowercased()
        let authTime = Date(timeIntervalSince1970: Double(params.authTime))
        let tokenHash = token.hash
        let logger = self.logger
        do {
            try await insert(
                schema: schema, familyID: familyID, params: params, authTime: authTime, tokenHash: tokenHash, logger: logger
            )
        } catch {
            // A scope nobody provisioned here: say so instead of failing as an internal error.
            if Self.isUndefinedTable(error) { throw RPCError(code: .tenantSchemaMissing, message: "Unknown project or tenant") }
            throw error
        }
    }

    private func insert(
        schema: TenantSchema, familyID: String, params: IssueSession.Params, authTime: Date, tokenHash: Data, logger: Logger
    ) async throws {
        // Only `qualified(_:)` output is spliced into the text; every value is a bind parameter.
        let families = schema.qualified("session_families")
        let tokens = schema.qualified("refresh_tokens")
        try await client.withTransaction(logger: logger) { connection in
            try await connection.query(
                """
                INSERT INTO \(unescaped: families)
                (family_id, local_id, sign_in_provider, second_factor, second_factor_identifier, auth_time, session_claims)
                VALUES (\(familyID), \(params.localId), \(params.signInProvider), \(params.secondFactor),
                        \(params.secondFactorIdentifier), \(authTime), \(Self.encode(params.sessionClaims)))
                """,
                logger: logger
            )
            try await connection.query(
                "INSERT INTO \(unescaped: tokens) (token_hash, family_id, local_id) VALUES (\(tokenHash), \(familyID), \(params.localId))",
                logger: logger
            )
        }
    }

    /// Session claims as JSON text; `nil` when there are none.
    static func encode(_ claims: [String: JSONValue]?) -> String? {
        guard let claims, !claims.isEmpty, let data = try? JSONCoding.encode(JSONValue.object(claims)) else { return nil }
        return String(decoding: data, as: UTF8.self)
    }

    static func decode(_ text: String?) -> [String: JSONValue]? {
        guard let text, case .object(let members)? = try? JSONCoding.parse(Array(text.utf8)) else { return nil }
        return members
    }

    /// PostgreSQL's `undefined_table` (42P01), possibly inside a transaction error.
    static func isUndefinedTable(_ error: any Error) -> Bool {
        if let transaction = error as? PostgresTransactionError, let cause = transaction.closureError {
            return isUndefinedTable(cause)
        }
        return (error as? PSQLError)?.serverInfo?[.sqlState] == "42P01"
    }
}
