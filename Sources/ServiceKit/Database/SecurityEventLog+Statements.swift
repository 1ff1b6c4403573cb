import AuthVocabulary
import Contracts
import Foundation
import JSONRPC
import PostgresNIO
import TenantStore

/// The statements of ``SecurityEventLog``, each a type: its values, its text in a schema, its row.
extension SecurityEventLog {
    /// One event, with the bound ``RequestOrigin``'s actor, address and user agent (read when the
    /// statement is made, in the request's task).
    struct InsertEvent: Statement {
        static var isCached: Bool { false }
        let type: SecurityEventType
        let localId: String?
        let details: [String: String]

        func query(in schema: TenantSchema) throws -> CachedQuery {
            let origin = RequestOrigin.current
            let encoded = (try? JSONEncoder().encode(details)).map { String(decoding: $0, as: UTF8.self) } ?? "{}"
            return try """
            INSERT INTO \(sql: schema.qualified(SecurityEventLog.table)) (type, local_id, actor, client_address, user_agent, details)
            VALUES (\(type.rawValue), \(localId), \(origin?.actor ?? "system"), \(origin?.clientAddress), \(origin?.userAgent),
                    \(encoded)::jsonb)
            """
        }
    }

    /// `audit.list`'s page of `source`'s events, newest first, with its filters and its cursor in
    /// the trail merged across the services: a text assembled from the filters given.
    struct ListEvents: Statement {
        typealias Row = StoredEvent
        let params: ListSecurityEvents.Params
        let source: String

        func query(in schema: TenantSchema) -> CachedQuery {
            var conditions: [SQLText] = ["TRUE"]
            var binds = PostgresBindings()
            func bind(_ value: some PostgresNonThrowingEncodable & Sendable) -> SQLText {
                binds.append(value)
                return "$\(binds.count)"
            }
            if let localId = params.localId { conditions.append("local_id = \(bind(localId))") }
            if let types = params.types, !types.isEmpty { conditions.append("type = ANY(\(bind(types)))") }
            if let since = params.sinceMicros { conditions.append("at_micros >= \(bind(since))") }
            if let before = params.beforeMicros {
                // Strictly before (at, source, id) in the merged order: this service's events of the
                // same microsecond are before the cursor when its name sorts lower, or it is the same and the id is.
                let beforeSource = params.beforeSource ?? ""
                if source < beforeSource {
                    conditions.append("at_micros <= \(bind(before))")
                } else if source > beforeSource {
                    conditions.append("at_micros < \(bind(before))")
                } else {
                    conditions.append("(at_micros, id) < (\(bind(before)), \(bind(params.beforeId ?? Int64.max)))")
                }
            }
            let limit = bind(max(1, min(params.limit, 1000)))
            let sql: SQLText = """
                SELECT id, at_micros, type, local_id, actor, client_address, user_agent, details::text AS details
                FROM \(schema.qualified(SecurityEventLog.table)) WHERE \(SQLText.joined(conditions, separator: " AND "))
                ORDER BY at_micros DESC, id DESC LIMIT \(limit)
                """
            return CachedQuery(assembled: sql, binds: binds)
        }
    }

    /// An event as the trail stores it.
    struct StoredEvent: StatementRow {
        let id: Int64
        let atMicros: Int64
        let type: String
        let localId: String?
        let actor: String
        let clientAddress: String?
        let userAgent: String?
        let details: String

        init(_ columns: RowColumns) throws {
            id = try columns("id")
            atMicros = try columns("at_micros")
            type = try columns("type")
            localId = try columns("local_id")
            actor = try columns("actor")
            clientAddress = try columns("client_address")
            userAgent = try columns("user_agent")
            details = try columns("details")
        }
    }
}
