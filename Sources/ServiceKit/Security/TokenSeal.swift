import AuthVocabulary
import Contracts
import Crypto
import Foundation

/// Tokens that carry their own facts, sealed with AES-256-GCM so that only the services holding the
/// seal key can read them and nobody can change them (the gateway reads them without a
/// call). Used for MFA pending credentials (`SealedPendingCredential`) and refresh tokens
/// (`SealedRefreshToken`). Opening proves the facts, never that the token is still usable: the
/// owner (session-token) stores each token's hash and decides that where it is used.
///
/// The text keeps the `<scope>.<secret>` form of every scoped token (the scope routes it to its
/// tenant): the secret is base64url of `1 | key id (4 bytes) | nonce | ciphertext | tag`. The token's
/// kind and scope are bound in as associated data, so a pending credential does not open as a
/// refresh token, nor either in another project or tenant.
enum TokenSeal {
    static let version: UInt8 = 1

    static func seal(
        _ payload: Data, kind: String, projectId: String, tenantId: String?, key: TokenSealKey, nonce: AES.GCM.Nonce? = nil
    ) throws -> String {
        let scope = tenantId.map { "\(projectId)/\($0)" } ?? projectId
        let box = try AES.GCM.seal(payload, using: key.key, nonce: nonce ?? AES.GCM.Nonce(), authenticating: Data("\(kind):\(scope)".utf8))
        var secret = Data([version])
        secret.append(key.id)
        secret.append(box.combined!)
        return Base64URL.encode(Data(scope.utf8)) + "." + Base64URL.encode(secret)
    }

    struct Opened {
        let projectId: String
        let tenantId: String?
        let payload: [UInt8]
    }

    static func open(_ text: String, kind: String, keys: [TokenSealKey]) -> Opened? {
        guard text.utf8.count <= 512 else { return nil }
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 2, let scopeBytes = Base64URL.decode(String(parts[0])),
            let scope = String(data: scopeBytes, encoding: .utf8), let secret = Base64URL.decode(String(parts[1])),
            secret.count > 5 + 12 + 16, secret.first == version
        else { return nil }
        let keyID = secret.dropFirst().prefix(4)
        guard let key = keys.first(where: { $0.id == keyID }),
            let box = try? AES.GCM.SealedBox(combined: secret.dropFirst(5)),
            let plain = try? AES.GCM.open(box, using: key.key, authenticating: Data("\(kind):\(scope)".utf8))
        else { return nil }
        let pieces = scope.split(separator: "/", omittingEmptySubsequences: false).map(String.init)
        guard (1...2).contains(pieces.count) else { return nil }
        return Opened(projectId: pieces[0], tenantId: pieces.count == 2 ? pieces[1] : nil, payload: [UInt8](plain))
    }

    /// The key id a sealed token names, to tell "sealed with a key I do not hold yet" (fetch the
    /// current key) from "not a sealed token at all".
    public static func keyID(of text: String) -> Data? {
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 2, let secret = Base64URL.decode(String(parts[1])), secret.count > 5, secret.first == version
        else { return nil }
        return Data(secret.dropFirst().prefix(4))
    }
}

/// An MFA pending credential's facts: whose sign-in, by which first factor, until when. session-token
/// seals them when it hands a credential out; the gateway opens them to finish a sign-in without
/// asking session-token first. Session-token still stores the credential's hash and uses it up in
/// the commit that starts the session.
public struct SealedPendingCredential: Sendable, Hashable {
    public var projectId: String
    public var tenantId: String?
    public var localId: String
    public var signInProvider: SignInProvider
    public var expiresAt: EpochSeconds

    public init(projectId: String, tenantId: String?, localId: String, signInProvider: SignInProvider, expiresAt: EpochSeconds) {
        self.projectId = projectId
        self.tenantId = tenantId
        self.localId = localId
        self.signInProvider = signInProvider
        self.expiresAt = expiresAt
    }

    static let kind = "mfa-pending-credential"

