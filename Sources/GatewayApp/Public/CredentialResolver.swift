import Contracts
import Foundation
import HTTPTypes
import IdentityToolkit
import JSONRPC
import ServiceKit

/// Reads the caller's credential the way Identity Toolkit does (contract §1.3, decision 11): an
/// `Authorization: Bearer` admin credential, else an API key from `?key=` or `x-goog-api-key`.
struct CredentialResolver: Sendable {
    let mode: DeploymentMode
    let admin: AdminAuthenticator
    let defaultProjectId: String
    /// Production API keys: key → project (configuration `api.keys`, `key=project` pairs).
    let apiKeys: [String: String]
    /// factor-registry, which knows each project's own API key (production mode).
    let registry: RPCClient?

    static let apiKeyHeader = HTTPField.Name("x-goog-api-key")!

    func resolve(headers: HTTPFields, query: [String: String]) async throws -> CallerCredential {
        if let authorization = headers[.authorization], authorization.lowercased().hasPrefix("bearer ") {
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
        // A project's own key, read on every request so a project's removal applies at once.
        // Keys are printable ASCII; anything else (U+0000 above all, which PostgreSQL refuses) is
        // not one of ours and need not be looked up.
        if let registry, key.utf8.count <= 128, key.utf8.allSatisfy({ (0x21...0x7E).contains($0) }) {
            do {
                return .apiKey(projectId: try await registry.call(ResolveAPIKey.self, .init(apiKey: key), requestID: "").projectId)
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
