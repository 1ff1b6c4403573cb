import JSONRPC

/// `idp.revokeToken` (`accounts:revokeToken`, what an app calls when a Sign in with Apple user
/// deletes their account): the provider's token revoked at its `revocation_endpoint` (RFC 7009)
/// with the configured client's secret; an authorization code (`CODE`) is first traded for the
/// refresh token it grants. The account must have the provider linked. Errors:
/// `OPERATION_NOT_ALLOWED` (not configured), `INVALID_PROVIDER_ID` (no link), `INVALID_IDP_RESPONSE`.
public enum RevokeProviderToken: RPCMethod {
    public static let name = "idp.revokeToken"
    /// Never batched: it waits on the identity provider (``RPCMethod/sharesBatches``).
    public static let sharesBatches = false

    public struct Params: Codable, Sendable, Hashable {
        public var projectId: String
        public var tenantId: String?
        public var localId: String
        public var providerId: String
        /// `REFRESH_TOKEN`, `ACCESS_TOKEN` or `CODE`.
        public var tokenType: String
        public var token: String
        public var redirectUri: String?
        public var clientAddress: String?

        public init(
            projectId: String, tenantId: String? = nil, localId: String, providerId: String, tokenType: String, token: String,
            redirectUri: String? = nil, clientAddress: String? = nil
        ) {
            self.projectId = projectId
            self.tenantId = tenantId
            self.localId = localId
            self.providerId = providerId
            self.tokenType = tokenType
            self.token = token
            self.redirectUri = redirectUri
            self.clientAddress = clientAddress
        }
    }

    public typealias Result = RPCEmpty
}
