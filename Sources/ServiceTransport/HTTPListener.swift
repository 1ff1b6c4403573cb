import Hummingbird
import HummingbirdCore
import Logging
import NIOCore
import NIOHTTP1
import NIOPosix
import ServiceLifecycle

/// One HTTP listener run as a service: what Hummingbird's `Application` does for us, without the
/// task that refreshes its `Date` header.
///
/// That task (`DateCache`) ticks through service-lifecycle's `cancelOnGracefulShutdown()`, which is
/// swift-async-algorithms 1.1.4's `merge`, the lock bug in docs/architecture.md ("Known limits"): it
/// can stop an event loop for good when a tick and a shutdown meet. Every listener ran one, and
/// `Application` runs it in a service group of its own, so a listener that could not bind its port
/// waited for the stuck cache before reporting the failure: CI saw the all-in-one process end by
/// the watchdog with no reason instead of status 1 and "Address already in use". Here the `Date`
/// value comes from ``HTTPDate`` and a failure to bind is thrown at once; nothing of ours reaches
/// `merge` any more.
public struct HTTPListener<Responder: HTTPResponder>: Service
where Responder.Context: InitializableFromSource<ApplicationRequestContextSource> {
    private let responder: Responder
    private let server: HTTPServerBuilder
    private let configuration: ServerConfiguration
    private let onServerRunning: @Sendable (any Channel) async -> Void
    private let logger: Logger
    private var beforeStart: [@Sendable () async throws -> Void] = []

    /// - Parameters:
    ///   - serverName: sent as the `Server` header when set.
    ///   - onServerRunning: called once the port is bound, with the listening channel.
    public init(
        responder: Responder, server: HTTPServerBuilder = .http1(), address: BindAddress, serverName: String? = nil,
        logger: Logger, onServerRunning: @escaping @Sendable (any Channel) async -> Void = { _ in }
    ) {
        self.responder = responder
        self.server = server
        self.configuration = ServerConfiguration(address: address, serverName: serverName)
        self.onServerRunning = onServerRunning
        self.logger = logger
    }

    public init<Builder: HTTPResponderBuilder>(
        router: Builder, server: HTTPServerBuilder = .http1(), address: BindAddress, serverName: String? = nil,
        logger: Logger, onServerRunning: @escaping @Sendable (any Channel) async -> Void = { _ in }
    ) where Builder.Responder == Responder {
        self.init(
            responder: router.buildResponder(), server: server, address: address, serverName: serverName,
            logger: logger, onServerRunning: onServerRunning
        )
    }

    /// Work that must finish before the port opens (migrations); a step that throws stops the listener.
    public mutating func beforeServerStarts(perform step: @escaping @Sendable () async throws -> Void) {
        beforeStart.append(step)
    }

    public func run() async throws {
        let responder = self.responder
        let logger = self.logger
        let serverName = configuration.serverName
        let server = try server.buildServer(
            configuration: configuration, eventLoopGroup: MultiThreadedEventLoopGroup.singleton, logger: logger
        ) { request, responseWriter, channel in
            // Hummingbird's `RequestContext.id` reads this key (and traps without it).
            var requestLogger = logger
            requestLogger[metadataKey: "hb.request.id"] = .stringConvertible(RequestID())
            let context = Responder.Context(source: .init(channel: channel, logger: requestLogger))
            var response: Response
            do {
                response = try await responder.respond(to: request, context: context)
            } catch let error as HTTPParserError {
                // The channel answers 400 and closes the connection.
                throw error
            } catch {
                logger.debug("unhandled error in a responder", metadata: ["error.type": "\(type(of: error))"])
                response = Response(status: .internalServerError)
            }
            response.headers[.date] = HTTPDate.now
            if let serverName { response.headers[.server] = serverName }
            do {
                try await responseWriter.write(response: response.head, body: response.body)
            } catch is HTTPParserError {
                // A request body that fails to parse while the response streams: the head is
                // already written, so the channel must close the connection, not answer 400.
                throw ParseErrorWhileWritingResponse()
            }
        } onServerRunning: { [onServerRunning] channel in
            await onServerRunning(channel)
        }
        for step in beforeStart { try await step() }
        try await server.run()
    }

    private struct ParseErrorWhileWritingResponse: Error {}
}
