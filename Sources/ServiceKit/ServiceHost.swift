import AsyncHTTPClient
import BuildInfo
import Configuration
import Contracts
import Foundation
import Hummingbird
import HummingbirdHTTP2
import IdentityToolkit
import JSONRPC
import Logging
import NIOCore
import PostgresNIO
import ServiceLifecycle
import ServiceTransport
import Synchronization
import TenantStore

/// Runs one service: the `/rpc` listener (HTTP/2, mutual TLS), the ops listener, the PostgreSQL
/// pool and any background work, as one ServiceLifecycle group that stops cleanly on SIGTERM/SIGINT.
///
/// Start-up order: the pool and the ops listener come up first (so `/healthz` answers and `/readyz`
/// says "not ready" while migrations run), then `prepare` runs, then the RPC listener opens.
public final class ServiceHost: Sendable {
    /// What was built (`VERSION` and the commit): in `GET /`, the start-up line and `build_info`.
    public static var version: String { BuildInfo.version }

    public let settings: ServiceSettings
    public let logger: Logger
    public let metrics: ServiceMetrics
    public let tls: MutualTLS
    public let database: Database?
    /// One HTTP/2 connection per network peer, shared by every client of it and replaced when it stops
    /// answering. They trust only the deployment CA and present this service's certificate: never use
    /// them for anything outside the deployment.
    public let peerConnections: [ServiceName: PeerConnection]
    /// Clients for endpoints outside the deployment (system trust store).
    public let outside = OutsideHTTPClients()
    /// The services running in this process, when it runs several; their clients skip the network.
    public let localPeers: LocalPeers?
    let contract: ContractDocument
    let startedAt = ContinuousClock.now
    private let prepared = Atomic<Bool>(false)
    /// Every listener's connection counts, for `/readyz`'s `connections` detail.
    private let connectionGuards = Mutex<[ConnectionGuard]>([])

    public init(settings: ServiceSettings, logger: Logger, localPeers: LocalPeers? = nil) throws {
        self.settings = settings
        self.logger = logger
        self.localPeers = localPeers
        metrics = ServiceMetrics(service: settings.service)
        metrics.recordBuild(mode: settings.mode)
        tls = try MutualTLS(files: settings.tls)
        contract = try ContractDocument(service: settings.service, directory: settings.contractsDirectory)
        database = settings.postgres?.makeDatabase(logger: logger)
        var connections: [ServiceName: PeerConnection] = [:]
        for peer in ServiceName.allCases where peer != settings.service && localPeers?.hosts(peer) != true {
            connections[peer] = try PeerConnection(
                peer: peer, baseURL: settings.peers[peer] ?? "https://127.0.0.1", tls: tls.clientConfiguration,
                timeout: settings.rpcTimeout, traffic: PeerTraffic(registry: metrics.registry, service: settings.service, peer: peer)
            )
        }
        peerConnections = connections
    }

    /// Closes every peer connection (at the end of a run, or of a start that failed).
    public func shutdownPeerConnections() async {
        for connection in peerConnections.values { await connection.shutdown() }
    }

    /// The peers whose connection is wedged (liveness: see `PeerConnection.isWedged`).
    func wedgedPeers() async -> [ServiceName] {
        var wedged: [ServiceName] = []
        for (peer, connection) in peerConnections
        where await connection.isWedged(mode: settings.mode, probe: { _ = try await $0.call(Ping.self, RPCEmpty()) }) {
            wedged.append(peer)
        }
        return wedged.sorted { $0.rawValue < $1.rawValue }
    }

    /// A client for a peer service: in this process if it runs here, else at the URL configuration
    /// gives for it.
    public func client(for peer: ServiceName) -> RPCClient {
        if let localPeers, localPeers.hosts(peer) {
            return RPCClient(peer: peer, in: localPeers, caller: settings.service, timeout: settings.rpcTimeout)
        }
        guard let connection = peerConnections[peer] else {
            preconditionFailure("\(peer.rawValue) is this service, or runs in this process")
        }
        return RPCClient(peer: peer, connection: connection, mode: settings.mode)
    }

    /// What a service adds to the host.
    public struct Parts: Sendable {
        public var methods = RPCMethodTable()
        /// Readiness checks besides the database (which the host adds itself).
        public var readiness: [ReadinessCheck] = []
        /// Runs after the pool is up and before the RPC listener opens (migrations, key set-up).
        public var prepare: [@Sendable () async throws -> Void] = []
        /// Long-running work (reconcilers, sweepers).
        public var background: [any Service] = []
        public var adminRoutes: @Sendable (RouterGroup<BasicRequestContext>) -> Void = { _ in }
        /// How many tenant schemas the service holds, for status; `nil` for none.
        public var tenantSchemaCount: (@Sendable () async throws -> Int)?

