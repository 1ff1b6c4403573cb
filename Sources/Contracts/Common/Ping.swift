import JSONRPC

/// `service.ping`: answers at once with `{}`; for probes and for measuring the RPC path alone.
public enum Ping: RPCMethod {
    public static let name = "service.ping"
    public typealias Params = RPCEmpty
    public typealias Result = RPCEmpty
}
