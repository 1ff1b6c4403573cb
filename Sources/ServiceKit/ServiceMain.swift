import Foundation
import Logging

/// The whole body of each executable: read configuration, set up logging, build the service's
/// parts, run until SIGTERM/SIGINT. A start-up failure prints one clear line and exits 1.
public enum ServiceMain {
    public static func run(
        _ service: ServiceName, build: @escaping @Sendable (ServiceHost) async throws -> ServiceHost.Parts
    ) async {
        MemoryReturn.configure()
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
            logger.info("starting", metadata: ["mode": "\(settings.mode.rawValue)", "version": "\(ServiceHost.version)"])
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
