import Foundation
import Logging
import NIOCore
import NIOPosix
import ServiceTransport

/// The whole body of each executable: read configuration, set up logging, build the service's
/// parts, run until SIGTERM/SIGINT. A start-up failure prints one clear line and exits 1.
public enum ServiceMain {
    public static func run(
        _ service: ServiceName, build: @escaping @Sendable (ServiceHost) async throws -> ServiceHost.Parts
    ) async {
        ServiceCommandLine.handle()
        let sharedLoops = prepareProcess()
        do {
            let settings = try ServiceSettings(service: service, reader: try await ServiceSettings.makeReader())
            // A value that cannot be read stops the service before anything else fails because of it.
            try ConfigurationAudit.shared.check()
            bootstrapLogging(level: settings.logLevel, format: settings.logFormat)
            let host = try ServiceHost(settings: settings, logger: logger(for: settings))
            ShutdownDeadline.arm(grace: settings.shutdownGrace, logger: host.logger)
            EventLoopWatchdog.start(logger: host.logger)
            host.logger.info(
                "starting",
                metadata: [
                    "mode": "\(settings.mode.rawValue)", "version": "\(ServiceHost.version)", "executor": "\(sharedLoops ? "nio" : "pool")",
                ]
            )
            var parts = try await parts(building: build, for: host)
            do {
                if let traces = try TraceExport.bootstrap(endpoint: settings.tracingEndpoint, serviceName: service.rawValue) {
                    parts.background.append(traces)
                }
                try ConfigurationAudit.shared.check()
                warnAboutOldNames(host.logger)
                try await host.run(parts)
            } catch {
                // However far it got, the clients must be shut down before the host goes
                // (AsyncHTTPClient's rule; a debug build traps otherwise, hiding the reason).
                await host.outside.shutdown()
                await host.shutdownPeerConnections()
                throw error
            }
        } catch {
            ShutdownDeadline.serviceFailed(service.rawValue, error)
            exit(1)
        }
    }

    /// Runs several services in this process, each with its own listeners, pool and configuration
    /// scope (`factorRegistry.postgres.url` before `postgres.url`), calling each other in-process
    /// (``LocalPeers``). Any service failing to start or stopping with an error stops the process
    /// (exit status 1, its reason on standard error).
    public static func runTogether(
        _ services: [(ServiceName, @Sendable (ServiceHost) async throws -> ServiceHost.Parts)]
    ) async {
        ServiceCommandLine.handle()
        let sharedLoops = prepareProcess()
        let names = services.map(\.0.rawValue).joined(separator: ",")
        do {
            let reader = try await ServiceSettings.makeReader()
            bootstrapLogging(
                level: reader.string(forKey: "log.level", as: Logger.Level.self, default: .info),
                format: reader.string(forKey: "log.format", as: LogFormat.self, default: .text)
            )
            let processLogger = Logger(label: names)
            ShutdownDeadline.arm(grace: ServiceSettings.shutdownGrace(reader), logger: processLogger)
            EventLoopWatchdog.start(logger: processLogger)
            let local = LocalPeers(Set(services.map(\.0)))
            var started: [(ServiceHost, ServiceHost.Parts)] = []
            do {
                var modes: Set<DeploymentMode> = []
                for (service, build) in services {
                    let settings = try ServiceSettings(service: service, reader: try await ServiceSettings.makeReader(scope: service))
                    try ConfigurationAudit.shared.check()
                    // Calls between services in one process carry no mode: they must agree up front.
                    modes.insert(settings.mode)
                    guard modes.count == 1 else {
                        throw InvalidSetting(
                            key: "\(service.configKey).mode",
                            reason: "the services of one process must run in the same mode (decision 16)"
                        )
                    }
                    let host = try ServiceHost(settings: settings, logger: logger(for: settings), localPeers: local)
                    host.logger.info(
                        "starting",
                        metadata: [
                            "mode": "\(settings.mode.rawValue)", "version": "\(ServiceHost.version)",
                            "executor": "\(sharedLoops ? "nio" : "pool")", "process": "\(names)",
                        ]
                    )
                    started.append((host, try await parts(building: build, for: host)))
                }
            } catch {
                for (host, _) in started {
                    await host.outside.shutdown()
                    await host.shutdownPeerConnections()
                }
                throw error
            }
            do {
                // One tracer per process: the four services' spans carry the process's name.
                let endpoint = reader.string(forKey: "tracing.otlpEndpoint")
                if let traces = try TraceExport.bootstrap(endpoint: endpoint, serviceName: "mfa-all-in-one"), !started.isEmpty {
                    started[0].1.background.append(traces)
                }
                try ConfigurationAudit.shared.check()
            } catch {
                for (host, _) in started {
                    await host.outside.shutdown()
                    await host.shutdownPeerConnections()
                }
                throw error
            }
            warnAboutOldNames(processLogger)
            await withTaskGroup(of: Void.self) { group in
                for (host, parts) in started {
                    group.addTask {
                        do {
                            try await host.run(parts)
                        } catch {
                            // One service down (its listener could not bind, say) leaves the others
                            // answering 503 for ever: the process stops, as a lone service would.
                            ShutdownDeadline.serviceFailed(host.settings.service.rawValue, error)
                            exit(1)
                        }
                    }
                }
            }
        } catch {
            ShutdownDeadline.serviceFailed(names, error)
            exit(1)
        }
    }

