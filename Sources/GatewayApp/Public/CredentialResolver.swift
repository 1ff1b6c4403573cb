import Contracts
import Foundation
import HTTPTypes
import IdentityToolkit
import JSONRPC
import ServiceKit
import ServiceTransport

/// Reads the caller's credential the way Identity Toolkit does (contract §1.3, decision 11): an
/// `Authorization: Bearer` admin credential, else an API key from `?key=` or `x-goog-api-key`.
struct CredentialResolver: Sendable {
    let mode: DeploymentMode
    let admin: AdminAuthenticator
    let defaultProjectId: String
    /// Production API keys: key → project (configuration `api.keys`, `key=project` pairs).
    let apiKeys: [String: String]
    /// Each project's own API key as factor-registry knows it (production mode), kept beside the
    /// settings and dropped with them on any change (CachedSettings).
    let projectKeys: CachedSettings?
    /// An admin listener is configured: admin credentials count there only.
    let adminListenerOnly: Bool

    static let apiKeyHeader = HTTPField.Name("x-goog-api-key")!

    func resolve(headers: HTTPFields, query: [String: String], listener: ListenerRole) async throws -> CallerCredential {
        if let authorization = headers[.authorization], authorization.lowercased().hasPrefix("bearer ") {
            // On a public listener of a deployment with an admin listener, an admin token is just
            // another bearer token: refused the same way, so a leaked one opens nothing from outside.
            if adminListenerOnly, listener == .public { throw IdentityToolkitError.invalidCredentials }
            if admin.isAdmin(headers) { return .admin }
            // The emulator treats Google OAuth access tokens as the owner; only in development.
            let token = authorization.dropFirst("bearer ".count).trimmingCharacters(in: .whitespaces)
            if mode == .development, token.hasPrefix("ya29.") { return .admin }
            throw IdentityToolkitError.invalidCredentials
        }
        guard let key = query["key"] ?? headers[Self.apiKeyHeader], !key.isEmpty else {
            throw IdentityToolkitError.missingAPIKey
        }
        if let project = apiKeys[key] { return .apiKey(projectId: project) }
        if mode == .development { return .apiKey(projectId: defaultProjectId) }
        // A project's own key, from the cache a project's removal empties. Keys are printable
        // ASCII; anything else (U+0000 above all, which PostgreSQL refuses) is not one of ours and
        // need not be looked up.
        if let projectKeys, key.utf8.count <= 128, key.utf8.allSatisfy({ (0x21...0x7E).contains($0) }) {
            do {
                return .apiKey(projectId: try await projectKeys.project(ofAPIKey: key, requestID: ""))
            } catch let error as RPCError where error.code == .unknownAPIKey {
                throw IdentityToolkitError.invalidAPIKey
            } catch is RPCTransportError {
                throw IdentityToolkitError.unavailable
            }
        }
        throw IdentityToolkitError.invalidAPIKey
    }

    /// Parses `api.keys`: comma-separated `key=projectId` pairs.
    static func parseKeys(_ entries: [String]) -> [String: String] {
        var keys: [String: String] = [:]
        for entry in entries {
            let parts = entry.split(separator: "=", maxSplits: 1).map { String($0).trimmingCharacters(in: .whitespaces) }
            if parts.count == 2, !parts[0].isEmpty, !parts[1].isEmpty { keys[parts[0]] = parts[1] }
        }
        return keys
    }
}
