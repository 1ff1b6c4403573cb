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
}

/// Params or result of a method that takes or returns nothing: encodes as `{}`.
public struct RPCEmpty: Codable, Sendable, Hashable {
    public init() {}
}
