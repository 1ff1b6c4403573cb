import Logging
import ServiceLifecycle

/// Background work repeated every `interval` until the service stops: reconciling tenants,
/// reloading signing keys, retention sweeps. A round that fails is logged and the next one comes
/// as usual; a graceful shutdown cancels the wait (and the round in progress).
public struct PeriodicService: Service {
    /// When the first round runs.
    public enum Start: Sendable {
        /// At start-up (the work finishes something earlier runs left).
        case immediately
        /// One interval after start-up (start-up already did it, or nothing is due yet).
        case afterInterval
    }

    /// What the work does, for the log line of a failed round.
    public let name: String
    public let interval: Duration
    public let start: Start
    public let logger: Logger
    public let work: @Sendable () async throws -> Void

    public init(
        _ name: String, every interval: Duration, start: Start = .afterInterval, logger: Logger,
        work: @escaping @Sendable () async throws -> Void
    ) {
        self.name = name
        self.interval = interval
        self.start = start
        self.logger = logger
        self.work = work
    }

    public func run() async throws {
        await cancelWhenGracefulShutdown {
            if start == .afterInterval, !(await pause()) { return }
            while !Task.isCancelled {
                do {
                    try await work()
                } catch  where !Task.isCancelled {
                    logger.warning("\(name) failed; retrying in \(interval)", metadata: ["error": "\(error)"])
                } catch {
                    return
                }
                // A cancelled wait means the service is stopping.
                guard await pause() else { return }
            }
        }
    }

    private func pause() async -> Bool {
        (try? await Task.sleep(for: interval)) != nil
    }
}
