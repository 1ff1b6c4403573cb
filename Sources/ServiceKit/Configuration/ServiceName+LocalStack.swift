import ServiceTransport

/// What the local stack (scripts/stack.sh, docker-compose.yml) gives each service unless configured
/// otherwise: configuration, not transport, so it lives beside the settings that read it.
extension ServiceName {
    /// Default ports of the local stack: RPC (mutual TLS, HTTP/2) and ops (plain HTTP, loopback).
    var defaultPorts: (rpc: Int, ops: Int) {
        switch self {
        case .factorRegistry: (7101, 9101)
        case .challengeIssuer: (7102, 9102)
        case .sessionToken: (7103, 9103)
        case .gateway: (7104, 9104)
        }
    }

    /// The database a data service owns in the local stack; `nil` for the gateway.
    var defaultDatabase: String? {
        switch self {
        case .gateway: nil
        case .factorRegistry: "factor_registry"
        case .challengeIssuer: "challenge_issuer"
        case .sessionToken: "session_token"
        }
    }
}
