import HTTPTypes

/// Who may read `/metrics`. Its series name tenants and count SMS spending per country: business
/// figures that no one on the ops network should read just by asking (issue 40, L-5). A scraper
/// sends `Authorization: Bearer <token>` whose SHA-256 is in `metrics.tokenSha256` (a credential
/// of its own, so that Prometheus holds no admin power); an admin credential is accepted too.
/// Production refuses everyone else; development stays open unless a metrics token is configured.
public struct MetricsAccess: Sendable {
    let tokenHashes: [[UInt8]]
    let admin: AdminAuthenticator

    public init(tokenHashesHex: [String], admin: AdminAuthenticator) {
        tokenHashes = tokenHashesHex.compactMap(AdminAuthenticator.bytes(fromHex:))
        self.admin = admin
    }

    public func permits(_ headers: HTTPFields) -> Bool {
        if admin.mode == .development, tokenHashes.isEmpty { return true }
        if admin.isAdmin(headers) { return true }
        guard let token = AdminAuthenticator.bearerToken(headers[.authorization]) else { return false }
        return AdminAuthenticator.matches(token, anyOf: tokenHashes)
    }
}
