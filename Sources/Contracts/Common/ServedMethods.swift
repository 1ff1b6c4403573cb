import JSONRPC

/// A data service's contract as a type (`FactorRegistryAPI`, …): what a typed peer client names
/// (`PeerClient<FactorRegistryAPI>`, in ServiceKit).
public protocol DataServiceAPI: Sendable {
    /// The service's name, as `ServiceName` spells it.
    static var service: String { get }
    /// Every method the service serves; a test checks it against the OpenRPC document and against
    /// the markers below.
    static var allMethods: [any RPCMethod.Type] { get }
}

/// Methods factor-registry serves. Each method is marked with the services that serve it, so that
/// a call names its peer in its type: calling it through another service's client does not compile.
public protocol FactorRegistryMethod: RPCMethod {}
/// Methods challenge-issuer serves.
public protocol ChallengeIssuerMethod: RPCMethod {}
/// Methods session-token serves.
public protocol SessionTokenMethod: RPCMethod {}
/// Methods every data service serves (discovery, status, the audit trail).
public protocol DataServiceMethod: FactorRegistryMethod, ChallengeIssuerMethod, SessionTokenMethod {}
/// Methods every service that keeps schemas for factor-registry's tenants serves (provisioning).
public protocol TenantSchemaMethod: ChallengeIssuerMethod, SessionTokenMethod {}

extension Discover: DataServiceMethod {}
extension GetServiceStatus: DataServiceMethod {}
extension ListSecurityEvents: DataServiceMethod {}
extension Ping: DataServiceMethod {}
extension DropTenantSchema: TenantSchemaMethod {}
extension ProvisionTenantSchema: TenantSchemaMethod {}
