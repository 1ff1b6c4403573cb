/// The four services. The raw value is the binary's name, the certificate common name peers
/// authorise on, the compose service name and the `service` label of every metric.
public enum ServiceName: String, Sendable, CaseIterable, Codable {
    case gateway
    case factorRegistry = "factor-registry"
    case challengeIssuer = "challenge-issuer"
    case sessionToken = "session-token"

    /// Lower camel case, as used in configuration keys (`peers.challengeIssuer.url`).
    public var configKey: String {
        switch self {
        case .gateway: "gateway"
        case .factorRegistry: "factorRegistry"
        case .challengeIssuer: "challengeIssuer"
        case .sessionToken: "sessionToken"
        }
    }

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
