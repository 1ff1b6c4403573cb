import Hummingbird
import NIOCore
import ServiceKit
import ServiceLifecycle
import ServiceTransport

/// The API's listeners: plain HTTP/1.1 unless its port is 0, TLS (HTTP/2 by ALPN `h2`, or
/// HTTP/1.1) when a port is configured, and the admin listener (TLS) when one is configured.
enum PublicListeners {
    static func make(_ api: PublicAPI, settings: GatewaySettings, host: ServiceHost) throws -> [any Service] {
        let logger = host.logger
        let listenerLimits = host.settings.listenerLimits
        // A load balancer's connections carry many clients: they count toward a listener's cap only.
        let balancers = Array(try ClientAddress(reader: host.settings.reader).trustedProxies)
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
                    responder: responder(.public),
                    server: listenerLimits.http1(guard: host.connectionGuard(listener: "public", exempt: balancers)),
                    address: .hostname(settings.publicHost, port: settings.publicPort), serverName: "gateway", logger: logger,
                    onServerRunning: ready("public listener")
                )
            )
        }
        func tlsListener(
            _ role: ListenerRole, certificate: String, key: String, bind: String, port: Int, what: String
        ) throws -> any Service {
            let tls = try PublicListenerTLS.serverConfiguration(certificateFile: certificate, privateKeyFile: key)
            let connections = host.connectionGuard(listener: role == .admin ? "admin" : "public-tls", exempt: balancers)
            return HTTPListener(
                responder: responder(role), server: try listenerLimits.http2Upgrade(tlsConfiguration: tls, guard: connections),
                address: .hostname(bind, port: port), serverName: "gateway", logger: logger, onServerRunning: ready(what)
            )
        }
        if settings.tlsPort > 0 {
            listeners.append(
                try tlsListener(
                    .public, certificate: settings.tlsCertificateFile, key: settings.tlsPrivateKeyFile,
                    bind: settings.publicHost, port: settings.tlsPort, what: "public TLS listener (HTTP/2 and HTTP/1.1)"
                )
            )
        }
        if let admin = settings.adminListener {
            listeners.append(
                try tlsListener(
                    .admin, certificate: admin.certificateFile, key: admin.privateKeyFile, bind: admin.host, port: admin.port,
                    what: "admin listener (TLS; admin credentials are accepted here only)"
                )
            )
        }
        return listeners
    }
}
