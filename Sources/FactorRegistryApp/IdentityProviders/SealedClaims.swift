import AuthVocabulary
import Contracts
import Foundation
import ServiceKit

/// Facts factor-registry hands to a client and must get back unchanged: a web sign-in's `state`
/// (``AuthorizationState``) and a `pendingToken` (``PendingIdentity``). Sealed under the master key
/// (AES-GCM: nobody can read or alter them), base64url, each kind under its own associated data so
/// one cannot pass for the other; each carries its own expiry.
struct SealedClaims<Claims: Codable>: Sendable {
    let sealer: SecretSealer
    let purpose: String

    func seal(_ claims: Claims) throws -> String {
        Base64URL.encode(try sealer.seal(try JSONEncoder().encode(claims), keyID: purpose))
    }

    /// `nil` for anything that is not a value this server sealed for `purpose`.
    func open(_ text: String) -> Claims? {
        guard text.utf8.count <= 8192, let sealed = Base64URL.decode(text), let opened = try? sealer.open(sealed, keyID: purpose)
        else { return nil }
        return try? JSONDecoder().decode(Claims.self, from: opened)
    }
}

/// What a web sign-in's `state` carries from `createAuthUri` to `signInWithIdp`.
struct AuthorizationState: Codable, Sendable {
    var projectId: String
    var tenantId: String?
    var providerId: String
    /// SHA-256 of the `sessionId` the browser keeps: `signInWithIdp` must present the same one, so a
    /// state (or code) lured from another browser's session does not sign this one in.
    var sessionHash: String
    var nonce: String
    /// PKCE's verifier (RFC 7636), sent with the code.
    var codeVerifier: String
    var redirectUri: String
    var context: String?
    var expiresAt: EpochSeconds
}

/// What a `pendingToken` carries: a provider user verified within the last hour, and the account
/// state it was minted for (issue 56, F-11): it is used once (``id``), and not after the account it
/// names lost the provider user (``linkedTo``): an unlink is not undone by a token from before it.
struct PendingIdentity: Codable, Sendable {
    var projectId: String
    var tenantId: String?
    var profile: ProviderProfile
    var expiresAt: EpochSeconds
    /// Random; a used token's id is kept until it expires.
    var id: String
    /// The account the provider user was linked to when the token was made, if any.
    var linkedTo: String?
}
