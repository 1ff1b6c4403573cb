import Contracts
import LocalizedMessages
import Logging
import TenantStore

/// The development sink's record of every message, per tenant schema, read by the emulator's
/// helper routes (contract decision 12). Only written in development mode. Each statement is a
/// type (`DevelopmentOutbox+Statements.swift`).
struct DevelopmentOutbox: Sendable {
    let client: Database
    let logger: Logger

    static let table: SQLText = "development_outbox"

    /// How many messages of a channel a listing shows: the newest, oldest first. A sink that only
    /// grows (thousands of sign-ups) outgrew the 4 MiB an RPC answer may have, and every listing
    /// answered 503 (issue 40, item 7); 500 messages with their HTML stay far below it.
    static let listed = 500

    func recordEmail(in schema: TenantSchema, _ params: SendEmail.Params, message: RenderedEmail) async throws {
        try await client.run(InsertEmail(params: params, message: message), in: schema, logger: logger)
    }

    func forgetEmail(in schema: TenantSchema, code: String) async throws {
        try await client.run(DeleteEmail(code: code), in: schema, logger: logger)
    }

    func oobCodes(in schema: TenantSchema) async throws -> [OutboxOOBCode] {
        // Only `recordEmail` writes these rows, with a known type.
        try await client.run(ReadEmails(limit: Self.listed), in: schema, logger: logger).compactMap(\.code)
    }

    func recordSMS(in schema: TenantSchema, number: String, code: String, sessionInfo: String, text: String, locale: String) async throws {
        try await client.run(
            InsertSMS(number: number, code: code, sessionInfo: sessionInfo, text: text, locale: locale), in: schema, logger: logger)
    }

    func forgetSMS(in schema: TenantSchema, sessionInfo: String) async throws {
        try await client.run(DeleteSMS(sessionInfo: sessionInfo), in: schema, logger: logger)
    }

    func verificationCodes(in schema: TenantSchema) async throws -> [OutboxVerificationCode] {
        try await client.run(ReadTexts(limit: Self.listed), in: schema, logger: logger).map(\.code)
    }
}

extension DevelopmentOutbox {
    /// What the development sink kept for the emulator's helper routes (development mode only):
    /// past `retention` no code in it still works, if `retention` is at least the longest code
    /// lifetime (an out-of-band code's three days by default).
    static func expiredMessages(_ retention: Duration) -> RetentionRule {
        RetentionRule(
            "development outbox messages", table: Self.table, key: "id", column: "created_at", retention: retention,
            indexed: false
        )
    }
}
