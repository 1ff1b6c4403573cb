import AsyncHTTPClient
import Foundation
import Logging
import NIOSSL
import PostgresNIO
import ServiceKit
import ServiceTransport
import TestSupport

/// Some or all of the four services as real processes, each data service on its own fresh
/// database, talking over HTTP/2 with mutual TLS on loopback ports chosen for this stack.
final class TestStack: @unchecked Sendable {
    let pki: TestPKI
    let workDirectory: URL
    let postgresBaseURL: String
    let databases: [ServiceName: String]
    let processes: [ServiceName: ServiceProcess]
    /// The gateway's public listener.
    let publicURL: String
    /// Plain HTTP client for the ops and public listeners.
    let http: HTTPClient
    private var clients: [HTTPClient] = []
    private var channels: [PeerChannel] = []
    /// Further instances of a service (``startSecondInstance(of:)``), stopped with the stack.
    private var extraProcesses: [ServiceProcess] = []
    /// Errors only: the admin pool's start-up warnings would drown the test output.
    static let logger: Logger = {
        var logger = Logger(label: "system-test")
        logger.logLevel = .error
        return logger
    }()

    /// Creates databases and configuration for all four services; starts none.
    init(postgresBaseURL: String = TestEnvironment.postgresBaseURL, environment extra: [String: String] = [:]) async throws {
        pki = try TestPKI()
        workDirectory = try TestEnvironment.temporaryDirectory("mfa-stack")
        self.postgresBaseURL = postgresBaseURL
        let suffix = UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "").prefix(10)
        var databases: [ServiceName: String] = [:]
        for service in [ServiceName.factorRegistry, .challengeIssuer, .sessionToken] {
            databases[service] = "sys_\(suffix)_\(service.rawValue.replacingOccurrences(of: "-", with: "_"))"
        }
        self.databases = databases
        let names = Array(databases.values)
        try await Self.admin(postgresBaseURL) { client in
            for name in names {
                try await client.query(PostgresQuery(unsafeSQL: "CREATE DATABASE \(name)"), logger: Self.logger)
            }
        }
        var ports: [ServiceName: (rpc: Int, ops: Int)] = [:]
        for service in ServiceName.allCases { ports[service] = (try LoopbackPort.free(), try LoopbackPort.free()) }
        var processes: [ServiceName: ServiceProcess] = [:]
        let masterKey = Data((0..<32).map { _ in UInt8.random(in: 0...255) }).base64EncodedString()
        let publicPort = try LoopbackPort.free()
        publicURL = "http://127.0.0.1:\(publicPort)"
        for service in ServiceName.allCases {
            var environment: [String: String] = [
                "PATH": ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin",
                "LOG_LEVEL": "info",
                // The stack's tests use development conveniences; production tests say MODE=production.
                "MODE": "development",
                "RPC_PORT": String(ports[service]!.rpc),
                "OPS_PORT": String(ports[service]!.ops),
                "PUBLIC_PORT": String(publicPort),
                "TLS_DIRECTORY": pki.directory.path,
                "CONTRACTS_DIRECTORY": TestEnvironment.contractsDirectory,
                "RECONCILE_INTERVAL_MS": "200",
                "SECRETS_MASTER_KEY": masterKey,
                // Production wants the operator's link base; here, this gateway's own page.
                "OOB_LINK_BASE": "http://127.0.0.1:\(publicPort)/emulator/action",
            ]
            for peer in ServiceName.allCases where peer != service {
                environment["PEERS_\(peer.configKey.snakeUpper)_URL"] = "https://127.0.0.1:\(ports[peer]!.rpc)"
            }
            if let database = databases[service] {
                environment["POSTGRES_URL"] = "\(postgresBaseURL)/\(database)"
            }
            environment.merge(extra) { _, new in new }
            processes[service] = ServiceProcess(
                service: service, rpcPort: ports[service]!.rpc, opsPort: ports[service]!.ops,
                environment: environment, logDirectory: workDirectory
            )
        }
        self.processes = processes
        // Last, after everything that can throw: a client dropped without shutdown() traps.
        http = HTTPClient(eventLoopGroupProvider: .singleton)
    }

    func process(_ service: ServiceName) -> ServiceProcess { processes[service]! }

    /// The deployment mode the stack's services run in; test clients declare the same.
    var mode: DeploymentMode {
        DeploymentMode(rawValue: process(.gateway).environment["MODE"] ?? "") ?? .production
    }

    /// Starts the services and waits until each is ready.
    func start(_ services: [ServiceName]) async throws {
        for service in services { try process(service).start() }
        for service in services { try await process(service).waitForReadiness(http) }
    }

    /// A JSON-RPC client to `service` presenting a certificate for `identity`.
    func client(to service: ServiceName, as identity: String) throws -> RPCClient {
        let channel = try PeerChannel(url: process(service).rpcURL, tls: try pki.client(as: identity).clientConfiguration)
        channels.append(channel)
        return RPCClient(peer: service, over: channel, timeout: .seconds(10), mode: mode)
    }

    /// Starts one more instance of `service` on the same database and configuration, on ports of
    /// its own (as a scaled-out deployment runs it), and returns a client to it as `identity`.
    func startSecondInstance(of service: ServiceName, as identity: String) async throws -> RPCClient {
        let first = process(service)
        var environment = first.environment
        let (rpcPort, opsPort) = (try LoopbackPort.free(), try LoopbackPort.free())
        environment["RPC_PORT"] = String(rpcPort)
        environment["OPS_PORT"] = String(opsPort)
        let directory = workDirectory.appendingPathComponent("second-\(service.rawValue)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let second = ServiceProcess(
            service: service, rpcPort: rpcPort, opsPort: opsPort, environment: environment, logDirectory: directory
        )
        extraProcesses.append(second)
        try second.start()
        try await second.waitForReadiness(http)
        let channel = try PeerChannel(url: second.rpcURL, tls: try pki.client(as: identity).clientConfiguration)
        channels.append(channel)
        return RPCClient(peer: service, over: channel, timeout: .seconds(10), mode: mode)
    }

    /// An HTTP client with the given TLS configuration, shut down with the stack.
    func httpClient(tls: TLSConfiguration) -> HTTPClient {
        var configuration = HTTPClient.Configuration()
        configuration.tlsConfiguration = tls
        let client = HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
        clients.append(client)
        return client
    }

    /// The tenant schemas (`p_…`, `t_…`) present in a service's database.
    func schemas(in service: ServiceName) async throws -> Set<String> {
        try await Self.admin(postgresBaseURL, database: databases[service]!) { client in
            var names: Set<String> = []
            let rows = try await client.query(
                "SELECT nspname FROM pg_namespace WHERE nspname LIKE 'p\\_%' OR nspname LIKE 't\\_%'", logger: Self.logger
            )
            for try await name in rows.decode(String.self) { names.insert(name) }
            return names
        }
    }

    func shutdown() async {
        for process in Array(processes.values) + extraProcesses { process.stop() }
        for client in clients { try? await client.shutdown() }
        for channel in channels { await channel.close() }
        try? await http.shutdown()
        let names = Array(databases.values)
        try? await Self.admin(postgresBaseURL) { client in
            for name in names {
                try await client.query(PostgresQuery(unsafeSQL: "DROP DATABASE IF EXISTS \(name) WITH (FORCE)"), logger: Self.logger)
            }
        }
        // The logs (a failing test has already copied their tails into its error) and the PKI's
        // private keys are not left behind in the temporary directory.
        try? FileManager.default.removeItem(at: workDirectory)
        try? FileManager.default.removeItem(at: pki.directory)
    }

    /// Runs `body` against a fresh stack and always tears it down.
    static func with<T>(
        environment: [String: String] = [:], postgresBaseURL: String = TestEnvironment.postgresBaseURL,
        _ body: (TestStack) async throws -> T
    ) async throws -> T {
        let stack = try await TestStack(postgresBaseURL: postgresBaseURL, environment: environment)
        do {
            let result = try await body(stack)
            await stack.shutdown()
            return result
        } catch {
            let logs = stack.processes.values.filter { $0.isRunning || FileManager.default.fileExists(atPath: $0.logFile.path) }
                .map { "--- \($0.service.rawValue)\n\($0.logTail(15))" }.joined(separator: "\n")
            await stack.shutdown()
            throw ProcessFailure(message: "\(error)\n\(logs)")
        }
    }

    static func admin<T: Sendable>(
        _ baseURL: String, database: String = "postgres", _ body: @Sendable (PostgresClient) async throws -> T
    ) async throws -> T {
        let settings = try PostgresSettings(url: "\(baseURL)/\(database)", maximumConnections: 1)
        let client = PostgresClient(configuration: settings.connection(), backgroundLogger: logger)
        return try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { await client.run() }
            defer { group.cancelAll() }
            return try await body(client)
        }
    }
}

extension String {
    /// `challengeIssuer` → `CHALLENGE_ISSUER`, the environment spelling of a configuration key part.
    var snakeUpper: String {
        var result = ""
        for character in self {
            if character.isUppercase { result += "_" }
            result += character.uppercased()
        }
        return result
    }
}
