import Configuration
import Foundation
import Logging
import ServiceTransport

/// Everything a service reads from configuration at start-up. Every key is documented with its
/// default in `deploy/configuration.md`; the defaults make a working local stack.
public struct ServiceSettings: Sendable {
    public var service: ServiceName
    public var mode: DeploymentMode
    /// `development.listenBeyondLoopback`: development mode may bind a non-loopback address.
    public var listensBeyondLoopbackInDevelopment: Bool
    public var logLevel: Logger.Level
    /// `log.format`: `text` (swift-log's lines) or `json` (one object per line, ``JSONLogHandler``).
    public var logFormat: LogFormat
    /// `tracing.otlpEndpoint`: the OTLP/HTTP traces URL of a collector; unset, no traces (``TraceExport``).
    public var tracingEndpoint: String?
    public var rpc: Listener
    public var ops: Listener
    public var tls: TLSFiles
    /// `nil` for the gateway, which stores nothing.
    public var postgres: PostgresSettings?
    /// Base URLs (`https://host:port`) of the services this one calls.
    public var peers: [ServiceName: String]
    /// SHA-256 (hex) of each accepted admin bearer token: tokens themselves are never configured in clear.
    public var adminTokenHashes: [String]
    /// SHA-256 (hex) of the bearer tokens a scraper sends for `/metrics` (`metrics.tokenSha256`).
    public var metricsTokenHashes: [String]
    /// Largest `/rpc` request body accepted, in bytes.
    public var rpcMaxBodyBytes: Int
    /// Timeout of one call to a peer.
    public var rpcTimeout: Duration
    /// How long every listener waits for a client's request and between requests.
    public var listenerLimits: ListenerLimits
    /// How long the process may take to stop after SIGTERM/SIGINT (``ShutdownDeadline``).
    public var shutdownGrace: Duration
    /// Where the OpenRPC documents live.
    public var contractsDirectory: String?
    /// The project that development-mode API keys and `Bearer owner` map to.
    public var defaultProjectId: String
    /// The reader itself, for keys that belong to one service only.
    public let reader: ConfigReader

    public struct Listener: Sendable {
        public var host: String
        public var port: Int
    }

    /// The deployment CA, this service's certificate and its key (``MutualTLS``).
    public typealias TLSFiles = ServiceTransport.TLSFiles

    public init(service: ServiceName, reader: ConfigReader) throws {
        self.service = service
        let ports = service.defaultPorts
        mode = try DeploymentMode.read(from: reader)
        listensBeyondLoopbackInDevelopment = reader.bool(forKey: "development.listenBeyondLoopback", default: false)
        logLevel = reader.string(forKey: "log.level", as: Logger.Level.self, default: .info)
        logFormat = reader.string(forKey: "log.format", as: LogFormat.self, default: .text)
        tracingEndpoint = reader.string(forKey: "tracing.otlpEndpoint")
        rpc = Listener(
            host: reader.string(forKey: "rpc.host", default: "127.0.0.1"),
            port: reader.int(forKey: "rpc.port", default: ports.rpc)
        )
        ops = Listener(
            host: reader.string(forKey: "ops.host", default: "127.0.0.1"),
            port: reader.int(forKey: "ops.port", default: ports.ops)
        )
        let certificates = reader.string(forKey: "tls.directory", default: ".stack/certs")
        tls = TLSFiles(
            caFile: reader.string(forKey: "tls.ca", default: "\(certificates)/ca.pem"),
            certificateFile: reader.string(forKey: "tls.certificate", default: "\(certificates)/\(service.rawValue).pem"),
            privateKeyFile: reader.string(forKey: "tls.privateKey", default: "\(certificates)/\(service.rawValue)-key.pem")
        )
        if let database = service.defaultDatabase {
            postgres = try PostgresSettings(
                url: reader.string(
                    forKey: "postgres.url",
                    isSecret: true,
                    default: "postgres://mfa:mfa@127.0.0.1:54329/\(database)"
                ),
                maximumConnections: reader.int(forKey: "postgres.maxConnections", default: 8),
                keepAlive: Self.keepAlive(seconds: reader.int(forKey: "postgres.keepAliveSeconds", default: 0)),
                preparedStatements: reader.int(forKey: "postgres.preparedStatements", default: 500)
            )
        } else {
            postgres = nil
        }
        var peers: [ServiceName: String] = [:]
        for peer in ServiceName.allCases where peer != service {
            peers[peer] = reader.string(
                forKey: ConfigKey("peers.\(peer.configKey).url"),
                default: "https://127.0.0.1:\(peer.defaultPorts.rpc)"
            )
        }
        self.peers = peers
        adminTokenHashes = reader.stringArray(forKey: "admin.tokenSha256", default: []).map { $0.lowercased() }
        metricsTokenHashes = reader.stringArray(forKey: "metrics.tokenSha256", default: []).map { $0.lowercased() }
        rpcMaxBodyBytes = reader.int(forKey: "rpc.maxBodyBytes", default: 1 << 20)
        rpcTimeout = .milliseconds(reader.int(forKey: "rpc.timeoutMs", default: 10_000))
        listenerLimits = try ListenerLimits(reader: reader)
        shutdownGrace = Self.shutdownGrace(reader)
        contractsDirectory = reader.string(forKey: "contracts.directory")
        defaultProjectId = reader.string(forKey: "project.defaultId", default: "demo-project")
        self.reader = reader
        try requireLoopbackInDevelopment(rpc.host, key: "rpc.host")
        try requireLoopbackInDevelopment(ops.host, key: "ops.host")
    }

