import JSONRPC

/// The accounts whose data a service deletes because factor-registry deletes them: their sessions
/// (session-token), their TOTP secrets and verification sessions (challenge-issuer). Without this an
/// account created later with the same uid (admins choose uids) would inherit the old sign-ins.
public struct AccountsToForget: Codable, Sendable, Hashable {
    public var projectId: String
    public var tenantId: String?
    /// The accounts, at most 1,000; absent when `allAccounts` is set.
    public var localIds: [String]?
    /// Every account of the project or tenant (the development wipe, `account.deleteAll`).
    public var allAccounts: Bool?

    public init(projectId: String, tenantId: String? = nil, localIds: [String]? = nil, allAccounts: Bool? = nil) {
        self.projectId = projectId
        self.tenantId = tenantId
        self.localIds = localIds
        self.allAccounts = allAccounts
    }

    /// The ids to forget, or `nil` for every account; refuses a request that names neither.
    public func selection() throws -> [String]? {
        if allAccounts == true {
            guard localIds == nil else { throw RPCError.invalidParams("localIds and allAccounts exclude each other") }
            return nil
        }
        guard let localIds, !localIds.isEmpty else { throw RPCError.invalidParams("localIds or allAccounts is required") }
        guard localIds.count <= 1000 else { throw RPCError.invalidParams("at most 1000 localIds") }
        return localIds
    }
}

/// How many rows a service deleted for ``AccountsToForget``.
public struct ForgottenRows: Codable, Sendable, Hashable {
    public var deleted: Int
    public init(deleted: Int) { self.deleted = deleted }
}
