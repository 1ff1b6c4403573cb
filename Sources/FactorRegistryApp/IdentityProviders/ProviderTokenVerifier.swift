import AuthVocabulary
import Contracts
import Crypto
import Foundation
import IdentityToolkit
import JSONRPC
import JWTKit
import ServiceKit

/// Checks an identity provider's ID token as OpenID Connect Core §3.1.3.7 asks: signed by a key
/// the issuer publishes (jwt-kit, with the JWKS ``OpenIDProviderDirectory`` keeps), from the
/// configured issuer, for one of the configured client ids, unexpired, and carrying the nonce the
/// sign-in expects. What it says about the user becomes a ``ProviderProfile``.
struct ProviderTokenVerifier: Sendable {
    let directory: OpenIDProviderDirectory

    /// Clock skew tolerated between the provider and us.
    static let leeway: Int64 = 60
    static let maximumTokenBytes = 16 * 1024

    /// What the token's `nonce` claim must be.
    enum ExpectedNonce {
        /// A native sign-in: the token may carry none; if it does, the client sent the raw nonce
        /// (`nonce=` in `postBody`) whose SHA-256, in lowercase hex, the app gave the provider.
        case hashOf(String?)
        /// A web sign-in this server started: exactly the nonce it put in the authorization URL.
        case exactly(String)
    }

    struct Verified {
        let profile: ProviderProfile
        /// The token's nonce claim, if any (used once: ``FederatedIdentityRepository/use(nonce:issuer:expiresAt:in:)``).
        let nonce: String?
        let issuer: String
        let expiresAt: EpochSeconds
        /// Google's `hd`: the Workspace domain that hosts the user's address (``EmailTrust``).
        var hostedDomain: String? = nil
    }

    func verify(
        _ token: String, providerId: String, issuer: String, acceptedIssuers: Set<String>, audiences: Set<String>,
        nonce expected: ExpectedNonce, now: EpochSeconds = .now
    ) async throws -> Verified {
        guard token.utf8.count <= Self.maximumTokenBytes, token.split(separator: ".", omittingEmptySubsequences: false).count == 3
        else { throw Self.invalid("Unable to parse the id_token.") }
        let claims = try await verifiedClaims(token, issuer: issuer)
        guard let tokenIssuer = claims["iss"]?.stringValue, acceptedIssuers.contains(tokenIssuer) else {
            throw Self.invalid("The id_token was not issued by \(issuer).")
        }
        let audience: [String] =
            switch claims["aud"] {
            case .string(let one)?: [one]
            case .array(let many)?: many.compactMap(\.stringValue)
            default: []
            }
        guard !audience.isEmpty, audience.contains(where: audiences.contains) else {
            throw Self.invalid(
                "The audience in ID Token [\(audience.joined(separator: ", ").prefix(256))] does not match the expected audience."
            )
        }
        // OpenID Connect Core §3.1.3.7, items 4 and 5: a token naming an authorized party (`azp`) was
        // issued to that party, which must be one of ours, and one with several audiences must name
        // it; otherwise a token issued to another app that lists us too signs in here (issue 56,
        // F-13). Google's Android sign-in is the documented exception: its tokens name the web
        // client as `aud` and the Android app's client as `azp`.
        if providerId != DefaultSupportedProviders.google {
            if let party = claims["azp"] {
                guard let party = party.stringValue, audiences.contains(party) else {
                    throw Self.invalid("The id_token was issued to another party (azp).")
                }
            } else if audience.count > 1 {
                throw Self.invalid("The id_token names several audiences but no authorized party (azp).")
            }
        }
        guard let expiresAt = Self.seconds(claims["exp"]), expiresAt + Self.leeway > now else {
            throw Self.invalid("The id_token has expired.")
        }
        if let issuedAt = Self.seconds(claims["iat"]), issuedAt > now + Self.leeway {
            throw Self.invalid("The id_token is not valid yet.")
        }
        guard let subject = claims["sub"]?.stringValue, !subject.isEmpty, subject.utf8.count <= 255 else {
            throw Self.invalid("Invalid Idp Response: id_token missing required fields.")
        }
        let nonce = claims["nonce"]?.stringValue
        switch expected {
        case .exactly(let wanted):
            guard let nonce, Self.equal(nonce, wanted) else {
                throw IdentityToolkitError(.missingOrInvalidNonce, detail: "The nonce does not match the sign-in's.")
            }
        case .hashOf(let raw):
            if let nonce {
                guard let raw, !raw.isEmpty else {
                    throw IdentityToolkitError(.missingOrInvalidNonce, detail: "Nonce is missing in the request.")
                }
                let hashed = SHA256.hash(data: Data(raw.utf8)).map { String(format: "%02x", $0) }.joined()
                guard Self.equal(nonce, hashed) else {
                    throw IdentityToolkitError(.missingOrInvalidNonce, detail: "The nonce in the request does not match the id_token's.")
                }
            } else if raw?.isEmpty == false {
                throw IdentityToolkitError(.missingOrInvalidNonce, detail: "The id_token carries no nonce.")
            }
        }
        return Verified(
            profile: Self.profile(claims, providerId: providerId, token: token), nonce: nonce, issuer: issuer, expiresAt: expiresAt,
            hostedDomain: claims["hd"]?.stringValue
        )
    }

