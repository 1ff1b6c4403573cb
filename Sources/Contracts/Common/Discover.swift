import JSONRPC

/// `rpc.discover`: returns the service's OpenRPC document (OpenRPC's reserved method).
public enum Discover: RPCMethod {
    public static let name = "rpc.discover"
    public typealias Params = RPCEmpty
    /// The OpenRPC document, as stored in `proto-json/<service>.openrpc.json`.
    public typealias Result = JSONValue
}
