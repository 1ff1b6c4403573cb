import Contracts
import Foundation
import IdentityToolkit
import JSONRPC
import ServiceKit
import TenantStore

/// factor-registry's passkey methods (issue 59): the credentials the gateway verified, kept per
/// account in the scope's schema. The WebAuthn checks themselves are the gateway's (`WebAuthn`).
struct PasskeyService: Sendable {
    let passkeys: PasskeyRepository
    let accounts: AccountService

    /// Ids arrive as base64url (what `passkeyInfo` shows); stored as the raw bytes.
    static func bytes(_ text: String, limit: Int = 1023) throws -> [UInt8] {
        guard text.utf8.count <= (limit * 4 + 2) / 3 + 4, let data = Base64URL.decode(text), !data.isEmpty, data.count <= limit else {
            throw AccountService.rejected(.invalidArgument, detail: "Invalid passkey data.")
        }
        return Array(data)
    }

    func add(_ params: AddPasskey.Params) async throws -> AddPasskey.Result {
        let schema = try await accounts.activeSchema(projectId: params.projectId, tenantId: params.tenantId)
        let credential = params.credential
        let stored = PasskeyRepository.Stored(
            credentialId: try Self.bytes(credential.credentialId), publicKey: try Self.bytes(credential.publicKey, limit: 2048),
            algorithm: Int32(clamping: credential.algorithm), signCount: credential.signCount, name: String(credential.name.prefix(256)),
            aaguid: try credential.aaguid.map { try Self.bytes($0, limit: 16) } ?? [], backupEligible: credential.backupEligible,
            backedUp: credential.backedUp
        )
        switch try await passkeys.add(stored, localId: params.localId, maximum: params.maximumPerAccount, in: schema) {
        case .added: return RPCEmpty()
        case .accountMissing: throw AccountService.rejected(.userNotFound)
        case .exists: throw AccountService.rejected(.passkeyExists)
        case .overLimit: throw AccountService.rejected(.passkeyLimitExceeded)
        }
    }

    func find(_ params: FindPasskey.Params) async throws -> FindPasskey.Result {
        let schema = try await accounts.activeSchema(projectId: params.projectId, tenantId: params.tenantId)
        guard let id = try? Self.bytes(params.credentialId), let found = try await passkeys.find(credentialId: id, in: schema) else {
            throw AccountService.rejected(.passkeyEnrollmentNotFound)
        }
        let stored = found.stored
        return .init(
            localId: found.localId,
            credential: PasskeyCredential(
                credentialId: Base64URL.encode(stored.credentialId), publicKey: Base64URL.encode(stored.publicKey),
                algorithm: Int(stored.algorithm), signCount: stored.signCount, name: stored.name,
                aaguid: stored.aaguid.isEmpty ? nil : Base64URL.encode(stored.aaguid), backupEligible: stored.backupEligible,
                backedUp: stored.backedUp
            )
        )
    }

    func recordUse(_ params: RecordPasskeyUse.Params) async throws -> RecordPasskeyUse.Result {
        let schema = try await accounts.activeSchema(projectId: params.projectId, tenantId: params.tenantId)
        switch try await passkeys.recordUse(
            credentialId: try Self.bytes(params.credentialId), from: params.previousSignCount, to: params.signCount, in: schema
        ) {
        case .recorded: return RPCEmpty()
        case .moved: throw AccountService.rejected(.invalidAuthenticatorResponse)
        case .gone: throw AccountService.rejected(.passkeyEnrollmentNotFound)
        }
    }

    func remove(_ params: RemovePasskeys.Params) async throws -> RemovePasskeys.Result {
        let schema = try await accounts.activeSchema(projectId: params.projectId, tenantId: params.tenantId)
        guard params.credentialIds.count <= 100 else { throw AccountService.rejected(.invalidArgument, detail: "Too many passkeys.") }
        let ids = params.credentialIds.compactMap { try? Self.bytes($0) }
        let removed = try await passkeys.remove(credentialIds: ids, localId: params.localId, in: schema)
        return .init(removed: removed.map { Base64URL.encode($0) })
    }

    func list(_ params: ListPasskeys.Params) async throws -> ListPasskeys.Result {
        let schema = try await accounts.activeSchema(projectId: params.projectId, tenantId: params.tenantId)
        guard params.localIds.count <= 1000 else { throw AccountService.rejected(.invalidArgument, detail: "Too many accounts.") }
        let rows = try await passkeys.list(localIds: params.localIds, in: schema)
        return .init(
            passkeys: rows.map { PasskeyEntry(localId: $0.localId, credentialId: Base64URL.encode($0.credentialId), name: $0.name) }
        )
    }
}
