import AuthVocabulary
import Contracts
import LocalizedMessages
import Logging
import PostgresNIO
import TenantStore

/// The development sink's record of every message, per tenant schema, read by the emulator's
/// helper routes (contract decision 12). Only written in development mode.
struct DevelopmentOutbox: Sendable {
    let client: Database
    let logger: Logger

    /// How many messages of a channel a listing shows: the newest, oldest first. A sink that only
    /// grows (thousands of sign-ups) outgrew the 4 MiB an RPC answer may have, and every listing
    /// answered 503 (issue 40, item 7); 500 messages with their HTML stay far below it.
    static let listed = 500

    func recordEmail(in schema: TenantSchema, _ params: SendEmail.Params, message: RenderedEmail) async throws {
        let table = schema.qualified("development_outbox")
        try await client.query(
            """
            INSERT INTO \(sql: table) (channel, recipient, request_type, code, link, new_email, subject, text, html, locale)
            VALUES ('email', \(params.email), \(params.requestType.rawValue), \(params.oobCode), \(params.oobLink), \(params.newEmail),
                    \(message.subject), \(message.text), \(message.html), \(message.locale))
            """,
            logger: logger
        )
    }

    func forgetEmail(in schema: TenantSchema, code: String) async throws {
        try await client.query(
            "DELETE FROM \(sql: schema.qualified("development_outbox")) WHERE channel = 'email' AND code = \(code)",
            logger: logger
        )
    }

    func oobCodes(in schema: TenantSchema) async throws -> [OutboxOOBCode] {
        let table = schema.qualified("development_outbox")
        let rows = try await client.query(
            """
            SELECT recipient, code, link, request_type, new_email, subject, text, html, locale FROM (
                SELECT id, recipient, code, link, request_type, new_email, subject, text, html, locale
                FROM \(sql: table) WHERE channel = 'email' ORDER BY id DESC LIMIT \(Self.listed)
            ) newest ORDER BY id
            """,
            logger: logger
        )
        var found: [OutboxOOBCode] = []
        for try await row in rows.decode(rows: OutboxEmail.self) {
            // Only `recordEmail` writes these rows, with a known type.
            if let code = row.code { found.append(code) }
        }
        return found
    }

    func recordSMS(in schema: TenantSchema, number: String, code: String, sessionInfo: String, text: String, locale: String) async throws {
        try await client.query(
            cached: """
                INSERT INTO \(sql: schema.qualified("development_outbox")) (channel, recipient, request_type, code, link, text, locale)
                VALUES ('sms', \(number), 'VERIFY_PHONE', \(code), \(sessionInfo), \(text), \(locale))
                """,
            logger: logger
        )
    }

    func forgetSMS(in schema: TenantSchema, sessionInfo: String) async throws {
        try await client.query(
            cached: "DELETE FROM \(sql: schema.qualified("development_outbox")) WHERE channel = 'sms' AND link = \(sessionInfo)",
            logger: logger
        )
    }

    func verificationCodes(in schema: TenantSchema) async throws -> [OutboxVerificationCode] {
        let rows = try await client.query(
            """
            SELECT code, recipient, link, text, locale FROM (
                SELECT id, code, recipient, link, text, locale FROM \(sql: schema.qualified("development_outbox"))
                WHERE channel = 'sms' ORDER BY id DESC LIMIT \(Self.listed)
            ) newest ORDER BY id
            """,
            logger: logger
        )
        var found: [OutboxVerificationCode] = []
        for try await row in rows.decode(rows: OutboxSMS.self) { found.append(row.code) }
        return found
    }
}

/// A text in the outbox: its code, recipient number, session (kept as the link) and text.
private struct OutboxSMS: StatementRow {
    let code: OutboxVerificationCode

    init(_ columns: RowColumns) throws {
        code = OutboxVerificationCode(
            code: try columns("code"), phoneNumber: try columns("recipient"),
            sessionInfo: try columns("link", as: String?.self) ?? "", text: try columns("text"), locale: try columns("locale"))
    }
}

extension DevelopmentOutbox {
    /// What the development sink kept for the emulator's helper routes (development mode only):
    /// past `retention` no code in it still works, if `retention` is at least the longest code
    /// lifetime (an out-of-band code's three days by default).
    static func expiredMessages(_ retention: Duration) -> RetentionRule {
        RetentionRule(
            "development outbox messages", table: "development_outbox", key: "id", column: "created_at", retention: retention,
            indexed: false
        )
    }
}

/// A mail in the outbox; `code` is `nil` for a request type this version does not know.
private struct OutboxEmail: StatementRow {
    let code: OutboxOOBCode?

    init(_ columns: RowColumns) throws {
        guard let requestType = OOBRequestType(rawValue: try columns("request_type")) else {
            code = nil
            return
        }
        code = OutboxOOBCode(
            email: try columns("recipient"), oobCode: try columns("code"), oobLink: try columns("link", as: String?.self) ?? "",
            requestType: requestType, newEmail: try columns("new_email"), subject: try columns("subject"), text: try columns("text"),
            html: try columns("html"), locale: try columns("locale")
        )
    }
}
