import JSONRPC

/// `apiKey.resolve`: the project an API key belongs to. Every project gets one key when it is
/// first recorded (shown as `client.apiKey` by the project config). Unknown: error 1006.
public enum ResolveAPIKey: RPCMethod {
    public static let name = "apiKey.resolve"

    public struct Params: Codable, Sendable, Hashable {
        public var apiKey: String
        public init(apiKey: String) { self.apiKey = apiKey }
    }

    public struct Result: Codable, Sendable, Hashable {
        public var projectId: String
        public init(projectId: String) { self.projectId = projectId }
    }
}

extension RPCErrorCode {
    public static let unknownAPIKey = RPCErrorCode(1006)
}
