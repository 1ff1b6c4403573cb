import AuthVocabulary
import Contracts
import Foundation
import IdentityToolkit
import JSONRPC
import _CryptoExtras

/// Checks custom tokens for `signInWithCustomToken` (contract §2.7), in this order: the token's
/// form, its audience, its signature, its lifetime, its signer's project, its tenant, its user id,
/// its claims.
struct CustomTokenVerifier: Sendable {
    /// Service-account keys by `client_email`.
    let keys: [String: ServiceAccountKey]
    /// Development mode: accept the Admin SDKs' emulator tokens (`alg: none`) and plain JSON claims.
    let acceptUnsigned: Bool

    static let audience = "https://identitytoolkit.googleapis.com/google.identity.identitytoolkit.v1.IdentityToolkit"
    /// Firebase custom tokens live at most an hour.
    static let maximumLifetime: Int64 = 3600
    /// Clock skew tolerated between the token's signer and us.
    static let leeway: Int64 = 300

    init(keys: [ServiceAccountKey], acceptUnsigned: Bool) {
        self.keys = Dictionary(keys.map { ($0.clientEmail, $0) }, uniquingKeysWith: { first, _ in first })
        self.acceptUnsigned = acceptUnsigned
    }

    func verify(_ params: VerifyCustomToken.Params, now: Date = Date()) throws -> VerifyCustomToken.Result {
        let (payload, signer) = try payload(of: params.token, now: EpochSeconds(now))
        // A key signs for its own project only: another project's service account is refused.
        if let signer, signer.projectId != params.projectId {
            throw Self.rejected(.credentialMismatch, detail: "The custom token corresponds to a different audience.")
        }
        let tokenTenant = payload["tenant_id"]?.stringValue
        // Decision 17: a token opens accounts only where its signer meant it to. One without
        // `tenant_id` is for the project alone; a request naming no tenant takes the token's.
        if let requested = params.tenantId, requested != tokenTenant {
            throw Self.rejected(.tenantIDMismatch)
        }
        guard let uid = (payload["uid"] ?? payload["user_id"])?.stringValue, !uid.isEmpty else {
            throw Self.rejected(.missingIdentifier)
        }
        guard uid.utf8.count <= 128 else { throw Self.rejected(.invalidIdentifier, detail: "uid must be at most 128 characters") }
        var claims: [String: JSONValue]?
        if let raw = payload["claims"], raw != .null {
            guard case .object(let members) = raw, let data = try? JSONCoding.encode(raw) else {
                throw Self.rejected(.invalidClaims)
            }
            if let reserved = members.keys.sorted().first(where: ReservedClaims.names.contains) {
                throw Self.rejected(.forbiddenClaim, detail: reserved)
            }
            guard data.count <= ReservedClaims.maximumBytes else { throw Self.rejected(.claimsTooLarge) }
            claims = members.isEmpty ? nil : members
        }
        return .init(localId: uid, tenantId: params.tenantId ?? tokenTenant, claims: claims)
    }

    /// The checked payload (form, audience, signature, lifetime) and the key that signed it (`nil`
    /// for the emulator's unsigned tokens, development mode only).
    private func payload(of token: String, now: EpochSeconds) throws -> ([String: JSONValue], ServiceAccountKey?) {
        guard token.utf8.count <= 16384 else { throw Self.malformed }
        if token.hasPrefix("{") {
            // The emulator's convenience: a JSON object of claims instead of a JWT.
            guard acceptUnsigned else { throw Self.malformed }
            guard case .object(let object)? = try? JSONCoding.parse(Array(token.utf8)) else {
                throw Self.rejected(
                    .invalidCustomToken, detail: "((Auth Emulator only accepts strict JSON or JWTs as fake custom tokens.))")
            }
            return (object, nil)
        }
        let segments = token.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        guard segments.count == 3, let headerData = Base64URL.decode(segments[0]), let payloadData = Base64URL.decode(segments[1]),
            case .object(let header)? = try? JSONCoding.parse(Array(headerData)),
            case .object(let payload)? = try? JSONCoding.parse(Array(payloadData))
        else { throw Self.malformed }

        let audience = payload["aud"]?.stringValue ?? ""
        guard audience == Self.audience else {
            throw Self.rejected(
                .invalidCustomToken,
                detail:
                    "((Invalid aud (audience): \(audience) Note: Firebase ID Tokens / third-party tokens cannot be used with signInWithCustomToken.))"
            )
        }
        var signer: ServiceAccountKey?
        switch header["alg"]?.stringValue {
        case "RS256":
            guard let issuer = payload["iss"]?.stringValue, let key = keys[issuer], payload["sub"]?.stringValue == issuer,
                let signature = Base64URL.decode(segments[2]),
                key.publicKey.isValidSignature(
                    _RSA.Signing.RSASignature(rawRepresentation: signature), for: Data((segments[0] + "." + segments[1]).utf8),
                    padding: .insecurePKCS1v1_5
                )
            else { throw Self.rejected(.invalidCustomToken, detail: "((The custom token's signature could not be verified.))") }
            signer = key
        case "none" where acceptUnsigned && segments[2].isEmpty:
            break
        default:
            throw Self.rejected(.invalidCustomToken, detail: "((The custom token's signature could not be verified.))")
        }
        guard let issuedAt = Self.seconds(payload["iat"]), let expiresAt = Self.seconds(payload["exp"]) else {
            throw Self.malformed
        }
        guard issuedAt <= now + Self.leeway, expiresAt > now, expiresAt - issuedAt <= Self.maximumLifetime else {
            throw Self.rejected(.invalidCustomToken, detail: "((The custom token has expired or is not yet valid.))")
        }
        return (payload, signer)
    }

    static func seconds(_ value: JSONValue?) -> EpochSeconds? {
        switch value {
        case .int(let seconds)?: EpochSeconds(seconds)
        case .double(let seconds)? where seconds.isFinite && abs(seconds) < 1e15: EpochSeconds(Int64(seconds))
        default: nil
        }
    }

    static let malformed = rejected(.invalidCustomToken, detail: "Invalid assertion format")

    static func rejected(_ code: IdentityToolkitError.Code, detail: String? = nil) -> RPCError {
        RPCError(code: .invalidCustomToken, business: IdentityToolkitError(code, detail: detail))
    }
}
