import Contracts
import Crypto
import Foundation
import Logging
import PostgresNIO
import ServiceKit
import TenantStore

/// `passwords.export`: a project's passwords in Identity Platform's form, so that its users can
/// leave for Firebase, Identity Platform or another project of ours with their passwords. This
/// server keeps Firebase scrypt's keystream (``FirebaseScrypt``); a hash handed out is that
/// keystream ⊕ the project's signer key, a random 64-byte key made on first use and kept sealed in
/// `control.password_signer_keys`. The key and the hashes go to admins only (the gateway asks for
/// them on admin routes), and the key is never in a log.
struct PasswordExport: Sendable {
    let keys: PasswordSignerKeyRepository
    let accounts: AccountService

    /// Sealed under this associated data (with the project id), so a key copied to another project's row does not open.
    static func keyID(_ projectId: String) -> String { "password-signer-key:\(projectId)" }

    func run(_ params: ExportPasswordHashes.Params) async throws -> ExportPasswordHashes.Result {
        let schema = try await accounts.activeSchema(projectId: params.projectId, tenantId: params.tenantId)
        let hasher = accounts.hashers.hasher(for: params.projectId)
        guard let memoryCost = hasher.firebaseMemoryCost else { return .init(hashConfig: nil, hashes: []) }
        let signerKey = try await signerKey(for: params.projectId)
        let config = PasswordHashConfig(
            algorithm: "SCRYPT", signerKey: signerKey.base64EncodedString(),
            saltSeparator: FirebaseScrypt.separator.base64EncodedString(), rounds: hasher.blockSize, memoryCost: memoryCost
        )
        var hashes: [ExportedPasswordHash] = []
        for (localId, stored) in try await accounts.accounts.passwordHashes(in: schema, localIds: params.localIds) {
            guard hasher.isCurrent(stored), let parts = FirebaseScrypt.parts(stored), parts.keystream.count == signerKey.count else {
                continue
            }
            let hash = Data(zip(parts.keystream, signerKey).map { $0 ^ $1 })
            let salt = parts.salt.dropLast(FirebaseScrypt.separator.count)
            hashes.append(.init(localId: localId, passwordHash: Self.urlSafe(hash), salt: Self.urlSafe(Data(salt))))
        }
        return .init(hashConfig: config, hashes: hashes)
    }

    /// The project's signer key, made the first time (two instances racing keep the first one stored).
    private func signerKey(for projectId: String) async throws -> Data {
        let sealer = accounts.hashers.sealer
        if let sealed = try await keys.sealedKey(of: projectId) { return try sealer.open(sealed, keyID: Self.keyID(projectId)) }
        let fresh = try sealer.seal(
            Data((0..<FirebaseScrypt.keystreamLength).map { _ in UInt8.random(in: 0...255) }), keyID: Self.keyID(projectId)
        )
        try await keys.insertIfAbsent(fresh, for: projectId)
        guard let sealed = try await keys.sealedKey(of: projectId) else { throw AccountStoreInconsistent() }
        return try sealer.open(sealed, keyID: Self.keyID(projectId))
    }

    static func urlSafe(_ data: Data) -> String {
        data.base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
    }
}