    /// One warning per environment variable still named without the `MFA_` prefix.
    private static func warnAboutOldNames(_ logger: Logger) {
        for (old, new) in ConfigurationAudit.shared.oldNames {
            logger.warning(
                "environment variable \(old) is an old name: rename it \(new); names without MFA_ stop working in the next release"
            )
        }
    }

    /// What every service process does first; `true` when Swift concurrency runs on NIO's loops.
    private static func prepareProcess() -> Bool {
        MemoryReturn.configure()
        // Swift concurrency runs on NIO's event loops: a handler continues on the loop that completed
        // its network or database future instead of hopping to a second thread pool and back (a third
        // more finalizes per second, docs/performance.md). CPU-heavy work goes to `BlockingWork`.
        // `MFA_RUNTIME_EXECUTOR=pool` keeps Swift's own pool instead (read here, before any task runs,
        // so from the environment only): slower, but out of reach of the lock bug that
        // `EventLoopWatchdog` guards against.
        let environment = ProcessInfo.processInfo.environment
        if (environment["MFA_RUNTIME_EXECUTOR"] ?? environment["RUNTIME_EXECUTOR"]) == "pool" { return false }
        return NIOSingletons.unsafeTryInstallSingletonPosixEventLoopGroupAsConcurrencyGlobalExecutor()
    }

    private static func bootstrapLogging(level: Logger.Level, format: LogFormat) {
        LoggingSystem.bootstrap { label in
            switch format {
            case .text:
                var handler = DeferredMetadataLogHandler(StreamLogHandler.standardOutput(label: label))
                handler.logLevel = level
                return handler
            case .json:
                var handler = JSONLogHandler(label: label)
                handler.logLevel = level
                return handler
            }
        }
    }

    private static func logger(for settings: ServiceSettings) -> Logger {
        var logger = Logger(label: settings.service.rawValue)
        logger.logLevel = settings.logLevel
        return logger
    }
}

extension ServiceMain {
    /// The service's parts; the peer client is shut down before the host is released when building fails.
    fileprivate static func parts(
        building build: @Sendable (ServiceHost) async throws -> ServiceHost.Parts, for host: ServiceHost
    ) async throws -> ServiceHost.Parts {
        do {
            return try await build(host)
        } catch {
            host.logger.error("the service's parts could not be built", metadata: ["error": "\(error)"])
            await host.outside.shutdown()
            await host.shutdownPeerConnections()
            throw error
        }
    }
}
