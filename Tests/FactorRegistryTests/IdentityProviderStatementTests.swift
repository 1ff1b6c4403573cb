import AuthVocabulary
import Contracts
import Crypto
import DataServiceTesting
import Foundation
import ServiceKit
import ServiceTesting
import Testing

@testable import FactorRegistryApp

extension RegistryStatements {
    /// factor-registry's identity-provider statements against its own PostgreSQL, through its method
    /// table, in two scopes (the project and one of its tenants): each scope keeps its own provider
    /// configurations (secrets write-only), a sign-in needs the provider enabled in the scope it is made
    /// in, and a verified provider user (a pending token, which stands for a credential the provider
    /// proved) signs in to one account per scope, each token once. No provider is called: Google's issuer
    /// is a plain-http address the provider directory refuses to fetch (no connection is made), so the web
    /// flow's start and a revocation are seen up to the call they would make, and refuse when it fails.
    @Suite("Identity provider statements (factor-registry, in-process, PostgreSQL)")
    struct IdentityProviderStatementTests {
        static let project = "demo-project"
        /// Known to the test, so it can seal what factor-registry would hand a client (a pending token).
        static let masterKey = SymmetricKey(size: .bits256)
        /// OIDC issuers must be https; none of theirs is ever fetched here.
        static let unreachable = "https://127.0.0.1:1"
        /// Google's and Apple's issuers: not https, so the directory refuses them before any connection.
        static let unfetchable = "http://127.0.0.1:1"

        static func withRegistry(_ body: @Sendable (ServiceUnderTest, _ tenantId: String) async throws -> Void) async throws {
            try await TwoScopeServices.withRunning(
                project: project,
                configuration: [
                    "secrets.masterKey": masterKey.withUnsafeBytes { Data($0) }.base64EncodedString(),
                    "identityProviders.googleIssuer": unfetchable, "identityProviders.appleIssuer": unfetchable,
                ]
            ) { services, tenantId in
                try await body(services[.factorRegistry], tenantId)
            }
        }

        static func oidc(_ name: String, enabled: Bool = true, displayName: String? = nil) -> IdentityProviderConfig {
            IdentityProviderConfig(
                providerId: "oidc.\(name)", kind: .oidc, enabled: enabled, clientId: enabled ? "\(name)-client" : nil,
                issuer: "\(unreachable)/\(name)", displayName: displayName
            )
        }

        static func put(
            _ registry: ServiceUnderTest, _ config: IdentityProviderConfig, in scope: String?, create: Bool = true, secret: String? = nil
        ) async throws -> IdentityProviderConfig {
            try await registry.call(
                PutIdentityProviderConfig.self,
                .init(projectId: project, tenantId: scope, config: config, create: create, clientSecret: secret))
        }

        static func get(_ registry: ServiceUnderTest, _ providerId: String, in scope: String?) async throws -> IdentityProviderConfig {
            try await registry.call(GetIdentityProviderConfig.self, .init(projectId: project, tenantId: scope, providerId: providerId))
        }

        /// What factor-registry seals for a provider user it verified: the test's stand-in for the
        /// provider's ID token, which cannot be had without the provider.
        static func pendingToken(for profile: ProviderProfile, in scope: String?, projectId: String = project) throws -> String {
            let claims = SealedClaims<PendingIdentity>(sealer: SecretSealer(masterKey: masterKey), purpose: "idp-pending-token")
            return try claims.seal(
                PendingIdentity(
                    projectId: projectId, tenantId: scope, profile: profile, expiresAt: .now + 600,
                    id: UUID().uuidString, linkedTo: nil
                )
            )
        }

        static func signIn(
            _ registry: ServiceUnderTest, pendingToken: String, in scope: String?, linkTo: String? = nil, returnIdpCredential: Bool? = nil
        ) async throws -> SignInWithIdp.Result {
            try await registry.call(
                SignInWithIdp.self,
                .init(
                    projectId: project, tenantId: scope, requestUri: "http://localhost", pendingToken: pendingToken, linkTo: linkTo,
                    returnIdpCredential: returnIdpCredential
                )
            )
        }

