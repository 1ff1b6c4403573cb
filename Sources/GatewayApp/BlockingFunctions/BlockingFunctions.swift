import Contracts
import IdentityToolkit
import JSONRPC
import ServiceKit

/// Where the flows meet the scope's blocking functions (docs/blocking-functions.md): `beforeCreate`
/// when a client's sign-up or first sign-in makes an account, `beforeSignIn` before any sign-in's
/// tokens (after the second factor when there is one), `beforeSendEmail` and `beforeSendSms` before
/// a message. Anonymous and custom-token sign-ins call none, as in Identity Platform; nor do the
/// admin API's calls.
struct BlockingFunctions: Sendable {
    let registry: PeerClient<FactorRegistryAPI>
    let settings: CachedSettings
    let caller: BlockingFunctionCaller

    /// What a sign-in goes on with: the account as the function left it, and the claims of this
    /// session only.
    struct SignIn: Sendable {
        var account: Account
        var sessionClaims: [String: JSONValue]?
    }

    /// The scope's functions: the tenant's own, else its project's (which apply to every tenant).
    func config(_ own: AuthSettings, projectId: String, tenantId: String?, requestID: String) async throws -> BlockingFunctionsConfig? {
        if let functions = own.blockingFunctions { return functions }
        guard tenantId != nil else { return nil }
        return try await settings.settings(projectId: projectId, tenantId: nil, requestID: requestID).blockingFunctions
    }

    /// Whether the scope has a `beforeCreate` function: then a flow asks factor-registry to hold a
    /// new account (created disabled) until ``beforeCreate(_:settings:projectId:tenantId:signInMethod:profile:request:)``
    /// releases it. A gateway that dies in between leaves a disabled account, never one the
    /// function did not allow.
    func holdsNewAccounts(_ own: AuthSettings, projectId: String, tenantId: String?, requestID: String) async throws -> Bool {
        try await config(own, projectId: projectId, tenantId: tenantId, requestID: requestID)?.trigger(.beforeCreate) != nil
    }

    /// `beforeCreate` for an account a client's call just made (held, when the scope has the
    /// function). A refusal deletes the account again before it is answered, so nothing is left and
    /// no token was ever issued for it; an allowed one is released with the function's changes in
    /// one update. An account the function creates disabled stays, and this sign-in is refused
    /// (`USER_DISABLED`).
    func beforeCreate(
        _ account: Account, settings own: AuthSettings, projectId: String, tenantId: String?, signInMethod: String,
        profile: ProviderProfile? = nil, request: PublicRequest
    ) async throws -> Account {
        guard let config = try await config(own, projectId: projectId, tenantId: tenantId, requestID: request.requestID),
            let trigger = config.trigger(.beforeCreate)
        else { return account }
        // The function sees the account as it will be, not as it is held.
        var proposed = account
        proposed.disabled = false
        var event = BlockingEvent(
            .beforeCreate, projectId: projectId, tenantId: tenantId, account: proposed, signInMethod: signInMethod, locale: request.locale
        )
        if let profile { event.carrying(profile, forwarding: config.forwardInboundCredentials) }
        let created: Account
        do {
            var answer = try await caller.invoke(event, trigger: trigger, requestID: request.requestID)
            if account.disabled, answer.disabled == nil { answer.disabled = false }
            created = try await apply(answer, to: account, projectId: projectId, tenantId: tenantId, requestID: request.requestID)
        } catch {
            _ = try? await PeerCall.call(
                registry, DeleteAccount.self, .init(projectId: projectId, tenantId: tenantId, localId: account.localId),
                requestID: request.requestID
            )
            throw error
        }
        // Created disabled: the account stays (an admin may enable it), the sign-in does not happen.
        if created.disabled { throw IdentityToolkitError(.userDisabled) }
        return created
    }

