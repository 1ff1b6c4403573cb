import Hummingbird
import NIOCore
import ServiceKit
import ServiceLifecycle

/// The API's listeners: plain HTTP/1.1 unless its port is 0, TLS (HTTP/2 by ALPN `h2`, or
/// HTTP/1.1) when a port is configured, and the admin listener (TLS) when one is configured.
enum PublicListeners {
    static func make(_ api: PublicAPI, settings: GatewaySettings, host: ServiceHost) throws -> [any Service] {
        let logger = host.logger
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
                    responder: responder(.public), server: host.settings.listenerLimits.http1(),
                    address: .hostname(settings.publicHost, port: settings.publicPort), serverName: "gateway", logger: logger,
                    onServerRunning: ready("public listener")
                )
            )
        }
        if settings.tlsPort > 0 {
            let tls = try PublicListenerTLS.serverConfiguration(
                certificateFile: settings.tlsCertificateFile, privateKeyFile: settings.tlsPrivateKeyFile
            )
            listeners.append(
                HTTPListener(
                    responder: responder(.public), server: try host.settings.listenerLimits.http2Upgrade(tlsConfiguration: tls),
                    address: .hostname(settings.publicHost, port: settings.tlsPort), serverName: "gateway", logger: logger,
                    onServerRunning: ready("public TLS listener (HTTP/2 and HTTP/1.1)")
                )
            )
        }
        if let admin = settings.adminListener {
            let tls = try PublicListenerTLS.serverConfiguration(
                certificateFile: admin.certificateFile, privateKeyFile: admin.privateKeyFile
            )
            listeners.append(
                HTTPListener(
                    responder: responder(.admin), server: try host.settings.listenerLimits.http2Upgrade(tlsConfiguration: tls),
                    address: .hostname(admin.host, port: admin.port), serverName: "gateway", logger: logger,
                    onServerRunning: ready("admin listener (TLS; admin credentials are accepted here only)")
                )
            )
        }
        return listeners
    }
}
