import Foundation
import Logging
import NIOCore
import NIOPosix
import PostgresNIO
import TestSupport
import Testing

@testable import TenantStore

/// The choice among the servers of a multi-host URL, against the test PostgreSQL and an address where
/// nothing listens. A promotion (a standby that starts taking writes) is exercised end to end by
/// `client-tests/test_postgres_failover.py`.
@Suite("Database servers (PostgreSQL)")
struct DatabaseTests {
    static let logger = TestDatabase.logger

    static func login() -> Database.Login {
        let url = URLComponents(string: TestPostgres.baseURL)!
        return Database.Login(username: url.user!, password: url.password, database: "postgres", options: .init())
    }

    static var testServer: Database.Server {
        let url = URLComponents(string: TestPostgres.baseURL)!
        return Database.Server(host: url.host!, port: url.port ?? 5432)
    }

    static func database(_ servers: [Database.Server], target: Database.Target = .any) -> Database {
        Database(
            servers: servers, target: target, login: login(), eventLoopGroup: MultiThreadedEventLoopGroup.singleton, logger: logger)
    }

    /// `body` while `database` runs (chooses its server, keeps its pool).
    static func whileRunning(_ database: Database, _ body: () async throws -> Void) async throws {
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { await database.run() }
            defer { group.cancelAll() }
            try await body()
        }
    }

    /// A loopback port nothing listens on: one just bound and released.
    static func deadServer() throws -> Database.Server {
        let socket = try ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton).bind(host: "127.0.0.1", port: 0).wait()
        let port = socket.localAddress!.port!
        try socket.close().wait()
        return Database.Server(host: "127.0.0.1", port: port)
    }

    @Test("the first server that qualifies gets the pool: one that does not answer is passed over")
    func passesOverAServerThatDoesNotAnswer() async throws {
        let dead = try Self.deadServer()
        let database = Self.database([dead, Self.testServer], target: .readWrite)
        #expect(database.server == nil)
        try await Self.whileRunning(database) {
            // Calls made before the choice wait for it.
            let rows = try await database.query("SELECT NOT pg_is_in_recovery()", logger: Self.logger)
            for try await writable in rows.decode(Bool.self) { #expect(writable) }
            #expect(database.server == Self.testServer)
        }
    }

    @Test("with no server that qualifies, calls wait for one instead of failing")
    func waitsWhileNoServerQualifies() async throws {
        let database = Self.database([try Self.deadServer(), try Self.deadServer()], target: .primary)
        try await Self.whileRunning(database) {
            let answered = await Database.answer(within: .seconds(2.5)) {
                (try? await database.query("SELECT 1", logger: Self.logger)) != nil
            }
            #expect(answered == nil)
            #expect(database.server == nil)
        }
    }

    @Test("one server: the pool is made at once and nothing is chosen")
    func oneServerIsThePool() async throws {
        let database = Self.database([Self.testServer])
        #expect(database.server == Self.testServer)
        try await Self.whileRunning(database) {
            let rows = try await database.query("SELECT 41 + 1", logger: Self.logger)
            for try await answer in rows.decode(Int.self) { #expect(answer == 42) }
        }
    }

    @Test("a write refused as read-only counts as a failover; a failing statement does not")
    func failoverErrors() async throws {
        let database = Self.database([Self.testServer])
        try await Self.whileRunning(database) {
            // What a standby, or a primary being demoted, answers to a write.
            let readOnly = await #expect(throws: PSQLError.self) {
                try await database.withConnection { connection in
                    try await connection.query("BEGIN READ ONLY", logger: Self.logger)
                    do {
                        try await connection.query("CREATE TEMPORARY TABLE refused (id int)", logger: Self.logger)
                    } catch {
                        try await connection.query("ROLLBACK", logger: Self.logger)
                        throw error
                    }
                }
            }
            #expect(readOnly?.serverInfo?[.sqlState] == "25006")
            #expect(readOnly.map(Database.isUnreachable) == true)
            let division = await #expect(throws: PSQLError.self) {
                try await database.query("SELECT 1 / 0", logger: Self.logger)
            }
            #expect(division.map(Database.isUnreachable) == false)
        }
    }

    @Test("a connection lost inside a transaction counts as a failover too, and fails at once")
    func lostInsideATransaction() async throws {
        let database = Self.database([Self.testServer])
        try await Self.whileRunning(database) {
            // The server ends this very connection, as a shutdown or a failover does; the body
            // fails only once the connection is seen closed, when PostgresNIO would never answer
            // a ROLLBACK written to it (a transaction that waited for one never ended).
            let failure = await Database.answer(within: .seconds(20)) {
                do {
                    try await database.withTransaction(logger: Self.logger) { connection in
                        do {
                            try await connection.query("SELECT pg_terminate_backend(pg_backend_pid())", logger: Self.logger)
                        } catch {
                            for _ in 0..<100 where !connection.isClosed { try await Task.sleep(for: .milliseconds(50)) }
                            throw error
                        }
                    }
                    return nil as TransactionError?
                } catch {
                    return error as? TransactionError
                }
            }
            let lost = try #require(failure, "the transaction did not end")
            #expect(lost.map(Database.isUnreachable) == true)
            #expect(lost?.rollbackError == nil)
        }
    }

    @Test("an answer that does not come in time is given up on without waiting for it")
    func answerWithin() async {
        let slow = await Database.answer(within: .milliseconds(100)) {
            try? await Task.sleep(for: .seconds(30))
            return 1
        }
        #expect(slow == nil)
        let quick = await Database.answer(within: .seconds(5)) { 2 }
        #expect(quick == 2)
    }
}