        @Test("a scope keeps its own provider configurations: created once, read, listed by kind a page at a time, replaced, deleted")
        func configurations() async throws {
            try await Self.withRegistry { registry, tenantId in
                // The same provider in both scopes, each with its own client.
                for scope in [nil, tenantId] {
                    let google = IdentityProviderConfig(
                        providerId: "google.com", kind: .defaultSupported, enabled: true, clientId: "web-\(scope ?? "project")",
                        issuer: "https://ignored.example")
                    let stored = try await Self.put(registry, google, in: scope)
                    #expect(stored.issuer == nil && stored.clientSecretSet == false)
                }
                for scope in [nil, tenantId] {
                    let other = scope == nil ? tenantId : nil
                    #expect(try await Self.get(registry, "google.com", in: scope).clientId == "web-\(scope ?? "project")")
                    let created = try await Self.put(registry, Self.oidc("corp", displayName: "Corp"), in: scope, secret: "s3cret")
                    #expect(created.clientSecretSet && created.responseIdToken == true && created.displayName == "Corp")
                    let again = try await registry.refusal { _ = try await Self.put(registry, Self.oidc("corp"), in: scope) }
                    #expect(again == "CONFIGURATION_EXISTS")
                    let elsewhere = try await registry.refusal { _ = try await Self.get(registry, "oidc.corp", in: other) }
                    #expect(elsewhere == "CONFIGURATION_NOT_FOUND")
                    #expect(try await Self.get(registry, "oidc.corp", in: scope) == created)
                    for name in ["b", "a", "c"] { _ = try await Self.put(registry, Self.oidc(name), in: scope) }
                    let list = { (token: String?) in
                        try await registry.call(
                            ListIdentityProviderConfigs.self,
                            .init(projectId: Self.project, tenantId: scope, kind: .oidc, pageSize: 2, pageToken: token))
                    }
                    let first = try await list(nil)
                    #expect(first.configs.map(\.providerId) == ["oidc.a", "oidc.b"] && first.nextPageToken == "oidc.b")
                    let second = try await list(first.nextPageToken)
                    #expect(second.configs.map(\.providerId) == ["oidc.c", "oidc.corp"] && second.nextPageToken == nil)
                    let defaults = try await registry.call(
                        ListIdentityProviderConfigs.self, .init(projectId: Self.project, tenantId: scope, kind: .defaultSupported))
                    #expect(defaults.configs.map(\.providerId) == ["google.com"])
                    // A replacement without a secret keeps the stored one; an empty one removes it.
                    let renamed = try await Self.put(registry, Self.oidc("corp", displayName: "Corp SSO"), in: scope, create: false)
                    #expect(renamed.displayName == "Corp SSO" && renamed.clientSecretSet)
                    let cleared = try await Self.put(registry, Self.oidc("corp"), in: scope, create: false, secret: "")
                    #expect(!cleared.clientSecretSet && cleared.displayName == nil)
                    #expect(try await Self.get(registry, "oidc.corp", in: scope) == cleared)
                    let missing = try await registry.refusal {
                        _ = try await Self.put(registry, Self.oidc("none"), in: scope, create: false)
                    }
                    #expect(missing == "CONFIGURATION_NOT_FOUND")
                    for name in ["a", "b", "c", "corp"] {
                        _ = try await registry.call(
                            DeleteIdentityProviderConfig.self, .init(projectId: Self.project, tenantId: scope, providerId: "oidc.\(name)"))
                    }
                    let deleted = try await registry.refusal { _ = try await Self.get(registry, "oidc.corp", in: scope) }
                    #expect(deleted == "CONFIGURATION_NOT_FOUND")
                    let deletedTwice = try await registry.refusal {
                        _ = try await registry.call(
                            DeleteIdentityProviderConfig.self, .init(projectId: Self.project, tenantId: scope, providerId: "oidc.corp"))
                    }
                    #expect(deletedTwice == "CONFIGURATION_NOT_FOUND")
                    let left = try await list(nil)
                    #expect(left.configs.isEmpty)
                }
                // Deleting the tenant's configurations left the project's Google client as it was.
                #expect(try await Self.get(registry, "google.com", in: nil).clientId == "web-project")
            }
        }

