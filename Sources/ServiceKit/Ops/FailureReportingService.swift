import ServiceLifecycle
import ServiceTransport

/// Runs one part of a service (a listener, the pool, background work) and reports its failure the
/// moment it happens (``ShutdownDeadline/serviceFailed(_:_:)``), not once the ServiceGroup has torn
/// the other parts down: that teardown can hang on the lock bug of docs/architecture.md
/// ("Known limits"), and the reason must reach the operator either way.
struct FailureReportingService: Service {
    let part: any Service
    let service: ServiceName

    func run() async throws {
        do {
            try await part.run()
        } catch {
            ShutdownDeadline.serviceFailed(service.rawValue, error)
            throw error
        }
    }
}
