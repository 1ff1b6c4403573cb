import Configuration
import Foundation
import ServiceKit
import Testing

@Suite("Service settings")
struct ServiceSettingsTests {
    @Test("with no configuration the defaults describe the local stack")
    func defaults() throws {
        let settings = try ServiceSettings(service: .challengeIssuer, reader: ConfigReader(providers: [InMemoryProvider(values: [:])]))
        #expect(settings.mode == .production)
        #expect(settings.rpc.port == 7102)
        #expect(settings.ops.port == 9102)
        #expect(settings.rpc.host == "127.0.0.1")
        #expect(settings.tls.certificateFile == ".stack/certs/challenge-issuer.pem")
        #expect(settings.postgres?.database == "challenge_issuer")
        #expect(settings.postgres?.port == 54329)
        #expect(settings.peers[.factorRegistry] == "https://127.0.0.1:7101")
        #expect(settings.peers[.challengeIssuer] == nil)
        #expect(settings.rpcMaxBodyBytes == 1 << 20)
        #expect(settings.defaultProjectId == "demo-project")
    }

    @Test("environment variables override defaults with swift-configuration's key spelling")
    func environmentOverrides() throws {
        let environment = EnvironmentVariablesProvider(environmentVariables: [
            "MODE": "production", "RPC_PORT": "17102", "PEERS_FACTOR_REGISTRY_URL": "https://registry.internal:7101",
            "TLS_DIRECTORY": "/etc/mfa/tls", "ADMIN_TOKEN_SHA256": "AB" + String(repeating: "0", count: 62),
            "POSTGRES_URL": "postgres://svc:p%40ss@db.internal:6543/ci",
        ])
        let settings = try ServiceSettings(service: .challengeIssuer, reader: ConfigReader(providers: [environment]))
        #expect(settings.mode == .production)
        #expect(settings.rpc.port == 17102)
        #expect(settings.peers[.factorRegistry] == "https://registry.internal:7101")
        #expect(settings.tls.caFile == "/etc/mfa/tls/ca.pem")
        #expect(settings.adminTokenHashes == ["ab" + String(repeating: "0", count: 62)])
        #expect(settings.postgres?.host == "db.internal")
        #expect(settings.postgres?.port == 6543)
        #expect(settings.postgres?.password == "p@ss")
        #expect(settings.postgres?.database == "ci")
    }

