import AuthVocabulary
import Contracts
import LocalizedMessages
import TenantStore

/// The statements of ``DevelopmentOutbox``, each a type: its values, its text in a schema, its row.
extension DevelopmentOutbox {
    /// A mail as it was sent.
    struct InsertEmail: Statement {
        static var isCached: Bool { false }
        let params: SendEmail.Params
        let message: RenderedEmail

        func query(in schema: TenantSchema) throws -> CachedQuery {
            try """
            INSERT INTO \(sql: schema.qualified(DevelopmentOutbox.table))
            (channel, recipient, request_type, code, link, new_email, subject, text, html, locale)
            VALUES ('email', \(params.email), \(params.requestType.rawValue), \(params.oobCode), \(params.oobLink), \(params.newEmail),
                    \(message.subject), \(message.text), \(message.html), \(message.locale))
            """
        }
    }

    /// The mail that carried `code`.
    struct DeleteEmail: Statement {
        static var isCached: Bool { false }
        let code: String

        func query(in schema: TenantSchema) -> CachedQuery {
            "DELETE FROM \(sql: schema.qualified(DevelopmentOutbox.table)) WHERE channel = 'email' AND code = \(code)"
        }
    }

    /// The newest `limit` mails, oldest first.
    struct ReadEmails: Statement {
        typealias Row = OutboxEmail
        static var isCached: Bool { false }
        let limit: Int

        func query(in schema: TenantSchema) -> CachedQuery {
            """
            SELECT recipient, code, link, request_type, new_email, subject, text, html, locale FROM (
                SELECT id, recipient, code, link, request_type, new_email, subject, text, html, locale
                FROM \(sql: schema.qualified(DevelopmentOutbox.table)) WHERE channel = 'email' ORDER BY id DESC LIMIT \(limit)
            ) newest ORDER BY id
            """
        }
    }

    /// A mail in the outbox; `code` is `nil` for a request type this version does not know.
    struct OutboxEmail: StatementRow {
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

    /// A text as it was sent; its session is kept as the link.
    struct InsertSMS: Statement {
        let number: String
        let code: String
        let sessionInfo: String
        let text: String
        let locale: String

        func query(in schema: TenantSchema) -> CachedQuery {
            """
            INSERT INTO \(sql: schema.qualified(DevelopmentOutbox.table)) (channel, recipient, request_type, code, link, text, locale)
            VALUES ('sms', \(number), 'VERIFY_PHONE', \(code), \(sessionInfo), \(text), \(locale))
            """
        }
    }

    /// The text of session `sessionInfo`.
    struct DeleteSMS: Statement {
        let sessionInfo: String

        func query(in schema: TenantSchema) -> CachedQuery {
            "DELETE FROM \(sql: schema.qualified(DevelopmentOutbox.table)) WHERE channel = 'sms' AND link = \(sessionInfo)"
        }
    }

    /// The newest `limit` texts, oldest first.
    struct ReadTexts: Statement {
        typealias Row = OutboxSMS
        static var isCached: Bool { false }
        let limit: Int

        func query(in schema: TenantSchema) -> CachedQuery {
            """
            SELECT code, recipient, link, text, locale FROM (
                SELECT id, code, recipient, link, text, locale FROM \(sql: schema.qualified(DevelopmentOutbox.table))
                WHERE channel = 'sms' ORDER BY id DESC LIMIT \(limit)
            ) newest ORDER BY id
            """
        }
    }

    /// A text in the outbox: its code, recipient number, session (kept as the link) and text.
    struct OutboxSMS: StatementRow {
        let code: OutboxVerificationCode

        init(_ columns: RowColumns) throws {
            code = OutboxVerificationCode(
                code: try columns("code"), phoneNumber: try columns("recipient"),
                sessionInfo: try columns("link", as: String?.self) ?? "", text: try columns("text"), locale: try columns("locale"))
        }
    }
}
