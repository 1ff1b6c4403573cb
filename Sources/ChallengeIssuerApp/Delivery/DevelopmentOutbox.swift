import Contracts
import Logging
import PostgresNIO
import TenantStore

/// The development sink's record of every message, per tenant schema, read by the emulator's
/// helper routes (contract decision 12). Only written in development mode.
struct DevelopmentOutbox: Sendable {
    let client: PostgresClient
    let logger: Logger

    func recordEmail(in schema: TenantSchema, _ params: SendEmail.Params) async throws {
        let table = schema.qualified("development_outbox")
        try await client.query(
            """
            INSERT INTO \(unescaped: table) (channel, recipient, request_type, code, link, new_email)
            VALUES ('email', \(params.email), \(params.requestType), \(params.oobCode), \(params.oobLink), \(params.newEmail))
            """,
            logger: logger
        )
    }

    func forgetEmail(in schema: TenantSchema, code: String) async throws {
        try await client.query(
            "DELETE FROM \(unescaped: schema.qualified("development_outbox")) WHERE channel = 'email' AND code = \(code)",
            logger: logger
        )
    }

    func oobCodes(in schema: TenantSchema) async throws -> [OutboxOOBCode] {
        let table = schema.qualified("development_outbox")
        let rows = try await client.query(
            "SELECT recipient, code, link, request_type, new_email FROM \(unescaped: table) WHERE channel = 'email' ORDER BY id",
            logger: logger
        )
        var found: [OutboxOOBCode] = []
        for try await (email, code, link, requestType, newEmail) in rows.decode((String, String, String?, String, String?).self) {
            found.append(OutboxOOBCode(email: email, oobCode: code, oobLink: link ?? "", requestType: requestType, newEmail: newEmail))
        }
        return found
    }

    func recordSMS(in schema: TenantSchema, number: String, code: String, sessionInfo: String) async throws {
        try await client.query(
            cached: """
                INSERT INTO \(unescaped: schema.qualified("development_outbox")) (channel, recipient, request_type, code, link)
                VALUES ('sms', \(number), 'VERIFY_PHONE', \(code), \(sessionInfo))
                """,
            logger: logger
        )
    }

    func forgetSMS(in schema: TenantSchema, sessionInfo: String) async throws {
        try await client.query(
            cached: "DELETE FROM \(unescaped: schema.qualified("development_outbox")) WHERE channel = 'sms' AND link = \(sessionInfo)",
            logger: logger
        )
    }

    func verificationCodes(in schema: TenantSchema) async throws -> [OutboxVerificationCode] {
        let rows = try await client.query(
            """
            SELECT code, recipient, link FROM \(unescaped: schema.qualified("development_outbox"))
            WHERE channel = 'sms' ORDER BY id
            """,
            logger: logger
        )
        var found: [OutboxVerificationCode] = []
        for try await (code, number, sessionInfo) in rows.decode((String, String, String?).self) {
            found.append(OutboxVerificationCode(code: code, phoneNumber: number, sessionInfo: sessionInfo ?? ""))
        }
        return found
    }
}
