import Hummingbird
import NIOCore
import ServiceKit
import ServiceLifecycle

/// The API's listeners: plain HTTP/1.1 unless its port is 0, TLS (HTTP/2 by ALPN `h2`, or
/// HTTP/1.1) when a port is configured, and the admin listener (TLS) when one is configured.
enum PublicListeners {
    static func make(_ api: PublicAPI, settings: GatewaySettings, host: ServiceHost) throws -> [any Service] {
        let logger = host.logger
        let listenerLimits = host.settings.listenerLimits
        func responder(_ role: ListenerRole) -> CallbackResponder<GatewayRequestContext> {
            CallbackResponder { request, context in await api.respond(to: request, context: context, listener: role) }
        }
        func ready(_ what: String) -> @Sendable (any Channel) async -> Void {
            { channel in logger.info("\(what) ready", metadata: ["address": "\(channel.localAddress.map { "\($0)" } ?? "?")"]) }
        }
        var listeners: [any Service] = []
        if settings.publicPort > 0 {
            listeners.append(
                HTTPListener(
                    responder: responder(.public), server: listenerLimits.http1(),
                    address: .hostname(settings.publicHost, port: settings.publicPort), serverName: "gateway", logger: logger,
                    onServerRunning: ready("public listener")
                )
            )
        }
        func tlsListener(
            _ role: ListenerRole, certificate: String, key: String, host: String, port: Int, what: String
        ) throws -> any Service {
            let tls = try PublicListenerTLS.serverConfiguration(certificateFile: certificate, privateKeyFile: key)
            return HTTPListener(
                responder: responder(role), server: try listenerLimits.http2Upgrade(tlsConfiguration: tls),
                address: .hostname(host, port: port), serverName: "gateway", logger: logger, onServerRunning: ready(what)
            )
        }
        if settings.tlsPort > 0 {
            listeners.append(
                try tlsListener(
                    .public, certificate: settings.tlsCertificateFile, key: settings.tlsPrivateKeyFile,
                    host: settings.publicHost, port: settings.tlsPort, what: "public TLS listener (HTTP/2 and HTTP/1.1)"
                )
            )
        }
        if let admin = settings.adminListener {
            listeners.append(
                try tlsListener(
                    .admin, certificate: admin.certificateFile, key: admin.privateKeyFile, host: admin.host, port: admin.port,
                    what: "admin listener (TLS; admin credentials are accepted here only)"
                )
            )
        }
        return listeners
    }
}
