import AsyncHTTPClient
import Contracts
import Crypto
import Foundation
import IdentityToolkit
import JSONRPC
import JWTKit
import NIOCore

/// The web sign-in's two calls to a provider (OpenID Connect Core §3.1.2, §3.1.3, with PKCE, RFC
/// 7636): the authorization URL the browser is sent to, and the code's exchange for tokens at the
/// token endpoint, where the client secret goes (Apple's: a short-lived ES256 JWT its key signs).
struct AuthorizationCodeFlow: Sendable {
    let client: HTTPClient

    /// Parameters a caller's `customParameter` may not set: the flow's own.
    static let reserved: Set<String> = [
        "client_id", "response_type", "scope", "redirect_uri", "state", "nonce", "code_challenge", "code_challenge_method",
    ]

    /// Whether the web sign-in trades a code (with the client secret) rather than taking the ID
    /// token from the redirect: an OIDC provider's `responseType`; Google or Apple when a secret
    /// (Apple: its key) is configured.
    static func usesCode(_ config: IdentityProviderConfig) -> Bool {
        switch config.kind {
        case .oidc: config.responseCode == true
        case .defaultSupported: config.clientSecretSet || config.applePrivateKeySet
        }
    }

    static func authorizationURL(
        endpoint: String, config: IdentityProviderConfig, state: String, nonce: String, codeVerifier: String, redirectUri: String,
        scopes: [String], customParameters: [String: String], responseModes: [String] = [], supportedScopes: [String]? = nil
    ) throws -> String {
        guard var url = URLComponents(string: endpoint), url.scheme == "https" else {
            throw IdentityToolkitError(.invalidIdpResponse, detail: "The identity provider names no https authorization endpoint.")
        }
        let code = usesCode(config)
        let apple = config.providerId == DefaultSupportedProviders.apple
        // Apple knows `name`, not `profile`, and sends what those scopes ask for only in a form POST.
        // Of those, what the provider says it knows (when it says).
        var scope = ["openid", "email", apple ? "name" : "profile"].filter { $0 == "openid" || supportedScopes?.contains($0) != false }
        for extra in scopes where !scope.contains(extra) { scope.append(extra) }
        var items = url.queryItems ?? []
        items += [
            URLQueryItem(name: "client_id", value: config.clientId ?? ""),
            URLQueryItem(name: "response_type", value: code ? "code" : "id_token"),
            URLQueryItem(name: "scope", value: scope.joined(separator: " ")),
            URLQueryItem(name: "redirect_uri", value: redirectUri),
            URLQueryItem(name: "state", value: state),
            URLQueryItem(name: "nonce", value: nonce),
        ]
        if code, apple, responseModes.contains("form_post") {
            items.append(URLQueryItem(name: "response_mode", value: "form_post"))
        }
        if code {
            items += [
                URLQueryItem(name: "code_challenge", value: Base64URL.encode(Array(SHA256.hash(data: Data(codeVerifier.utf8))))),
                URLQueryItem(name: "code_challenge_method", value: "S256"),
            ]
        } else {
            // An ID token in the redirect's fragment never reaches a server; the SDK reads it from the page.
            items.append(URLQueryItem(name: "response_mode", value: "fragment"))
        }
        for (name, value) in customParameters.sorted(by: { $0.key < $1.key }) where !reserved.contains(name) {
            items.append(URLQueryItem(name: name, value: value))
        }
        url.queryItems = items
        // `+` is a space in a form but a plus in a query; providers read queries as forms.
        url.percentEncodedQuery = url.percentEncodedQuery?.replacingOccurrences(of: "+", with: "%2B")
        guard let text = url.string else { throw IdentityToolkitError(.invalidContinueURI) }
        return text
    }

    struct Tokens {
        let idToken: String
        let accessToken: String?
        let refreshToken: String?
        let expiresIn: Int?
    }

