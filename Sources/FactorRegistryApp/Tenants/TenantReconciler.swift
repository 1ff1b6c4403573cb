import Logging
import ServiceLifecycle

/// Finishes what a crash or an unreachable peer interrupted: projects and tenants left
/// `provisioning` or `deleting` are driven to the end, every `interval`, until shutdown.
struct TenantReconciler: Service {
    let registry: TenantRegistry
    let interval: Duration

    func run() async throws {
        await cancelWhenGracefulShutdown {
            while !Task.isCancelled {
                await registry.reconcile()
                try? await Task.sleep(for: interval)
            }
        }
    }
}
