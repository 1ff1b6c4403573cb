import Foundation
import JSONRPC
import PostgresNIO
import ServiceKit
import ServiceTransport

/// One data service built as its executable builds it (the same `build` function, settings, pool,
/// migrations and background work) on a throw-away database of the test PostgreSQL, and called
/// through its real method table (``ServiceHost/dispatcher(_:)``) as a peer would call it: no
/// listener, TLS or other process. The in-process counterpart of a system test, as Hummingbird's
/// `HummingbirdTesting` drives an application without a socket. ``InProcessServices`` starts one or
/// several together.
public struct ServiceUnderTest: Sendable {
    public let host: ServiceHost
    public let dispatcher: RPCDispatcher
    /// The name of the service's database on the test PostgreSQL.
    public let databaseName: String

    public var service: ServiceName { host.settings.service }

    /// Starts `service` alone: every other service is "in this process but not started", so a call
    /// it makes to a peer fails as a call to a peer that is not listening yet, and a test sees
    /// exactly what this service decides on its own. Readiness is not awaited (a peer it checks
    /// never answers).
    public static func withRunning<T: Sendable>(
        _ service: ServiceName, build: @escaping InProcessServices.Build, configuration: [String: String] = [:],
        _ body: @Sendable (ServiceUnderTest) async throws -> T
    ) async throws -> T {
        try await InProcessServices.withRunning([(service, build)], configuration: configuration, awaitReadiness: false) {
            try await body($0[service])
        }
    }

    /// Calls `method` as `caller` would over the network: the method's caller policy, its errors
    /// (an ``RPCError`` as the peer would receive it) and its handler, with the params as values.
    public func call<M: RPCMethod>(_ method: M.Type, _ params: M.Params, as caller: ServiceName = .gateway) async throws -> M.Result {
        let context = RPCCallContext(caller: caller.rawValue, requestID: "test-\(UUID().uuidString.prefix(8))", logger: host.logger)
        return try await dispatcher.call(method, params, context: context)
    }

    /// The Identity Toolkit error of the ``RPCError`` that `work` throws (its message when it
    /// names none); `nil` when `work` succeeds. Anything but an `RPCError` fails the test.
    public func refusal(_ work: () async throws -> Void) async throws -> String? {
        do {
            try await work()
            return nil
        } catch let error as RPCError {
            return error.identityToolkitError ?? error.message
        }
    }

    /// Rows the service left, read with SQL of the test's own: what a statement under test wrote.
    public func rows<each Column: PostgresDecodable & Sendable>(
        _ sql: String, as columns: (repeat each Column).Type
    ) async throws -> [(repeat each Column)] {
        guard let database = host.database else { return [] }
        var result: [(repeat each Column)] = []
        for try await row in try await database.query(PostgresQuery(unsafeSQL: sql), logger: host.logger).decode(columns) {
            result.append(row)
        }
        return result
    }
}
