import Contracts
import Crypto
import Foundation
import IdentityToolkit
import JSONRPC
import ServiceKit
import Testing

@testable import FactorRegistryApp

/// What `signInWithIdp` reads from a request, and what factor-registry hands a client to give back:
/// the parsing order of Identity Toolkit (`requestUri`'s query, `postBody`, the fragment), the
/// configurations Identity Platform refuses, and the sealed state and pending token that nobody can
/// read, alter or pass off as the other.
@Suite("Identity providers: credentials, configurations, sealed claims")
struct ProviderCredentialTests {
    @Test("an SDK's native credential is read from postBody, its provider id lower-cased")
    func nativeCredential() throws {
        let credential = try ProviderCredential.read(
            requestUri: "http://localhost", postBody: "id_token=a.b.c&providerId=Google.com&nonce=raw%2Bnonce", pendingToken: nil
        )
        guard case .native(let provider, let idToken, let accessToken, let nonce) = credential else {
            Issue.record("not native: \(credential)")
            return
        }
        #expect(provider == "google.com" && idToken == "a.b.c" && accessToken == nil && nonce == "raw+nonce")
    }

    @Test("a web flow's response: postBody wins over the query, the fragment over both")
    func webResponse() throws {
        let credential = try ProviderCredential.read(
            requestUri: "https://app.example/cb?state=fromQuery&code=queryCode#id_token=fragment.token.x",
            postBody: "state=fromBody", pendingToken: nil
        )
        guard case .web(let state, let code, let idToken) = credential else {
            Issue.record("not web: \(credential)")
            return
        }
        #expect(state == "fromBody" && code == "queryCode" && idToken == "fragment.token.x")
    }

