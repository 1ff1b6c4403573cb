import JSONRPC

/// gateway's internal contract: `proto-json/gateway.openrpc.json`. The gateway's public API is
/// the Identity Toolkit REST API; its `/rpc` listener serves operators and peers.
public enum GatewayAPI {
    public static let service = "gateway"
    public static let allMethods: [any RPCMethod.Type] = [Discover.self, GetServiceStatus.self, Ping.self]
}
