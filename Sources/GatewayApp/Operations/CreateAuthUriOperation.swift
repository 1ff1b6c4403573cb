import AuthVocabulary
import Contracts
import Foundation
import IdentityToolkit
import JSONRPC
import ServiceKit

/// `v1/accounts:createAuthUri`, both of its uses. With `providerId`: the provider's authorization
/// URL for a web sign-in that comes back to `continueUri` (an authorized domain's), bound to
/// `sessionId` (generated when absent), which `signInWithIdp` must present with the response.
/// With `identifier`: whether the email has an account and how it signs in (`fetchSignInMethodsForEmail`),
/// in the emulator's check order; under email enumeration protection, nothing but the session id.
struct CreateAuthUriOperation: Sendable {
    let registry: PeerClient<FactorRegistryAPI>
    /// The scope's settings (the one door: `CachedSettings`).
    let scopeSettings: CachedSettings
    /// Decision 19's default while a project has not set `emailPrivacyConfig` (production: on).
    let emailPrivacyByDefault: Bool

    func handle(_ request: PublicRequest) async throws -> JSONValue {
        let body = try request.decode(CreateAuthUriRequest.self)
        let projectId = request.callerProjectId
        let settings = try await scopeSettings.enabled(projectId: projectId, tenantId: body.tenantId, requestID: request.requestID)
        let sessionId = body.sessionId.nonEmpty ?? Base64URL.random(byteCount: 20)
        guard sessionId.utf8.count <= 256 else { throw IdentityToolkitError.invalidPayload("sessionId is too long") }
        if let providerId = body.providerId.nonEmpty {
            return try await authorization(body, providerId: providerId.lowercased(), sessionId: sessionId, request: request)
        }
        guard let identifier = body.identifier.nonEmpty else { throw IdentityToolkitError(.missingIdentifier) }
        guard let continueUri = body.continueUri.nonEmpty else { throw IdentityToolkitError(.missingContinueURI) }
        guard EmailSyntax.isPlausible(identifier) else { throw IdentityToolkitError(.invalidIdentifier) }
        guard URLComponents(string: continueUri)?.scheme != nil else { throw IdentityToolkitError(.invalidContinueURI) }
        if settings.improvedEmailPrivacy ?? emailPrivacyByDefault {
            // Email enumeration protection: the answer says nothing about the address.
            return try request.answer(CreateAuthUriResponse(sessionId: sessionId))
        }
        let found = try await PeerCall.call(
            registry, FindAccounts.self, .init(projectId: projectId, tenantId: body.tenantId, emails: [identifier]),
            requestID: request.requestID
        ).accounts.first
        guard let account = found else {
            return try request.answer(CreateAuthUriResponse(sessionId: sessionId, registered: false, signinMethods: [], allProviders: []))
        }
        let (methods, providers) = Self.signInMethods(account)
        return try request.answer(
            CreateAuthUriResponse(sessionId: sessionId, registered: true, signinMethods: methods, allProviders: providers)
        )
    }

    /// `signinMethods` (`password`, `emailLink`, provider ids) and `allProviders` (`password` for
    /// any address, and the provider ids) of an account.
    static func signInMethods(_ account: Account) -> ([String], [String]) {
        var methods: [String] = []
        var providers: [String] = []
        let federated = (account.federatedIdentities ?? []).map(\.providerId)
        if account.email != nil {
            if account.passwordSet == true {
                methods.append("password")
                providers.append(SignInProvider.password.rawValue)
            } else if federated.isEmpty {
                // No password and no provider: the account signs in by email link.
                methods.append("emailLink")
                providers.append(SignInProvider.password.rawValue)
            }
        }
        return (methods + federated, providers + federated)
    }

    private func authorization(_ body: CreateAuthUriRequest, providerId: String, sessionId: String, request: PublicRequest) async throws
        -> JSONValue
    {
        guard let continueUri = body.continueUri.nonEmpty else { throw IdentityToolkitError(.missingContinueURI) }
        // The provider sends the user back with `state` in the query: the URL may not have its own, nor a fragment.
        guard let url = URLComponents(string: continueUri), url.fragment == nil,
            url.queryItems?.contains(where: { $0.name == "state" }) != true
        else { throw IdentityToolkitError(.invalidContinueURI) }
        try await scopeSettings.requireAuthorized(
            continueUrl: continueUri, projectId: request.callerProjectId, tenantId: body.tenantId, requestID: request.requestID
        )
        let scopes = (body.oauthScope ?? "").split(whereSeparator: { $0 == " " || $0 == "," }).map(String.init)
        guard scopes.count <= 20, (body.customParameter?.count ?? 0) <= 20, (body.context?.utf8.count ?? 0) <= 1024 else {
            throw IdentityToolkitError.invalidPayload("Too many scopes or custom parameters")
        }
        let result = try await PeerCall.call(
            registry, CreateAuthorizationUri.self,
            .init(
                projectId: request.callerProjectId, tenantId: body.tenantId, providerId: providerId, continueUri: continueUri,
                sessionId: sessionId, scopes: scopes, customParameters: body.customParameter, context: body.context
            ),
            requestID: request.requestID
        )
        return try request.answer(CreateAuthUriResponse(sessionId: sessionId, authUri: result.authUri, providerId: providerId))
    }
}