    @Test("a mode that is neither production nor development stops the service, naming the key")
    func misspeltModeIsRefused() throws {
        for value in ["developmnet", "dev", "prod", "production-ish"] {
            let environment = EnvironmentVariablesProvider(environmentVariables: ["MODE": value])
            let error = #expect(throws: InvalidSetting.self) {
                try ServiceSettings(service: .gateway, reader: ConfigReader(providers: [environment]))
            }
            #expect(error?.key == "mode")
        }
        let spelled = EnvironmentVariablesProvider(environmentVariables: ["MODE": "Development"])
        #expect(try ServiceSettings(service: .gateway, reader: ConfigReader(providers: [spelled])).mode == .development)
    }

    @Test("development mode binds loopback unless told otherwise; production binds where it is told")
    func developmentStaysOnLoopback() throws {
        let exposed = ["MODE": "development", "OPS_HOST": "0.0.0.0"]
        let error = #expect(throws: InvalidSetting.self) {
            try ServiceSettings(
                service: .factorRegistry,
                reader: ConfigReader(providers: [EnvironmentVariablesProvider(environmentVariables: exposed)])
            )
        }
        #expect(error?.key == "ops.host")
        var allowed = exposed
        allowed["DEVELOPMENT_LISTEN_BEYOND_LOOPBACK"] = "true"
        _ = try ServiceSettings(
            service: .factorRegistry, reader: ConfigReader(providers: [EnvironmentVariablesProvider(environmentVariables: allowed)])
        )
        let production = ["MODE": "production", "OPS_HOST": "0.0.0.0", "RPC_HOST": "10.0.0.5"]
        let settings = try ServiceSettings(
            service: .factorRegistry, reader: ConfigReader(providers: [EnvironmentVariablesProvider(environmentVariables: production)])
        )
        #expect(settings.ops.host == "0.0.0.0")
        for host in ["127.0.0.1", "127.1.2.3", "localhost", "::1"] {
            let loopback = ["MODE": "development", "RPC_HOST": host]
            _ = try ServiceSettings(
                service: .factorRegistry, reader: ConfigReader(providers: [EnvironmentVariablesProvider(environmentVariables: loopback)])
            )
        }
    }

    @Test("a JSON configuration file is read, and the environment wins over it")
    func configurationFile() async throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("mfa-config-\(UUID().uuidString).json")
        try Data(#"{"rpc": {"port": 17000}, "ops": {"port": 19000}, "log": {"level": "debug"}}"#.utf8).write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        let reader = ConfigReader(providers: [
            EnvironmentVariablesProvider(environmentVariables: ["OPS_PORT": "19999"]),
            try await FileProvider<JSONSnapshot>(filePath: .init(file.path)),
        ])
        let settings = try ServiceSettings(service: .sessionToken, reader: reader)
        #expect(settings.rpc.port == 17000)
        #expect(settings.ops.port == 19999)
        #expect(settings.logLevel == .debug)
    }

    @Test("in one process each service reads its own key first, then the shared one")
    func scopedKeys() throws {
        let environment = EnvironmentVariablesProvider(environmentVariables: [
            "MODE": "production", "RPC_PORT": "17000",
            "FACTOR_REGISTRY_RPC_PORT": "17101", "FACTOR_REGISTRY_POSTGRES_URL": "postgres://a:b@db:5432/registry",
            "SESSION_TOKEN_POSTGRES_URL": "postgres://a:b@db:5432/sessions",
        ])
        let registry = try ServiceSettings(
            service: .factorRegistry, reader: ServiceSettings.reader(providers: [environment], scope: .factorRegistry)
        )
        let sessions = try ServiceSettings(
            service: .sessionToken, reader: ServiceSettings.reader(providers: [environment], scope: .sessionToken)
        )
        #expect(registry.rpc.port == 17101)
        #expect(registry.postgres?.database == "registry")
        #expect(sessions.rpc.port == 17000)
        #expect(sessions.postgres?.database == "sessions")
        #expect(registry.mode == .production && sessions.mode == .production)
    }

    @Test("a database URL whose host is a directory names PostgreSQL's Unix socket, as libpq reads it")
    func unixSocketURL() throws {
        let query = try PostgresSettings(
            url: "postgres://mfa:pw@localhost:54351/factor_registry?host=/srv/pg%20data", maximumConnections: 8)
        #expect(query.unixSocketPath == "/srv/pg data/.s.PGSQL.54351")
        #expect(query.database == "factor_registry")
        #expect(query.password == "pw")
        let encoded = try PostgresSettings(url: "postgresql://mfa@%2Fvar%2Frun%2Fpostgresql/session_token", maximumConnections: 8)
        #expect(encoded.unixSocketPath == "/var/run/postgresql/.s.PGSQL.5432")
        #expect(encoded.database == "session_token")
        let tcp = try PostgresSettings(url: "postgres://mfa:pw@127.0.0.1:54329/challenge_issuer", maximumConnections: 8)
        #expect(tcp.unixSocketPath == nil)
        #expect(tcp.host == "127.0.0.1")
        #expect(throws: PostgresSettings.InvalidURL.self) {
            try PostgresSettings(url: "postgres://mfa:pw@/challenge_issuer", maximumConnections: 8)
        }
    }

    @Test("a database URL may list several servers and the one to choose, as libpq's does")
    func multiHostURL() throws {
        let pair = try PostgresSettings(
            url: "postgres://mfa:p%40ss@db-a.internal:5433,[fd00::2]:5434,db-c/session_token?target_session_attrs=read-write",
            maximumConnections: 8)
        #expect(
            pair.servers == [
                .init(host: "db-a.internal", port: 5433), .init(host: "fd00::2", port: 5434), .init(host: "db-c", port: 5432),
            ])
        #expect(pair.servers.map(\.description) == ["db-a.internal:5433", "[fd00::2]:5434", "db-c:5432"])
        #expect(pair.target == .readWrite)
        #expect(pair.password == "p@ss" && pair.username == "mfa" && pair.database == "session_token")
        #expect(
            try PostgresSettings(url: "postgres://mfa@a:1,b:2/db?target_session_attrs=primary", maximumConnections: 1).target == .primary)
        #expect(try PostgresSettings(url: "postgres://mfa@a:1/db", maximumConnections: 1).target == .any)
        for refused in [
            "postgres://mfa:hunter2@a:1,b:2/db?target_session_attrs=read-only",
            "postgres://mfa:hunter2@a:1,,b:2/db",
            "postgres://mfa:hunter2@a:1,b:x/db",
            "postgres://mfa:hunter2@a:1,b:2/db?host=/run/postgresql",
        ] {
            #expect {
                try PostgresSettings(url: refused, maximumConnections: 1)
            } throws: { error in
                !"\(error)".contains("hunter2") && "\(error)".hasPrefix("postgres.url ")
            }
        }
    }

    @Test("the pool's size and keep-alive come from configuration; it keeps one connection open")
    func poolSettings() throws {
        let defaults = try ServiceSettings(service: .sessionToken, reader: ConfigReader(providers: [InMemoryProvider(values: [:])]))
        #expect(defaults.postgres?.maximumConnections == 8)
        #expect(defaults.postgres?.keepAlive == nil)
        let reader = ConfigReader(providers: [
            InMemoryProvider(values: ["postgres.maxConnections": 4, "postgres.keepAliveSeconds": 45])
        ])
        let tuned = try ServiceSettings(service: .sessionToken, reader: reader)
        #expect(tuned.postgres?.maximumConnections == 4)
        #expect(tuned.postgres?.keepAlive == .seconds(45))
        let options = try #require(tuned.postgres).poolOptions
        #expect(options.minimumConnections == 1)
        #expect(options.maximumConnections == 4)
        #expect(options.keepAliveBehavior?.frequency == .seconds(45))
    }

    @Test("a malformed database URL is refused without echoing its password")
    func badDatabaseURL() {
        do {
            _ = try PostgresSettings(url: "mysql://user:hunter2@host/db", maximumConnections: 1)
            Issue.record("accepted a non-postgres URL")
        } catch {
            #expect(!"\(error)".contains("hunter2"))
        }
    }
}