        @Test("configurations Identity Platform refuses are refused, and nothing is stored")
        func refusedConfigurations() async throws {
            try await Self.withRegistry { registry, tenantId in
                for scope in [nil, tenantId] {
                    let put = { (config: IdentityProviderConfig, secret: String?) in
                        try await registry.refusal { _ = try await Self.put(registry, config, in: scope, secret: secret) }
                    }
                    var noClient = Self.oidc("corp")
                    noClient.clientId = nil
                    #expect(try await put(noClient, nil) == "INVALID_OAUTH_CLIENT_ID")
                    let unknown = IdentityProviderConfig(providerId: "facebook.com", kind: .defaultSupported, enabled: true, clientId: "x")
                    #expect(try await put(unknown, nil) == "INVALID_PROVIDER_ID")
                    var code = Self.oidc("corp")
                    code.responseCode = true
                    #expect(try await put(code, nil) == "INVALID_CONFIG : A client secret is required for the code flow.")
                    var plain = Self.oidc("corp")
                    plain.issuer = "http://idp.example"
                    #expect(try await put(plain, nil) == "INVALID_CONFIG : The issuer must be an https URL.")
                    let listed = try await registry.call(
                        ListIdentityProviderConfigs.self, .init(projectId: Self.project, tenantId: scope, kind: .oidc))
                    #expect(listed.configs.isEmpty)
                }
            }
        }

        @Test("the web flow's start, a sign-in and a revocation need the provider configured and enabled in their own scope")
        func providerMustBeEnabled() async throws {
            try await Self.withRegistry { registry, tenantId in
                let notFound = "OPERATION_NOT_ALLOWED : The identity provider configuration is not found."
                let disabled = "OPERATION_NOT_ALLOWED : The identity provider configuration is disabled."
                let unfetched = "INVALID_IDP_RESPONSE : The identity provider's discovery document could not be fetched."
                let google = { (enabled: Bool) in
                    IdentityProviderConfig(
                        providerId: "google.com", kind: .defaultSupported, enabled: enabled, clientId: enabled ? "web-client" : nil)
                }
                for scope in [nil, tenantId] {
                    let other = scope == nil ? tenantId : nil
                    let start = {
                        try await registry.refusal {
                            _ = try await registry.call(
                                CreateAuthorizationUri.self,
                                .init(
                                    projectId: Self.project, tenantId: scope, providerId: "google.com",
                                    continueUri: "https://app.example/cb",
                                    sessionId: "session-1"))
                        }
                    }
                    let native = {
                        try await registry.refusal {
                            _ = try await registry.call(
                                SignInWithIdp.self,
                                .init(
                                    projectId: Self.project, tenantId: scope, requestUri: "http://localhost",
                                    postBody: "providerId=google.com")
                            )
                        }
                    }
                    let account = try await registry.call(
                        ImportAccounts.self,
                        .init(
                            projectId: Self.project, tenantId: scope,
                            users: [
                                ImportedAccount(
                                    localId: "linked", providerUserInfo: [FederatedIdentity(providerId: "google.com", rawId: "g-1")]),
                                ImportedAccount(localId: "unlinked", email: "u@example.com", rawPassword: "right-password"),
                            ]))
                    #expect(account.errors.isEmpty)
                    let revoke = { (localId: String) in
                        try await registry.refusal {
                            _ = try await registry.call(
                                RevokeProviderToken.self,
                                .init(
                                    projectId: Self.project, tenantId: scope, localId: localId, providerId: "google.com",
                                    tokenType: "REFRESH_TOKEN", token: "refresh-token"))
                        }
                    }
                    // Configured, enabled, in the other scope only.
                    _ = try await Self.put(registry, google(true), in: other)
                    #expect(try await start() == notFound)
                    #expect(try await native() == notFound)
                    #expect(try await revoke("linked") == notFound)
                    _ = try await Self.put(registry, google(false), in: scope)
                    #expect(try await start() == disabled)
                    #expect(try await native() == disabled)
                    #expect(try await revoke("linked") == disabled)
                    _ = try await Self.put(registry, google(true), in: scope, create: false)
                    // An access token alone proves nothing about whom it was issued to.
                    #expect(try await native() == "INVALID_IDP_RESPONSE : An id_token is required to sign in with google.com.")
                    #expect(try await revoke("unlinked") == "INVALID_PROVIDER_ID : The user has no google.com link.")
                    #expect(try await revoke("nobody") == "INVALID_PROVIDER_ID : The user has no google.com link.")
                    // Past every local check, both go to the provider, whose directory cannot be read.
                    #expect(try await start() == unfetched)
                    #expect(try await revoke("linked") == unfetched)
                    let forged = try await registry.refusal {
                        _ = try await registry.call(
                            SignInWithIdp.self,
                            .init(
                                projectId: Self.project, tenantId: scope, requestUri: "https://app.example/cb?state=forged&code=c",
                                sessionId: "session-1"))
                    }
                    #expect(forged == "INVALID_IDP_RESPONSE : The sign-in's state is unknown or has expired.")
                    for providerScope in [scope, other] {
                        _ = try await registry.call(
                            DeleteIdentityProviderConfig.self,
                            .init(projectId: Self.project, tenantId: providerScope, providerId: "google.com")
                        )
                    }
                }
            }
        }

