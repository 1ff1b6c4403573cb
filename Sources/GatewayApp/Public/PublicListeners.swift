import Hummingbird
import ServiceKit
import ServiceLifecycle

/// The public API's listeners: plain HTTP/1.1 always, and TLS (HTTP/2 by ALPN `h2`, or HTTP/1.1)
/// when a port is configured.
enum PublicListeners {
    static func make(_ api: PublicAPI, settings: GatewaySettings, host: ServiceHost) throws -> [any Service] {
        let logger = host.logger
        let responder = CallbackResponder<GatewayRequestContext> { request, context in
            await api.respond(to: request, context: context)
        }
        var listeners: [any Service] = [
            HTTPListener(
                responder: responder, server: host.settings.listenerLimits.http1(),
                address: .hostname(settings.publicHost, port: settings.publicPort), serverName: "gateway", logger: logger,
                onServerRunning: { channel in
                    logger.info("public listener ready", metadata: ["address": "\(channel.localAddress.map { "\($0)" } ?? "?")"])
                }
            )
        ]
        if settings.tlsPort > 0 {
            let tls = try PublicListenerTLS.serverConfiguration(
                certificateFile: settings.tlsCertificateFile, privateKeyFile: settings.tlsPrivateKeyFile
            )
            listeners.append(
                HTTPListener(
                    responder: responder, server: try host.settings.listenerLimits.http2Upgrade(tlsConfiguration: tls),
                    address: .hostname(settings.publicHost, port: settings.tlsPort), serverName: "gateway", logger: logger,
                    onServerRunning: { channel in
                        logger.info(
                            "public TLS listener ready (HTTP/2 and HTTP/1.1)",
                            metadata: ["address": "\(channel.localAddress.map { "\($0)" } ?? "?")"])
                    }
                )
            )
        }
        return listeners
    }
}