    /// `beforeSignIn`, right before the sign-in's session is issued. The function's changes are
    /// stored on the account; `disabled: true` refuses this sign-in (`USER_DISABLED`).
    func beforeSignIn(
        _ account: Account, settings own: AuthSettings, projectId: String, tenantId: String?, signInMethod: String,
        profile: ProviderProfile? = nil, request: PublicRequest
    ) async throws -> SignIn {
        guard let config = try await config(own, projectId: projectId, tenantId: tenantId, requestID: request.requestID),
            let trigger = config.trigger(.beforeSignIn)
        else { return SignIn(account: account) }
        // The hot sign-in reads leave the factors out; the function is told the whole record.
        let account = try await PeerCall.call(
            registry, GetAccount.self, .init(projectId: projectId, tenantId: tenantId, localId: account.localId),
            requestID: request.requestID
        )
        var event = BlockingEvent(
            .beforeSignIn, projectId: projectId, tenantId: tenantId, account: account, signInMethod: signInMethod, locale: request.locale
        )
        if let profile { event.carrying(profile, forwarding: config.forwardInboundCredentials) }
        let answer = try await caller.invoke(event, trigger: trigger, requestID: request.requestID)
        let updated = try await apply(answer, to: account, projectId: projectId, tenantId: tenantId, requestID: request.requestID)
        if updated.disabled { throw IdentityToolkitError(.userDisabled) }
        return SignIn(account: updated, sessionClaims: answer.sessionClaims.flatMap { $0.isEmpty ? nil : $0 })
    }

    /// The scope's `beforeSendSms` function, if it has one: then an SMS is held until it answers.
    func smsTrigger(_ own: AuthSettings, projectId: String, tenantId: String?, requestID: String) async throws
        -> BlockingFunctionsConfig.Trigger?
    {
        try await config(own, projectId: projectId, tenantId: tenantId, requestID: requestID)?.trigger(.beforeSendSms)
    }

    /// `beforeSendSms` (`smsType`: `SIGN_IN_OR_SIGN_UP`, `MULTI_FACTOR_SIGN_IN`,
    /// `MULTI_FACTOR_ENROLLMENT`), once challenge-issuer checked the app's proof and the limits: a
    /// refusal means no message is sent. Returns the route the function named (`smsRoute`).
    func beforeSendSms(
        to number: String, smsType: String, account: Account?, trigger: BlockingFunctionsConfig.Trigger, projectId: String,
        tenantId: String?, request: PublicRequest
    ) async throws -> String? {
        var event = BlockingEvent(
            .beforeSendSms, projectId: projectId, tenantId: tenantId, account: account, signInMethod: "phone", locale: request.locale
        )
        event.claims["phone_number"] = .string(number)
        event.claims["sms_type"] = .string(smsType)
        return try await caller.invoke(event, trigger: trigger, requestID: request.requestID).smsRoute
    }

    /// `beforeSendEmail` (`emailType`: `EMAIL_SIGN_IN`, `PASSWORD_RESET`): a refusal means no mail.
    func beforeSendEmail(
        to email: String, emailType: String, account: Account?, settings own: AuthSettings, projectId: String, tenantId: String?,
        request: PublicRequest
    ) async throws {
        guard let config = try await config(own, projectId: projectId, tenantId: tenantId, requestID: request.requestID),
            let trigger = config.trigger(.beforeSendEmail)
        else { return }
        var event = BlockingEvent(
            .beforeSendEmail, projectId: projectId, tenantId: tenantId, account: account, signInMethod: nil, locale: request.locale
        )
        event.claims["email"] = .string(email)
        event.claims["email_type"] = .string(emailType)
        _ = try await caller.invoke(event, trigger: trigger, requestID: request.requestID)
    }

    private func apply(
        _ answer: BlockingFunctionAnswer, to account: Account, projectId: String, tenantId: String?, requestID: String
    ) async throws -> Account {
        let update: UpdateAccount.Params?
        do {
            update = try answer.update(projectId: projectId, tenantId: tenantId, localId: account.localId)
        } catch {
            throw IdentityToolkitError(error.error, detail: error.detail)
        }
        guard let update else { return account }
        var updated = try await PeerCall.call(registry, UpdateAccount.self, update, requestID: requestID)
        // The narrow sign-in reads leave some members out; what the update did not touch stays as read.
        updated.mfaInfo = updated.mfaInfo ?? account.mfaInfo
        updated.federatedIdentities = updated.federatedIdentities ?? account.federatedIdentities
        return updated
    }
}
