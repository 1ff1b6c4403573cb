import Contracts
import Crypto
import Foundation

/// An MFA pending credential that carries its own facts (whose sign-in, by which first factor,
/// until when), sealed with AES-256-GCM so that only the services holding the seal key can read
/// them and nobody can change them. session-token seals them when it hands a credential out; the
/// gateway opens them to finish a sign-in without asking session-token first (issue 26: one hop
/// fewer on the hottest flow). Opening proves the facts, not that the credential is unused:
/// session-token still stores its hash and uses it up in the commit that starts the session.
///
/// The text keeps the `<scope>.<secret>` form of every scoped token (the scope routes it to its
/// tenant): the secret is base64url of `1 | key id (4 bytes) | nonce | ciphertext | tag`, and the
/// scope is bound in as associated data, so a credential moved to another project or tenant does
/// not open.
public struct SealedPendingCredential: Sendable, Hashable {
    public var projectId: String
    public var tenantId: String?
    public var localId: String
    public var signInProvider: String
    /// Seconds since the epoch.
    public var expiresAt: Int64

    public init(projectId: String, tenantId: String?, localId: String, signInProvider: String, expiresAt: Int64) {
        self.projectId = projectId
        self.tenantId = tenantId
        self.localId = localId
        self.signInProvider = signInProvider
        self.expiresAt = expiresAt
    }

    static let version: UInt8 = 1

    public func seal(with key: PendingCredentialKey) throws -> String {
        let scope = Self.scope(projectId: projectId, tenantId: tenantId)
        var plain = Data()
        withUnsafeBytes(of: expiresAt.bigEndian) { plain.append(contentsOf: $0) }
        let provider = Data(signInProvider.utf8)
        guard provider.count < 256 else { throw PendingCredentialKey.Unsealable() }
        plain.append(UInt8(provider.count))
        plain.append(provider)
        plain.append(Data(localId.utf8))
        let box = try AES.GCM.seal(plain, using: key.key, authenticating: Data(scope.utf8))
        var secret = Data([Self.version])
        secret.append(key.id)
        secret.append(box.combined!)
        return Base64URL.encode(Data(scope.utf8)) + "." + Base64URL.encode(secret)
    }

    /// The facts of a credential sealed with one of `keys`; `nil` when the text is not a sealed
    /// credential, was sealed with another key, or was altered. Expiry is the caller's to check.
    public static func open(_ text: String, keys: [PendingCredentialKey]) -> SealedPendingCredential? {
        guard text.utf8.count <= 512 else { return nil }
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 2, let scopeBytes = Base64URL.decode(String(parts[0])),
            let scope = String(data: scopeBytes, encoding: .utf8), let secret = Base64URL.decode(String(parts[1])),
            secret.count > 5 + 12 + 16 + 9, secret.first == version
        else { return nil }
        let keyID = secret.dropFirst().prefix(4)
        guard let key = keys.first(where: { $0.id == keyID }),
            let box = try? AES.GCM.SealedBox(combined: secret.dropFirst(5)),
            let plain = try? AES.GCM.open(box, using: key.key, authenticating: scopeBytes)
        else { return nil }
        let bytes = [UInt8](plain)
        guard bytes.count >= 9 else { return nil }
        let expiresAt = bytes[0..<8].reduce(Int64(0)) { $0 << 8 | Int64($1) }
        let providerLength = Int(bytes[8])
        guard bytes.count >= 9 + providerLength else { return nil }
        let provider = String(decoding: bytes[9..<(9 + providerLength)], as: UTF8.self)
        let localId = String(decoding: bytes[(9 + providerLength)...], as: UTF8.self)
        let pieces = scope.split(separator: "/", omittingEmptySubsequences: false).map(String.init)
        guard (1...2).contains(pieces.count), !localId.isEmpty else { return nil }
        return SealedPendingCredential(
            projectId: pieces[0], tenantId: pieces.count == 2 ? pieces[1] : nil, localId: localId, signInProvider: provider,
            expiresAt: expiresAt
        )
    }

    /// The key id a sealed credential names, to tell "sealed with a key I do not have yet" (fetch
    /// the current key) from "not a sealed credential at all".
    public static func keyID(of text: String) -> Data? {
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 2, let secret = Base64URL.decode(String(parts[1])), secret.count > 5, secret.first == version
        else { return nil }
        return Data(secret.dropFirst().prefix(4))
    }

    static func scope(projectId: String, tenantId: String?) -> String {
        tenantId.map { "\(projectId)/\($0)" } ?? projectId
    }
}

/// The key pending credentials are sealed with: derived from session-token's master key (so it
/// rotates with it and needs no configuration of its own), handed to the gateway over mutual TLS
/// (`pendingCredential.sealKey`). Its id is the first four bytes of SHA-256 of the key.
public struct PendingCredentialKey: Sendable {
    public let id: Data
    let key: SymmetricKey

    public init(masterKey: SymmetricKey) {
        self.init(
            key: HKDF<SHA256>.deriveKey(
                inputKeyMaterial: masterKey, info: Data("mfa-backend pending credential seal v1".utf8), outputByteCount: 32
            )
        )
    }

    /// A key as `base64` hands it over; `nil` unless it is 32 bytes.
    public init?(base64: String) {
        guard let bytes = Data(base64Encoded: base64), bytes.count == 32 else { return nil }
        self.init(key: SymmetricKey(data: bytes))
    }

    private init(key: SymmetricKey) {
        self.key = key
        id = Data(SHA256.hash(data: key.withUnsafeBytes { Data($0) }).prefix(4))
    }

    public var base64: String { key.withUnsafeBytes { Data($0).base64EncodedString() } }


    struct Unsealable: Error {}
}