        public init() {}
    }

    /// The service's method table as its `/rpc` listener serves it: the service's methods plus
    /// `rpc.discover`, `service.ping` and `service.status`, each refusing params its contract lacks.
    /// In-process tests call a data service through this, exactly as a peer would reach it.
    public func dispatcher(_ parts: Parts) throws -> RPCDispatcher {
        var methods = parts.methods
        let contractDocument = contract.document
        methods.register(Discover.self, callers: .anyAuthenticated) { _, _ in contractDocument }
        methods.register(Ping.self, callers: .anyAuthenticated) { _, _ in RPCEmpty() }
        methods.register(GetServiceStatus.self, callers: .anyAuthenticated) { [self] _, _ in
            await status(parts)
        }
        try methods.restrictParams(to: contract.paramNames)
        return RPCDispatcher(table: methods, observer: metrics, translate: Self.translate)
    }

    /// Runs the service's start-up steps (migrations, key set-up), after which readiness says so.
    public func prepare(_ parts: Parts) async throws {
        for step in parts.prepare { try await step() }
        prepared.store(true, ordering: .releasing)
    }

    /// Opens the service to callers in this process (in-process tests; ``run(_:)`` does the same
    /// once start-up has finished).
    public func serveInProcess(_ dispatcher: RPCDispatcher) {
        guard let localPeers, localPeers.hosts(settings.service) else { return }
        localPeers.open(settings.service, dispatcher: dispatcher, logger: logger)
    }

    /// Whether every readiness check passes: start-up's, the database's, and the service's own.
    public func isReady(_ parts: Parts) async -> Bool {
        await readiness(parts.readiness).ready
    }

    public func run(_ parts: Parts) async throws {
        let dispatcher = try dispatcher(parts)

        let endpoint = RPCEndpoint(
            dispatcher: dispatcher, maximumBodyBytes: settings.rpcMaxBodyBytes, mode: settings.mode,
            requireIdentity: settings.reader.bool(forKey: "tls.requireServiceIdentity", default: true), logger: logger
        )
        var rpcApp = RPCListener(
            endpoint: endpoint, tls: tls.serverConfiguration, limits: settings.listenerLimits,
            connections: connectionGuard(listener: "rpc"), host: settings.rpc.host, port: settings.rpc.port,
            serverName: settings.service.rawValue, logger: logger,
            onServerRunning: { [logger, settings] channel in
                logger.info(
                    "rpc listener ready",
                    metadata: ["address": "\(channel.localAddress.map { "\($0)" } ?? "?")", "service": "\(settings.service.rawValue)"])
            }
        )
        let networkPeers = ServiceName.allCases.filter { $0 != settings.service && localPeers?.hosts($0) != true }
        let agreement = PeerModeAgreement(clients: networkPeers.map { client(for: $0) }, mode: settings.mode)
        rpcApp.beforeServerStarts { [self] in
            try await agreement.verify(logger: logger)
            try await prepare(parts)
            // Callers in this process reach the service from now on, as callers elsewhere do once
            // the listener opens.
            serveInProcess(dispatcher)
        }

        let admin = AdminAuthenticator(tokenHashesHex: settings.adminTokenHashes, mode: settings.mode)
        let opsRouter = OpsRouter(
            metrics: metrics,
            authenticator: admin,
            metricsAccess: MetricsAccess(tokenHashesHex: settings.metricsTokenHashes, admin: admin),
            readiness: { [self] in await readiness(parts.readiness) },
            wedgedPeers: { [self] in await wedgedPeers() },
            status: { [self] in await status(parts) },
            adminRoutes: parts.adminRoutes
        ).buildRouter()
        let opsApp = HTTPListener(
            router: opsRouter,
            server: settings.listenerLimits.http1(guard: connectionGuard(listener: "ops")),
            address: .hostname(settings.ops.host, port: settings.ops.port),
            logger: logger,
            onServerRunning: { [logger] channel in
                logger.info("ops listener ready", metadata: ["address": "\(channel.localAddress.map { "\($0)" } ?? "?")"])
            }
        )

        var services: [any Service] = []
        if let database { services.append(database) }
        if let database, let postgres = settings.postgres {
            services.append(
                DatabaseConnectionGauges(
                    client: database, maximumConnections: postgres.maximumConnections, service: settings.service,
                    registry: metrics.registry, logger: logger
                ).service()
            )
        }
        services.append(contentsOf: parts.background)
        services.append(opsApp)
        services.append(rpcApp)
        let group = ServiceGroup(
            configuration: .init(
                services: services.map { FailureReportingService(part: $0, service: settings.service) },
                gracefulShutdownSignals: [.sigterm, .sigint], logger: logger
            )
        )
        do {
            try await group.run()
        } catch {
            await outside.shutdown()
            await shutdownPeerConnections()
            throw error
        }
        await outside.shutdown()
        await shutdownPeerConnections()
    }

