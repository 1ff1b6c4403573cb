import Contracts
import Foundation
import JWTKit

/// Signs ID tokens with the keyring's current signer (RS256, `kid` in the header).
actor IDTokenIssuer {
    let keyring: SigningKeyring
    /// `iss` is `<issuerBase><projectId>`; Firebase's is `https://securetoken.google.com/`.
    let issuerBase: String
    /// ID token lifetime in seconds (the contract's 3600).
    let lifetime: Int64
    private var collections: [String: JWTKeyCollection] = [:]

    init(keyring: SigningKeyring, issuerBase: String, lifetime: Int64 = 3600) {
        self.keyring = keyring
        self.issuerBase = issuerBase
        self.lifetime = lifetime
    }

    func claims(for params: IssueSession.Params, now: Date = Date()) -> IDTokenClaims {
        let issuedAt = Int64(now.timeIntervalSince1970)
        return IDTokenClaims(
            issuer: issuerBase + params.projectId, audience: params.projectId, subject: params.localId,
            issuedAt: issuedAt, expiresAt: issuedAt + lifetime, authTime: params.authTime, user: params.user,
            signInProvider: params.signInProvider, signInSecondFactor: params.secondFactor,
            secondFactorIdentifier: params.secondFactorIdentifier, tenant: params.tenantId
        )
    }

    func sign(_ claims: IDTokenClaims) async throws -> String {
        guard let signer = keyring.signer() else { throw NoSigningKey() }
        let collection: JWTKeyCollection
        if let cached = collections[signer.kid] {
            collection = cached
        } else {
            collection = JWTKeyCollection()
            await collection.add(
                rsa: try Insecure.RSA.PrivateKey(backing: signer.privateKey), digestAlgorithm: .sha256,
                kid: JWKIdentifier(string: signer.kid)
            )
            // Keys are few and rotate rarely; drop collections of keys that no longer sign.
            collections = [signer.kid: collection]
        }
        return try await collection.sign(claims, kid: JWKIdentifier(string: signer.kid), header: ["typ": "JWT"])
    }
}

struct NoSigningKey: Error, CustomStringConvertible {
    var description: String { "no signing key loaded" }
}
