import Configuration
import Foundation
import Logging
import ServiceKit
import ServiceTransport
import TestSupport

/// Data services started together in the test process as `mfa-all-in-one` starts them (calling each
/// other in-process), each on its own throw-away database, with their start-up steps and background
/// work (the tenant reconciler, sweeps) running; dropped at the end.
public struct InProcessServices: Sendable {
    public typealias Build = @Sendable (ServiceHost) async throws -> ServiceHost.Parts

    private let running: [ServiceName: ServiceUnderTest]

    public subscript(service: ServiceName) -> ServiceUnderTest {
        guard let running = running[service] else { preconditionFailure("\(service.rawValue) was not started") }
        return running
    }

    /// Starts `services` with `configuration` (dotted keys, as in `deploy/configuration.md`) over
    /// the defaults a test needs, waits until every one is ready (its migrations ran, the default
    /// project is provisioned everywhere) unless `awaitReadiness` is false, runs `body`, then stops
    /// them and drops their databases.
    public static func withRunning<T: Sendable>(
        _ services: [(ServiceName, Build)], configuration: [String: String] = [:], awaitReadiness: Bool = true,
        _ body: @Sendable (InProcessServices) async throws -> T
    ) async throws -> T {
        let local = LocalPeers(Set(ServiceName.allCases))
        let masterKey = Data((0..<32).map { _ in UInt8.random(in: 0...255) }).base64EncodedString()
        var started: [(ServiceUnderTest, ServiceHost.Parts)] = []
        var databases: [String] = []
        let outcome: Result<T, any Error>
        do {
            for (service, build) in services {
                let database = try await TestPostgres.createDatabase(prefix: "svc")
                databases.append(database)
                var values: [String: String] = [
                    "mode": "development",
                    "log.level": "error",
                    "tls.directory": try TestCertificates.directory.path,
                    "contracts.directory": TestCertificates.packageRoot.appendingPathComponent("proto-json").path,
                    "secrets.masterKey": masterKey,
                    "postgres.url": TestPostgres.url(of: database),
                    "postgres.maximumConnections": "4",
                    "reconcile.intervalMs": "100",
                ]
                values.merge(configuration) { _, new in new }
                let settings = try ServiceSettings(
                    service: service, reader: ConfigReader(providers: [EnvironmentVariablesProvider(keys: values)]))
                var logger = Logger(label: service.rawValue)
                logger.logLevel = .error
                // Every service "runs here": the host opens no network connection to any of them.
                let host = try ServiceHost(settings: settings, logger: logger, localPeers: local)
                let parts = try await build(host)
                started.append((ServiceUnderTest(host: host, dispatcher: try host.dispatcher(parts), databaseName: database), parts))
            }
            let running = Dictionary(uniqueKeysWithValues: started.map { ($0.0.service, $0.0) })
            outcome = await withTaskGroup(of: Void.self) { group in
                defer { group.cancelAll() }
                for (service, _) in started {
                    guard let database = service.host.database else { continue }
                    group.addTask { await database.run() }
                }
                do {
                    for (service, parts) in started {
                        try await service.host.prepare(parts)
                        service.host.serveInProcess(service.dispatcher)
                    }
                    for (_, parts) in started {
                        for work in parts.background { group.addTask { try? await work.run() } }
                    }
                    if awaitReadiness { try await waitUntilReady(started) }
                    return .success(try await body(InProcessServices(running: running)))
                } catch {
                    return .failure(error)
                }
            }
        } catch {
            outcome = .failure(error)
        }
        for (service, _) in started {
            await service.host.outside.shutdown()
            await service.host.shutdownPeerConnections()
        }
        for database in databases { try await TestPostgres.dropDatabase(database) }
        return try outcome.get()
    }

    private static func waitUntilReady(_ started: [(ServiceUnderTest, ServiceHost.Parts)]) async throws {
        let deadline = ContinuousClock.now + .seconds(30)
        for (service, parts) in started {
            while !(await service.host.isReady(parts)) {
                guard ContinuousClock.now < deadline else { throw NotReady(service: service.service.rawValue) }
                try await Task.sleep(for: .milliseconds(50))
            }
        }
    }

    struct NotReady: Error, CustomStringConvertible {
        let service: String
        var description: String { "\(service) was not ready within 30 s" }
    }
}

extension EnvironmentVariablesProvider {
    /// A provider of `values` under dotted keys (`postgres.maximumConnections`), read as a
    /// deployment's environment spells them (`POSTGRES_MAXIMUM_CONNECTIONS`), so numbers and lists
    /// are parsed exactly as there.
    init(keys values: [String: String]) {
        self.init(
            environmentVariables: Dictionary(
                uniqueKeysWithValues: values.map { key, value in
                    let spelled = key.unicodeScalars.map { character in
                        character == "." ? "_" : CharacterSet.uppercaseLetters.contains(character) ? "_\(character)" : "\(character)"
                    }
                    return (spelled.joined().uppercased(), value)
                }
            )
        )
    }
}
