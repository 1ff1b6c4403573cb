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
}