    @Test("a pending token stands on its own; no provider id, a provider's error or a bad URI are refused")
    func refusals() throws {
        guard case .pending("sealed") = try ProviderCredential.read(requestUri: "x", postBody: nil, pendingToken: "sealed") else {
            Issue.record("a pending token was not taken as one")
            return
        }
        #expect(throws: IdentityToolkitError(.invalidCredentialOrProviderID, detail: "Invalid IdP response/credential.")) {
            try ProviderCredential.read(requestUri: "http://localhost", postBody: "id_token=a.b.c", pendingToken: nil)
        }
        #expect(throws: IdentityToolkitError(.invalidIdpResponse, detail: "The identity provider answered access_denied.")) {
            try ProviderCredential.read(requestUri: "https://app.example/cb?error=access_denied&state=s", postBody: nil, pendingToken: nil)
        }
        #expect(throws: IdentityToolkitError(.invalidRequestURI)) {
            try ProviderCredential.read(requestUri: "no scheme here", postBody: nil, pendingToken: nil)
        }
    }

    @Test("configurations Identity Platform refuses are refused, with its codes")
    func configurationChecks() throws {
        func code(_ config: IdentityProviderConfig) -> String? {
            do {
                _ = try IdentityProviderConfigService.checked(config)
                return nil
            } catch let error as RPCError {
                return error.business?.code?.rawValue
            } catch {
                return "\(error)"
            }
        }
        #expect(
            code(.init(providerId: "corp", kind: .oidc, enabled: true, clientId: "c", issuer: "https://x.example")) == "INVALID_PROVIDER_ID"
        )
        #expect(
            code(.init(providerId: "oidc.corp", kind: .oidc, enabled: true, clientId: "c", issuer: "http://x.example")) == "INVALID_CONFIG")
        #expect(
            code(
                .init(
                    providerId: "oidc.corp", kind: .oidc, enabled: true, clientId: "c", issuer: "https://x.example", responseCode: true,
                    responseIdToken: true))
                == "INVALID_CONFIG"
        )
        #expect(code(.init(providerId: "oidc.corp", kind: .oidc, enabled: true, issuer: "https://x.example")) == "INVALID_OAUTH_CLIENT_ID")
        #expect(code(.init(providerId: "facebook.com", kind: .defaultSupported, enabled: true, clientId: "c")) == "INVALID_PROVIDER_ID")
        // Disabled without a client id is fine; the ID-token flow is the default.
        let checked = try IdentityProviderConfigService.checked(
            .init(providerId: "oidc.corp", kind: .oidc, enabled: false, issuer: "https://x.example"))
        #expect(checked.responseIdToken == true && checked.responseCode == nil)
    }

    @Test("sealed claims open only for their own purpose, and not once altered")
    func sealedClaims() throws {
        let sealer = SecretSealer(masterKey: SymmetricKey(size: .bits256))
        let pending = SealedClaims<PendingIdentity>(sealer: sealer, purpose: "idp-pending-token")
        let states = SealedClaims<AuthorizationState>(sealer: sealer, purpose: "idp-authorization-state")
        let identity = PendingIdentity(
            projectId: "demo-project", profile: ProviderProfile(providerId: "oidc.corp", rawId: "alice"), expiresAt: 4_000_000_000,
            id: "pending-1", linkedTo: nil
        )
        let sealed = try pending.seal(identity)
        #expect(pending.open(sealed)?.profile.rawId == "alice")
        #expect(states.open(sealed) == nil)
        var bytes = Array(Base64URL.decode(sealed)!)
        bytes[bytes.count / 2] ^= 1
        #expect(pending.open(Base64URL.encode(bytes)) == nil)
        #expect(
            SealedClaims<PendingIdentity>(sealer: SecretSealer(masterKey: SymmetricKey(size: .bits256)), purpose: "idp-pending-token").open(
                sealed) == nil)
    }

    @Test("an address counts as verified only where its provider is authoritative for it (issue 56, F-3)")
    func emailTrust() {
        let google = IdentityProviderConfig(providerId: "google.com", kind: .defaultSupported, enabled: true)
        let apple = IdentityProviderConfig(providerId: "apple.com", kind: .defaultSupported, enabled: true)
        let corp = IdentityProviderConfig(providerId: "oidc.corp", kind: .oidc, enabled: true)
        var trustedCorp = corp
        trustedCorp.trustEmailVerified = true
        // Google hosts Gmail and a Workspace domain it names as hd; any other address is only claimed.
        #expect(EmailTrust.vouches(for: "ada@gmail.com", providerId: "google.com", hostedDomain: nil, config: google))
        #expect(EmailTrust.vouches(for: "ada@Corp.example", providerId: "google.com", hostedDomain: "corp.example", config: google))
        #expect(!EmailTrust.vouches(for: "ada@corp.example", providerId: "google.com", hostedDomain: nil, config: google))
        #expect(!EmailTrust.vouches(for: "ada@victim.example", providerId: "google.com", hostedDomain: "corp.example", config: google))
        // Apple verifies every address it hands out; an OIDC provider only when the operator says so.
        #expect(EmailTrust.vouches(for: "x@privaterelay.appleid.com", providerId: "apple.com", hostedDomain: nil, config: apple))
        #expect(!EmailTrust.vouches(for: "ada@victim.example", providerId: "oidc.corp", hostedDomain: nil, config: corp))
        #expect(EmailTrust.vouches(for: "ada@victim.example", providerId: "oidc.corp", hostedDomain: nil, config: trustedCorp))
    }

    @Test("a photo URL is an http or https address, never javascript: or data: (issue 56, F-14)")
    func photoURLs() {
        #expect(AccountService.isWebAddress("https://cdn.example/a.png"))
        #expect(AccountService.isWebAddress("HTTP://cdn.example/a.png"))
        for hostile in [
            "javascript:alert(1)", "JavaScript://cdn.example/%0aalert(1)", "data:image/png;base64,AAAA", "//cdn.example/a.png",
            "https:///a.png", "ftp://cdn.example/a.png", "cdn.example/a.png",
        ] {
            #expect(!AccountService.isWebAddress(hostile), "\(hostile)")
        }
    }

    @Test("Google's federated id is its issuer and the subject; a profile reads Apple's string email_verified")
    func profiles() {
        let profile = ProviderTokenVerifier.profile(
            ["sub": "001.apple", "email": "a@privaterelay.appleid.com", "email_verified": "true", "name": "A"], providerId: "apple.com",
            token: "t"
        )
        #expect(profile.emailVerified && profile.rawId == "001.apple" && profile.oauthIdToken == "t")
        let unverified = ProviderTokenVerifier.profile(
            ["sub": "x", "email": "not an email", "email_verified": true], providerId: "oidc.x", token: "t")
        #expect(unverified.email == nil && !unverified.emailVerified)
    }
}
