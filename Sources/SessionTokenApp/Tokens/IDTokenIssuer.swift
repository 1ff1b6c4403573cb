import AuthVocabulary
import Contracts
import Foundation
import JWTKit
import Synchronization

/// Signs ID tokens with the keyring's current signer (RS256, `kid` in the header).
///
/// Not an actor: signing is the costliest step of a sign-in and runs on the caller's thread, so
/// several sign at once on every core. Only the verification keys are shared state.
final class IDTokenIssuer: Sendable {
    let keyring: SigningKeyring
    /// `iss` is `<issuerBase><projectId>`; Firebase's is `https://securetoken.google.com/`.
    let issuerBase: String
    /// ID token lifetime in seconds (the contract's 3600).
    let lifetime: Int64
    /// Public keys of the published set, rebuilt when the set changes.
    private let verifier = Mutex<(kids: Set<String>, collection: JWTKeyCollection)?>(nil)
    /// jwt-kit's encoding of the claims (the same JSON its own signing path produces).
    private let serializer = DefaultJWTSerializer()

    init(keyring: SigningKeyring, issuerBase: String, lifetime: Int64 = 3600) {
        self.keyring = keyring
        self.issuerBase = issuerBase
        self.lifetime = lifetime
    }

    func claims(for params: IssueSession.Params, now: Date = Date()) -> IDTokenClaims {
        let issuedAt = EpochSeconds(now)
        var user = params.user
        if let session = params.sessionClaims, !session.isEmpty {
            user.customClaims = (user.customClaims ?? [:]).merging(session) { _, sessionValue in sessionValue }
        }
        return IDTokenClaims(
            issuer: issuerBase + params.projectId, audience: params.projectId, subject: params.localId,
            issuedAt: issuedAt, expiresAt: issuedAt + lifetime, authTime: params.authTime, user: user,
            signInProvider: params.signInProvider, signInSecondFactor: params.secondFactor,
            secondFactorIdentifier: params.secondFactorIdentifier, tenant: params.tenantId,
            secondFactorAuthTime: params.secondFactorAuthTime, enrollmentOnlyUntil: params.enrollmentOnlyUntil,
            firstFactorIdentifier: params.firstFactorIdentifier
        )
    }

    /// The compact JWS: header and claims in base64url, then the signature over both. Assembled here
    /// because jwt-kit signs only with its own RSA implementation; it still encodes the claims and
    /// verifies every token we issue.
    func sign(_ claims: IDTokenClaims) throws -> String {
        try sign(payload: try serializer.serialize(claims, header: JWTHeader()))
    }

    /// The compact JWS of an already encoded payload (base64url of the claims' JSON), under the
    /// current signing key: what a blocking function's event token shares with ID tokens.
    func sign(payload: some Collection<UInt8>) throws -> String {
        guard let key = keyring.signer() else { throw NoSigningKey() }
        let header = Base64URL.encode(#"{"alg":"RS256","kid":"\#(key.kid)","typ":"JWT"}"#.utf8)
        var input = Array(header.utf8)
        input.append(UInt8(ascii: "."))
        input.append(contentsOf: payload)
        let signature = try key.signer.sign(input)
        return String(decoding: input, as: UTF8.self) + "." + Base64URL.encode(signature)
    }
}

extension IDTokenIssuer {
    enum VerificationFailure: Error { case invalid, expired }

    /// Checks the signature against the published keys (the header must name one with `kid` and
    /// `alg: RS256`), then `exp`, `iss` and `aud`.
    func verify(_ token: String, now: Date = Date()) async throws -> IDTokenClaims {
        guard token.utf8.count <= 8192, let header = Self.header(of: token), header["alg"] == "RS256",
            header["kid"] != nil
        else { throw VerificationFailure.invalid }
        let collection = try await verificationKeys(now: now)
        let claims: IDTokenClaims
        do {
            claims = try await collection.verify(token, as: IDTokenClaims.self)
        } catch {
            throw VerificationFailure.invalid
        }
        guard claims.issuer == issuerBase + claims.audience, !claims.subject.isEmpty else { throw VerificationFailure.invalid }
        guard EpochSeconds(now) < claims.expiresAt else { throw VerificationFailure.expired }
        return claims
    }

    private func verificationKeys(now: Date) async throws -> JWTKeyCollection {
        let published = keyring.published(at: now)
        let kids = Set(published.map(\.kid))
        if let current = verifier.withLock({ $0 }), current.kids == kids { return current.collection }
        let collection = JWTKeyCollection()
        for key in published {
            await collection.add(
                rsa: try Insecure.RSA.PublicKey(backing: key.privateKey.publicKey), digestAlgorithm: .sha256,
                kid: JWKIdentifier(string: key.kid)
            )
        }
        verifier.withLock { $0 = (kids, collection) }
        return collection
    }

    /// The JOSE header's string members, or `nil` when the token is not three base64url segments.
    static func header(of token: String) -> [String: String]? {
        let segments = token.split(separator: ".", omittingEmptySubsequences: false)
        guard segments.count == 3, let data = Base64URL.decode(String(segments[0])),
            let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any]
        else { return nil }
        return object.compactMapValues { $0 as? String }
    }
}

struct NoSigningKey: Error, CustomStringConvertible {
    var description: String { "no signing key loaded" }
}