        @Test(
            "a verified provider user gets one account per scope: created first, signed in to after; each pending token once, in its scope")
        func pendingTokenSignIn() async throws {
            try await Self.withRegistry { registry, tenantId in
                for scope in [nil, tenantId] { _ = try await Self.put(registry, Self.oidc("corp"), in: scope) }
                let pat = ProviderProfile(providerId: "oidc.corp", rawId: "corp-user-1", email: "pat@example.com", displayName: "Pat")
                var accounts: [String] = []
                for scope in [nil, tenantId] {
                    let other = scope == nil ? tenantId : nil
                    let token = try Self.pendingToken(for: pat, in: scope)
                    // Checked before it is spent: the token still works in its own scope afterwards.
                    let elsewhere = try await registry.refusal { _ = try await Self.signIn(registry, pendingToken: token, in: other) }
                    #expect(elsewhere == "INVALID_PENDING_TOKEN")
                    let created = try await Self.signIn(registry, pendingToken: token, in: scope)
                    let account = try #require(created.account)
                    #expect(created.isNewUser == true && created.identity.rawId == "corp-user-1")
                    #expect(account.email == "pat@example.com" && !account.emailVerified && account.displayName == "Pat")
                    #expect(account.federatedIdentities?.map(\.rawId) == ["corp-user-1"])
                    let replay = try await registry.refusal { _ = try await Self.signIn(registry, pendingToken: token, in: scope) }
                    #expect(replay == "INVALID_PENDING_TOKEN")
                    // The token the sign-in handed out signs the same user in again, to the same account.
                    let again = try await Self.signIn(registry, pendingToken: created.pendingToken, in: scope)
                    #expect(again.isNewUser == false && again.account?.localId == account.localId && (again.lastLoginAt ?? 0) > 0)
                    accounts.append(account.localId)
                    // Turned off since: the provider's users no longer sign in, whatever they hold.
                    _ = try await Self.put(registry, Self.oidc("corp", enabled: false), in: scope, create: false)
                    let off = try await registry.refusal {
                        _ = try await Self.signIn(registry, pendingToken: try Self.pendingToken(for: pat, in: scope), in: scope)
                    }
                    #expect(off == "OPERATION_NOT_ALLOWED : The identity provider configuration is disabled.")
                    _ = try await Self.put(registry, Self.oidc("corp"), in: scope, create: false)
                }
                #expect(Set(accounts).count == 2)
                let foreign = try await registry.refusal {
                    _ = try await Self.signIn(
                        registry, pendingToken: try Self.pendingToken(for: pat, in: nil, projectId: "other-project"), in: nil)
                }
                #expect(foreign == "INVALID_PENDING_TOKEN")
            }
        }

