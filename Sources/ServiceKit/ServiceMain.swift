import Foundation
import Logging
import NIOCore
import NIOPosix

/// The whole body of each executable: read configuration, set up logging, build the service's
/// parts, run until SIGTERM/SIGINT. A start-up failure prints one clear line and exits 1.
public enum ServiceMain {
    public static func run(
        _ service: ServiceName, build: @escaping @Sendable (ServiceHost) async throws -> ServiceHost.Parts
    ) async {
        MemoryReturn.configure()
        // Swift concurrency runs on NIO's event loops: a handler continues on the loop that completed
        // its network or database future instead of hopping to a second thread pool and back (15 %
        // less CPU per request, docs/performance.md). CPU-heavy work goes to `BlockingWork`.
        let sharedLoops = NIOSingletons.unsafeTryInstallSingletonPosixEventLoopGroupAsConcurrencyGlobalExecutor()
        do {
            let settings = try ServiceSettings(service: service, reader: try await ServiceSettings.makeReader())
            let level = settings.logLevel
            LoggingSystem.bootstrap { label in
                var handler = StreamLogHandler.standardOutput(label: label)
                handler.logLevel = level
                return handler
            }
            var logger = Logger(label: service.rawValue)
            logger.logLevel = level
            let host = try ServiceHost(settings: settings, logger: logger)
            logger.info(
                "starting",
                metadata: ["mode": "\(settings.mode.rawValue)", "version": "\(ServiceHost.version)", "executor": "\(sharedLoops ? "nio" : "default")"]
            )
            let parts: ServiceHost.Parts
            do {
                parts = try await build(host)
            } catch {
                // The peer client must be shut down before it is released, even when we stop here.
                try? await host.httpClient.shutdown()
                throw error
            }
            try await host.run(parts)
        } catch {
            FileHandle.standardError.write(Data("\(service.rawValue): \(error)\n".utf8))
            exit(1)
        }
    }
}