    /// Trades an authorization code for the user's tokens.
    func exchange(
        code: String, endpoint: String, clientId: String, clientSecret: String, redirectUri: String?, codeVerifier: String?
    ) async throws -> Tokens {
        guard endpoint.hasPrefix("https://") else {
            throw IdentityToolkitError(.invalidIdpResponse, detail: "The identity provider names no https token endpoint.")
        }
        var request = HTTPClientRequest(url: endpoint)
        request.method = .POST
        request.headers.add(name: "content-type", value: "application/x-www-form-urlencoded")
        request.headers.add(name: "accept", value: "application/json")
        // A native app's code (Sign in with Apple on a device) has neither a redirect nor PKCE.
        var fields = [("grant_type", "authorization_code"), ("code", code), ("client_id", clientId), ("client_secret", clientSecret)]
        if let redirectUri { fields.append(("redirect_uri", redirectUri)) }
        if let codeVerifier { fields.append(("code_verifier", codeVerifier)) }
        request.body = .bytes(ByteBuffer(string: fields.map { "\($0)=\(Self.formEncoded($1))" }.joined(separator: "&")))
        let answer: JSONValue?
        let status: UInt
        do {
            let response = try await client.execute(request, timeout: OpenIDProviderDirectory.timeout)
            status = response.status.code
            let body = try await response.body.collect(upTo: OpenIDProviderDirectory.answerLimit)
            answer = try? JSONCoding.parse(Array(body.readableBytesView))
        } catch {
            throw IdentityToolkitError(.invalidIdpResponse, detail: "The identity provider's token endpoint could not be reached.")
        }
        guard status == 200, let idToken = answer?["id_token"]?.stringValue else {
            // The provider's own reason (`invalid_grant`: a used or expired code), never the secret.
            let reason = answer?["error"]?.stringValue.map { String($0.prefix(64)) } ?? "HTTP \(status)"
            throw IdentityToolkitError(.invalidIdpResponse, detail: "The identity provider refused the code (\(reason)).")
        }
        let expiresIn: Int? =
            switch answer?["expires_in"] {
            case .int(let seconds)?: Int(clamping: seconds)
            default: nil
            }
        return Tokens(
            idToken: idToken, accessToken: answer?["access_token"]?.stringValue, refreshToken: answer?["refresh_token"]?.stringValue,
            expiresIn: expiresIn
        )
    }

    /// RFC 7009: asks the provider to revoke a token of the client's.
    func revoke(token: String, hint: String, endpoint: String, clientId: String, clientSecret: String) async throws {
        guard endpoint.hasPrefix("https://") else {
            throw IdentityToolkitError(.invalidIdpResponse, detail: "The identity provider names no https revocation endpoint.")
        }
        var request = HTTPClientRequest(url: endpoint)
        request.method = .POST
        request.headers.add(name: "content-type", value: "application/x-www-form-urlencoded")
        let fields = [("token", token), ("token_type_hint", hint), ("client_id", clientId), ("client_secret", clientSecret)]
        request.body = .bytes(ByteBuffer(string: fields.map { "\($0)=\(Self.formEncoded($1))" }.joined(separator: "&")))
        let status: UInt
        do {
            status = try await client.execute(request, timeout: OpenIDProviderDirectory.timeout).status.code
        } catch {
            throw IdentityToolkitError(.invalidIdpResponse, detail: "The identity provider's revocation endpoint could not be reached.")
        }
        guard status == 200 else {
            throw IdentityToolkitError(.invalidIdpResponse, detail: "The identity provider refused to revoke the token (HTTP \(status)).")
        }
    }

    /// Sign in with Apple's client secret: an ES256 JWT by the team's key, for five minutes.
    static func appleClientSecret(privateKeyPEM: String, teamId: String, keyId: String, clientId: String, audience: String) async throws
        -> String
    {
        let key = try ES256PrivateKey(pem: privateKeyPEM)
        let keys = JWTKeyCollection()
        await keys.add(ecdsa: key, kid: JWKIdentifier(string: keyId))
        let now = Date()
        let claims = AppleClientSecret(
            iss: IssuerClaim(value: teamId), sub: SubjectClaim(value: clientId), aud: AudienceClaim(value: audience),
            iat: IssuedAtClaim(value: now), exp: ExpirationClaim(value: now.addingTimeInterval(300))
        )
        return try await keys.sign(claims, kid: JWKIdentifier(string: keyId))
    }

    static func formEncoded(_ text: String) -> String {
        text.addingPercentEncoding(withAllowedCharacters: unreserved) ?? ""
    }

    static let unreserved = CharacterSet(charactersIn: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")
}

/// The claims of Apple's client-secret JWT.
struct AppleClientSecret: JWTPayload {
    let iss: IssuerClaim
    let sub: SubjectClaim
    let aud: AudienceClaim
    let iat: IssuedAtClaim
    let exp: ExpirationClaim

    func verify(using algorithm: some JWTAlgorithm) async throws {}
}