        @Test("a provider user linked to an account without an address gives it the provider's, verified only as the provider says")
        func linkAdoptsEmail() async throws {
            try await Self.withRegistry { registry, tenantId in
                for scope in [nil, tenantId] {
                    _ = try await Self.put(registry, Self.oidc("corp"), in: scope)
                    let una = try await registry.call(CreateAccount.self, .init(projectId: Self.project, tenantId: scope))
                    let profile = ProviderProfile(providerId: "oidc.corp", rawId: "corp-una", email: "una@example.com")
                    let linked = try await Self.signIn(
                        registry, pendingToken: try Self.pendingToken(for: profile, in: scope), in: scope, linkTo: una.localId)
                    #expect(linked.account?.localId == una.localId)
                    let account = try await registry.call(
                        GetAccount.self, .init(projectId: Self.project, tenantId: scope, localId: una.localId))
                    #expect(account.email == "una@example.com" && !account.emailVerified)
                    #expect(account.federatedIdentities?.map(\.providerId) == ["oidc.corp"])
                }
            }
        }

        @Test("a provider's email on an existing account: unverified asks for confirmation, verified takes an unproven account over")
        func existingEmail() async throws {
            try await Self.withRegistry { registry, tenantId in
                for scope in [nil, tenantId] {
                    _ = try await Self.put(registry, Self.oidc("corp"), in: scope)
                    var trusted = Self.oidc("trusted")
                    trusted.trustEmailVerified = true
                    _ = try await Self.put(registry, trusted, in: scope)
                    let sam = try await registry.call(
                        CreateAccount.self,
                        .init(projectId: Self.project, tenantId: scope, email: "sam@example.com", password: "planted-password"))
                    let unverified = ProviderProfile(providerId: "oidc.corp", rawId: "corp-sam", email: "sam@example.com")
                    let asked = try await Self.signIn(registry, pendingToken: try Self.pendingToken(for: unverified, in: scope), in: scope)
                    #expect(asked.needConfirmation == true && asked.account == nil && asked.verifiedProvider == [])
                    // Linking the provider user to another account while Sam holds the address: refused, or answered with the credential.
                    let other = try await registry.call(CreateAccount.self, .init(projectId: Self.project, tenantId: scope))
                    let link = { (returnCredential: Bool?) in
                        try await Self.signIn(
                            registry, pendingToken: try Self.pendingToken(for: unverified, in: scope), in: scope, linkTo: other.localId,
                            returnIdpCredential: returnCredential)
                    }
                    #expect(try await registry.refusal { _ = try await link(nil) } == "EMAIL_EXISTS")
                    let answered = try await link(true)
                    #expect(answered.errorMessage == "EMAIL_EXISTS" && answered.account == nil)
                    let verified = ProviderProfile(
                        providerId: "oidc.trusted", rawId: "trusted-sam", email: "sam@example.com", emailVerified: true)
                    let taken = try await Self.signIn(registry, pendingToken: try Self.pendingToken(for: verified, in: scope), in: scope)
                    #expect(taken.tookOver == true && taken.account?.localId == sam.localId && taken.account?.emailVerified == true)
                    // Whoever planted the password before the address was proved no longer signs in with it.
                    let planted = try await registry.refusal {
                        _ = try await registry.call(
                            VerifyPassword.self,
                            .init(projectId: Self.project, tenantId: scope, email: "sam@example.com", password: "planted-password"))
                    }
                    #expect(planted == "INVALID_PASSWORD")
                }
            }
        }
    }

}
