import Logging
import PostgresNIO
import ServiceLifecycle
import TenantStore

/// Listens on channel `mfa_settings`, where a trigger on `control.projects` and `control.tenants`
/// names the project of every change, and drops that project from the ``SettingsCache``. It holds
/// one connection of the pool for as long as it listens. When the connection fails it tells the
/// cache (which then stops serving entries) and listens again a second later.
struct SettingsListener: Service {
    static let channel = "mfa_settings"

    let client: Database
    let cache: SettingsCache
    let logger: Logger
    var retryInterval: Duration = .seconds(1)

    func run() async throws {
        await cancelWhenGracefulShutdown {
            while !Task.isCancelled {
                do {
                    try await listen()
                } catch {
                    if !Task.isCancelled {
                        logger.warning("settings notifications interrupted; settings are read from the database until they resume")
                    }
                }
                cache.setListening(false)
                try? await Task.sleep(for: retryInterval)
            }
        }
    }

    private func listen() async throws {
        try await client.withConnection { connection in
            try await connection.listen(on: Self.channel) { notifications in
                // LISTEN is in effect from here: every later change is seen.
                cache.setListening(true)
                for try await notification in notifications {
                    cache.invalidate(projectId: notification.payload)
                }
            }
        }
    }
}