    /// A listener's connection counts, registered for `/readyz` and counted in `/metrics`.
    public func connectionGuard(listener: String, exempt: [String] = []) -> ConnectionGuard {
        let made = settings.listenerLimits.connectionGuard(listener: listener, exempt: exempt, registry: metrics.registry)
        connectionGuards.withLock { $0.append(made) }
        return made
    }

    /// The readiness verdict: start-up finished, the database answers, every dependency answers.
    /// Connection limits only inform (`connections`): a flood from one client refused at a listener
    /// must not take the instance out of its load balancer, which would let that client switch every
    /// instance off in turn (docs/operations.md).
    func readiness(_ checks: [ReadinessCheck]) async -> (ready: Bool, checks: [String: DependencyState]) {
        var results: [String: DependencyState] = [:]
        let guards = connectionGuards.withLock { $0 }
        if !guards.isEmpty {
            results["connections"] = DependencyState(ready: true, detail: guards.map(\.detail).joined(separator: "; "))
        }
        results["startup"] =
            prepared.load(ordering: .acquiring)
            ? DependencyState(ready: true) : DependencyState(ready: false, detail: "migrations running")
        if let database = databaseCheck() {
            results[database.name] = await database.run(timeout: .seconds(2))
        }
        await withTaskGroup(of: (String, DependencyState).self) { group in
            for check in checks {
                group.addTask { (check.name, await check.run(timeout: .seconds(2))) }
            }
            for await (name, state) in group { results[name] = state }
        }
        return (results.values.allSatisfy(\.ready), results)
    }

    func databaseCheck() -> ReadinessCheck? {
        guard let database else { return nil }
        let logger = self.logger
        return ReadinessCheck(name: "postgres") {
            do {
                try await database.run(ReadinessProbe(), in: .control, logger: logger)
                return DependencyState(ready: true)
            } catch {
                return DependencyState(ready: false, detail: "PostgreSQL not reachable")
            }
        }
    }

    /// A readiness check that calls a peer's `rpc.discover` over mutual TLS.
    public func peerCheck(_ peer: ServiceName) -> ReadinessCheck {
        let client = client(for: peer)
        let mode = settings.mode
        return ReadinessCheck(name: peer.rawValue) {
            do {
                _ = try await client.call(Discover.self, RPCEmpty())
                return DependencyState(ready: true)
            } catch let error as RPCError {
                return DependencyState(ready: false, detail: error.message)
            } catch let error as RPCTransportError where error.peerMode != nil {
                return DependencyState(
                    ready: false, detail: "runs in \(error.peerMode ?? "another") mode, this service in \(mode.rawValue)")
            } catch {
                return DependencyState(ready: false, detail: "not reachable")
            }
        }
    }

    /// Runs one readiness check with the standard timeout.
    public func runCheck(_ check: ReadinessCheck) async -> DependencyState {
        await check.run(timeout: .seconds(2))
    }

    func status(_ parts: Parts) async -> ServiceStatus {
        let (_, checks) = await readiness(parts.readiness)
        var dependencies = checks
        let database = dependencies.removeValue(forKey: "postgres")
        let uptime = ContinuousClock.now - startedAt
        return ServiceStatus(
            service: settings.service.rawValue,
            version: Self.version,
            uptimeSeconds: Int(uptime.components.seconds),
            tenantSchemas: try? await parts.tenantSchemaCount?(),
            database: database,
            dependencies: dependencies
        )
    }
}

extension ServiceHost {
    /// A tenant's schema that is missing (never provisioned here, or dropped by a concurrent delete)
    /// is `TENANT_NOT_FOUND` for the caller, not an internal error.
    @Sendable static func translate(_ error: any Error) -> RPCError? {
        if Database.isUnreachable(error) {
            // The caller answers 503, as for a peer that does not answer: retrying later can work.
            return RPCError(code: .dependencyUnavailable, message: "The database did not answer")
        }
        // An id that is no project's or tenant's, however it reached the store: the scope door's answer.
        if let error = error as? TenantStoreError, error == .invalidScope { return ScopeSchema.invalid }
        guard TenantSchema.isMissing(error) else { return nil }
        return RPCError(code: .tenantSchemaMissing, business: IdentityToolkitError(.tenantNotFound))
    }
}