    /// Development mode's conveniences (`Bearer owner`, any API key) are for this machine only: its
    /// listeners bind loopback unless `development.listenBeyondLoopback` says otherwise (decision 16).
    public func requireLoopbackInDevelopment(_ host: String, key: String) throws {
        guard mode == .development, !listensBeyondLoopbackInDevelopment, !Self.isLoopback(host) else { return }
        throw InvalidSetting(
            key: key,
            reason: "'\(host)' is not a loopback address, and development mode accepts the credential 'owner' and any API key; "
                + "bind 127.0.0.1, run in production mode, or set development.listenBeyondLoopback=true"
        )
    }

    static func isLoopback(_ host: String) -> Bool {
        host == "localhost" || host == "::1" || host == "[::1]" || host.hasPrefix("127.")
    }

    /// `shutdown.graceSeconds`, at least one second.
    static func shutdownGrace(_ reader: ConfigReader) -> Duration {
        .seconds(max(1, reader.int(forKey: "shutdown.graceSeconds", default: 10)))
    }

    /// `postgres.keepAliveSeconds`: 0 or less turns the idle connections' `SELECT 1` off.
    static func keepAlive(seconds: Int) -> Duration? {
        seconds > 0 ? .seconds(seconds) : nil
    }

    /// The standard provider chain: environment variables named `MFA_<KEY>` first, then the same
    /// without the prefix (the names before it, for one more release: each use is warned about),
    /// then the optional JSON file named by `MFA_CONFIG_FILE` (dotted keys become nested objects),
    /// then defaults in code. Every read is watched by ``ConfigurationAudit/shared``.
    ///
    /// With a `scope` (one of several services in one process), a key set under the service's
    /// config key wins over the plain key: `factorRegistry.postgres.url`
    /// (`MFA_FACTOR_REGISTRY_POSTGRES_URL`) before `postgres.url`.
    public static func makeReader(scope: ServiceName? = nil) async throws -> ConfigReader {
        var providers: [any ConfigProvider] = [
            EnvironmentVariablesProvider().prefixKeys(with: ConfigKey("mfa")), EnvironmentVariablesProvider(),
        ]
        if let file = ProcessInfo.processInfo.environment["MFA_CONFIG_FILE"], !file.isEmpty {
            providers.append(try await FileProvider<JSONSnapshot>(filePath: .init(file)))
        }
        return reader(providers: providers, scope: scope, audit: .shared)
    }

    /// A reader over `providers` in order; with a `scope`, each provider is first asked for the key
    /// under the scope's config key.
    public static func reader(
        providers: [any ConfigProvider], scope: ServiceName?, audit: ConfigurationAudit? = nil
    ) -> ConfigReader {
        guard let scope else { return ConfigReader(providers: providers, accessReporter: audit) }
        let prefix = ConfigKey(scope.configKey)
        return ConfigReader(providers: providers.map { prefixed($0, with: prefix) } + providers, accessReporter: audit)
    }

    private static func prefixed(_ provider: some ConfigProvider, with prefix: ConfigKey) -> any ConfigProvider {
        provider.prefixKeys(with: prefix)
    }
}

/// How a service writes its log lines (`log.format`).
public enum LogFormat: String, Sendable {
    case text, json
}
