import Contracts
import Hummingbird
import JSONRPC
import ServiceKit

/// Builds the gateway: the public listener (Identity Toolkit REST in later issues; for now `GET /`),
/// readiness that reaches every other service over mutual TLS, and the internal `/rpc` listener.
public enum GatewayApp {
    public static func build(_ host: ServiceHost) async throws -> ServiceHost.Parts {
        let peers: [ServiceName] = [.factorRegistry, .challengeIssuer, .sessionToken]
        var parts = ServiceHost.Parts()
        parts.readiness = peers.map { host.peerCheck($0) }

        let router = Router(context: BasicRequestContext.self)
        let checks = parts.readiness
        router.get("/") { _, _ in
            var services: [String: JSONValue] = [:]
            for check in checks {
                let state = await host.runCheck(check)
                services[check.name] = .object(["ready": .bool(state.ready)])
            }
            return OpsRouter.json(
                .ok,
                [
                    "service": "gateway", "version": .string(ServiceHost.version),
                    "mode": .string(host.settings.mode.rawValue), "services": .object(services),
                ] as JSONValue
            )
        }
        let publicHost = host.settings.reader.string(forKey: "public.host", default: "127.0.0.1")
        let port = host.settings.reader.int(forKey: "public.port", default: 8080)
        let logger = host.logger
        let publicApp = Application(
            router: router,
            configuration: .init(address: .hostname(publicHost, port: port), serverName: "gateway"),
            onServerRunning: { channel in
                logger.info("public listener ready", metadata: ["address": "\(channel.localAddress.map { "\($0)" } ?? "?")"])
            },
            logger: logger
        )
        parts.background.append(publicApp)
        return parts
    }
}