    /// The claims of a token whose signature checks out against the issuer's keys; the key set is
    /// fetched again once when the token names a key it lacks (a rotation).
    private func verifiedClaims(_ token: String, issuer: String) async throws -> [String: JSONValue] {
        let provider: OpenIDProviderDirectory.Provider
        do {
            provider = try await directory.provider(issuer: issuer)
        } catch {
            throw Self.invalid("The identity provider's keys could not be fetched.")
        }
        do {
            return try await provider.keys.verify(token, as: ProviderIDToken.self).claims
        } catch {
            guard let again = try? await directory.refreshed(issuer: issuer),
                let claims = try? await again.keys.verify(token, as: ProviderIDToken.self).claims
            else { throw Self.invalid("The id_token's signature could not be verified.") }
            return claims
        }
    }

    /// What Identity Toolkit answers about the provider's user: Google's `federatedId` is its
    /// issuer URL and subject, everyone else's the subject.
    static func profile(_ claims: [String: JSONValue], providerId: String, token: String) -> ProviderProfile {
        let rawUserInfo = (try? JSONCoding.encode(JSONValue.object(claims))).map { String(decoding: $0, as: UTF8.self) }
        let verified: Bool =
            switch claims["email_verified"] {
            case .bool(let flag)?: flag
            // Apple sends it as a string.
            case .string(let text)?: text == "true"
            default: false
            }
        let email = claims["email"]?.stringValue.flatMap { EmailAddress.isValid($0) ? $0 : nil }
        return ProviderProfile(
            providerId: providerId, rawId: claims["sub"]?.stringValue ?? "", email: email, emailVerified: email != nil && verified,
            displayName: claims["name"]?.stringValue.map { String($0.prefix(256)) },
            firstName: claims["given_name"]?.stringValue.map { String($0.prefix(256)) },
            lastName: claims["family_name"]?.stringValue.map { String($0.prefix(256)) },
            photoUrl: claims["picture"]?.stringValue.flatMap { $0.utf8.count <= 2048 && AccountService.isWebAddress($0) ? $0 : nil },
            rawUserInfo: rawUserInfo,
            oauthIdToken: token
        )
    }

    static func equal(_ left: String, _ right: String) -> Bool {
        AdminAuthenticator.constantTimeEquals(Array(left.utf8), Array(right.utf8))
    }

    static func seconds(_ value: JSONValue?) -> EpochSeconds? {
        switch value {
        case .int(let seconds)?: EpochSeconds(seconds)
        case .double(let seconds)? where seconds.isFinite && abs(seconds) < 1e15: EpochSeconds(Int64(seconds))
        default: nil
        }
    }

    static func invalid(_ detail: String) -> IdentityToolkitError {
        IdentityToolkitError(.invalidIdpResponse, detail: detail)
    }
}

/// An ID token's claims as jwt-kit hands them over once the signature checked out; the claim
/// checks are ``ProviderTokenVerifier``'s, which tell the client which one failed.
struct ProviderIDToken: JWTPayload {
    let claims: [String: JSONValue]

    init(from decoder: any Decoder) throws {
        claims = try [String: JSONValue](from: decoder)
    }

    func encode(to encoder: any Encoder) throws {
        try claims.encode(to: encoder)
    }

    func verify(using algorithm: some JWTAlgorithm) async throws {}
}
