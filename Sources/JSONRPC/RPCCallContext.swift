import Logging

/// What a handler knows about the call it serves.
public struct RPCCallContext: Sendable {
    /// The caller's identity, read from its TLS client certificate (a service name such as `gateway`).
    public var caller: String
    /// The request id propagated across services for log correlation.
    public var requestID: String
    public var logger: Logger

    public init(caller: String, requestID: String, logger: Logger) {
        self.caller = caller
        self.requestID = requestID
        self.logger = logger
    }
}

/// Which callers may call a method.
public enum RPCCallerPolicy: Sendable, Hashable {
    /// Any caller the transport authenticated.
    case anyAuthenticated
    /// Only callers whose identity is in the set.
    case only(Set<String>)

    func allows(_ caller: String) -> Bool {
        switch self {
        case .anyAuthenticated: true
        case .only(let callers): callers.contains(caller)
        }
    }
}

/// How a call ended, for metrics.
public enum RPCOutcome: String, Sendable {
    case success
    case applicationError = "application_error"
    case protocolError = "protocol_error"
    case internalError = "internal_error"
}

/// Receives one event per dispatched call (metrics live outside this module).
public protocol RPCObserver: Sendable {
    func observe(method: String, outcome: RPCOutcome, duration: Duration)
}