    /// `expiresAt` (8 bytes), the provider's length (1 byte), the provider, the user's id.
    public func seal(with key: TokenSealKey) throws -> String {
        var plain = Data()
        withUnsafeBytes(of: expiresAt.rawValue.bigEndian) { plain.append(contentsOf: $0) }
        let provider = Data(signInProvider.rawValue.utf8)
        guard provider.count < 256 else { throw TokenSealKey.Unsealable() }
        plain.append(UInt8(provider.count))
        plain.append(provider)
        plain.append(Data(localId.utf8))
        return try TokenSeal.seal(plain, kind: Self.kind, projectId: projectId, tenantId: tenantId, key: key)
    }

    /// The facts of a credential sealed with one of `keys`; `nil` when the text is not a sealed
    /// credential, was sealed with another key, or was altered. Expiry is the caller's to check.
    public static func open(_ text: String, keys: [TokenSealKey]) -> SealedPendingCredential? {
        guard let opened = TokenSeal.open(text, kind: kind, keys: keys) else { return nil }
        let bytes = opened.payload
        guard bytes.count >= 9 else { return nil }
        let expiresAt = EpochSeconds(bytes[0..<8].reduce(Int64(0)) { $0 << 8 | Int64($1) })
        let providerLength = Int(bytes[8])
        guard bytes.count > 9 + providerLength else { return nil }
        return SealedPendingCredential(
            projectId: opened.projectId, tenantId: opened.tenantId,
            localId: String(decoding: bytes[(9 + providerLength)...], as: UTF8.self),
            signInProvider: SignInProvider(rawValue: String(decoding: bytes[9..<(9 + providerLength)], as: UTF8.self)), expiresAt: expiresAt
        )
    }

    public static func keyID(of text: String) -> Data? { TokenSeal.keyID(of: text) }
}

/// A refresh token that names its user: 16 secret bytes and the user's id, sealed. The gateway
/// reads the user from it and fetches the account beside nothing else, so a refresh makes two
/// calls in sequence (the account, then session-token's checked rotation). The token's hash is
/// still what session-token looks up; the 16 bytes keep it unguessable even to a key holder.
public struct SealedRefreshToken: Sendable, Hashable {
    public var projectId: String
    public var tenantId: String?
    public var localId: String

    public init(projectId: String, tenantId: String?, localId: String) {
        self.projectId = projectId
        self.tenantId = tenantId
        self.localId = localId
    }

    static let kind = "refresh-token"

    /// A new token: random bytes and nonce, or, from `derivedFrom` (32 bytes or more, e.g. an HMAC),
    /// the same token every time for the same input (a finalize's retry gets its session back).
    public func seal(with key: TokenSealKey, derivedFrom seed: Data? = nil) throws -> String {
        var secret = Data(count: 16)
        let nonce: AES.GCM.Nonce
        if let seed, seed.count >= 28 {
            secret = Data(seed.prefix(16))
            nonce = try AES.GCM.Nonce(data: seed.dropFirst(16).prefix(12))
        } else {
            var generator = SystemRandomNumberGenerator()
            secret = Data((0..<16).map { _ in UInt8.random(in: 0...255, using: &generator) })
            nonce = AES.GCM.Nonce()
        }
        return try TokenSeal.seal(
            secret + Data(localId.utf8), kind: Self.kind, projectId: projectId, tenantId: tenantId, key: key, nonce: nonce
        )
    }

    public static func open(_ text: String, keys: [TokenSealKey]) -> SealedRefreshToken? {
        guard let opened = TokenSeal.open(text, kind: kind, keys: keys), opened.payload.count > 16 else { return nil }
        return SealedRefreshToken(
            projectId: opened.projectId, tenantId: opened.tenantId, localId: String(decoding: opened.payload.dropFirst(16), as: UTF8.self)
        )
    }
}

/// The key tokens are sealed with: derived from session-token's master key (so it rotates with it
/// and needs no configuration of its own), handed to the gateway over mutual TLS (`tokenSeal.key`).
/// Its id is the first four bytes of SHA-256 of the key.
public struct TokenSealKey: Sendable {
    public let id: Data
    let key: SymmetricKey

    public init(masterKey: SymmetricKey) {
        self.init(
            key: HKDF<SHA256>.deriveKey(
                inputKeyMaterial: masterKey, info: Data("mfa-backend token seal v1".utf8), outputByteCount: 32
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
