import Contracts
import Foundation
import Hummingbird
import IdentityToolkit
import JSONRPC
import ServiceKit
import ServiceTransport

/// The emulator's helper routes (contract §1.2, decision 12). In development mode:
/// `GET /emulator/v1/projects/{p}[/tenants/{t}]/oobCodes` and `…/verificationCodes` (what the
/// development sink received, with each message's rendered text and language) and
/// `DELETE …/accounts` (wipe the accounts). In every mode: `/emulator/action`, the target of
/// out-of-band links (OOBActionPage: in production a GET shows, a POST applies). No credential is
/// needed, as in the emulator.
struct EmulatorRoutes: Sendable {
    let mode: DeploymentMode
    let registry: PeerClient<FactorRegistryAPI>
    let challenges: PeerClient<ChallengeIssuerAPI>
    let erasure: AccountErasure
    let credentials: CredentialResolver
    let codes: OOBCodeApplication
    let scopeSettings: CachedSettings

    /// The answer for `path`, or `nil` when it is not one of these routes.
    func respond(_ request: Request, path: String, requestID: String) async -> Response? {
        guard path.hasPrefix("/emulator/") else { return nil }
        if path == "/emulator/action" {
            guard request.method == .get || request.method == .post else { return PublicAPI.error(.notFound) }
            return await OOBActionPage(
                codes: codes, credentials: credentials, registry: registry, scopeSettings: scopeSettings, confirmsFirst: mode == .production
            )
            .respond(request, requestID: requestID)
        }
        guard mode == .development, let (scope, resource) = Self.scope(of: path) else { return nil }
        do {
            switch (request.method, resource) {
            case (.get, "oobCodes"):
                let outbox = try await PeerCall.call(challenges, ListOutboxOOBCodes.self, scope, requestID: requestID)
                // The emulator's members, and beyond them the message as sent (`subject`, `text`, `html`, `locale`).
                let codes = try outbox.oobCodes.map(JSONCoding.value(of:))
                return PublicAPI.json(200, ["oobCodes": .array(codes)])
            case (.get, "verificationCodes"):
                let outbox = try await PeerCall.call(challenges, ListOutboxVerificationCodes.self, scope, requestID: requestID)
                // The emulator's members, and beyond them the SMS as sent (`text`, `locale`).
                let codes = try outbox.verificationCodes.map(JSONCoding.value(of:))
                return PublicAPI.json(200, ["verificationCodes": .array(codes)])
            case (.delete, "accounts"):
                let everyone = AccountsToForget(projectId: scope.projectId, tenantId: scope.tenantId, allAccounts: true)
                try await erasure.deleting(everyone, requestID: requestID) {
                    _ = try await PeerCall.call(registry, DeleteAllAccounts.self, scope, requestID: requestID)
                }
                return PublicAPI.json(200, [:])
            default:
                return nil
            }
        } catch let error as IdentityToolkitError {
            return PublicAPI.error(error)
        } catch {
            return PublicAPI.error(.internalError(requestID: requestID))
        }
    }

    /// `/emulator/v1/projects/{p}[/tenants/{t}]/{resource}`.
    static func scope(of path: String) -> (TenantScope, String)? {
        let parts = path.split(separator: "/", omittingEmptySubsequences: false).map(String.init)
        // "", "emulator", "v1", "projects", p, resource  |  …, p, "tenants", t, resource
        guard parts.count >= 6, parts[1] == "emulator", parts[2] == "v1", parts[3] == "projects", !parts[4].isEmpty else {
            return nil
        }
        if parts.count == 6 { return (TenantScope(projectId: parts[4]), parts[5]) }
        if parts.count == 8, parts[5] == "tenants", !parts[6].isEmpty {
            return (TenantScope(projectId: parts[4], tenantId: parts[6]), parts[7])
        }
        return nil
    }
}
