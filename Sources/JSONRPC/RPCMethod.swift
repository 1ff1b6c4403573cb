/// A JSON-RPC method as a type: its wire name and its by-name params and result.
///
/// ```swift
/// enum ProvisionTenantSchema: RPCMethod {
///     static let name = "tenantSchema.provision"
///     struct Params: Codable, Sendable { var projectId: String; var tenantId: String? }
///     typealias Result = TenantSchemaState
/// }
/// ```
public protocol RPCMethod: Sendable {
    associatedtype Params: Codable & Sendable
    associatedtype Result: Codable & Sendable
    /// The `noun.verb` name on the wire.
    static var name: String { get }
    /// Whether a call may share a stream, as one JSON-RPC batch, with other calls ready at the same
    /// moment (the calling side's coalescing, issue 60). `false` for a method whose work is long by
    /// nature (it hashes a password, waits on an outside service, or waits for news): its peer
    /// answers a batch once every member is done, so it would hold up every call batched with it.
    static var sharesBatches: Bool { get }
}

extension RPCMethod {
    public static var sharesBatches: Bool { true }
}

/// Params or result of a method that takes or returns nothing: encodes as `{}`.
public struct RPCEmpty: Codable, Sendable, Hashable {
    public init() {}
}
