import AuthVocabulary
import Contracts
import Foundation
import PostgresNIO
import ServiceKit
import TenantStore

/// An account belongs to whoever proves its address (issue 56). Until someone has proved it,
/// whoever signed the address up is not known to own it: it may be a pre-hijacker who planted a
/// password, a provider link, a phone number, a passkey or an email-change code, and waits for the owner to
/// arrive. The first proof of the address of any kind (an email link, a password reset, a
/// verification link, a trusted provider's takeover) removes all of that in the proof's own
/// transaction and records what it removed (`account.claimed`). Identity Platform's rule that an
/// unverified account is not trusted is the model; docs/security.md says what each proof keeps.
struct AddressProof: Sendable {
    /// How the address was proved.
    enum Kind: String, Sendable {
        case emailLink, passwordReset, verifyEmail, trustedProvider

        /// A verification link keeps the password and its sessions: the account's creator may well
        /// be its owner, verifying in the same browser (docs/security.md: the residual risk). A
        /// reset replaces the password itself.
        var keepsPassword: Bool { self == .verifyEmail || self == .passwordReset }
        var endsSessions: Bool { self != .verifyEmail }
    }

    let accounts: AccountRepository
    let identities: FederatedIdentityRepository
    let codes: OOBCodeRepository
    let passkeys: PasskeyRepository

    /// Claims the account for the prover of `email`, on the proof's connection; `false` when the
    /// address had been proved before (nothing changes: only the first proof removes anything).
    @discardableResult
    func claim(localId: String, email: String, by kind: Kind, in schema: TenantSchema, on connection: PostgresConnection)
        async throws -> Bool
    {
        guard
            let claimed = try await accounts.claim(
                in: schema, localId: localId, email: email, keepsPassword: kind.keepsPassword, endsSessions: kind.endsSessions,
                on: connection
            )
        else { return false }
        let providers = try await identities.unlinkAll(of: localId, in: schema, on: connection)
        let codes = try await codes.removeAll(of: localId, in: schema, on: connection)
        let passkeys = try await passkeys.removeAll(of: localId, in: schema, on: connection)
        var details = ["via": kind.rawValue, "sessions": kind.endsSessions ? "ended" : "kept"]
        if passkeys > 0 { details["passkeys"] = String(passkeys) }
        if claimed.hadPassword {
            details["password"] = kind == .verifyEmail ? "kept" : kind == .passwordReset ? "replaced" : "removed"
        }
        Self.describe(providers: providers, phoneNumber: claimed.hadPhoneNumber, codes: codes, in: &details)
        try await accounts.events.record(.accountClaimed, localId: localId, details: details, in: schema, on: connection)
        return true
    }

    /// `RECOVER_EMAIL` (issue 56, F-7): the address the link was mailed to comes back, and with it
    /// the account: the password goes (whoever set it), so do the provider links and a phone number
    /// added since the change, and every outstanding code; every session ends. `firstProof`: the
    /// address had never been proved before the change, so this is its first proof, and what was
    /// added before the change goes too (a pre-hijacker who planted links, then moved away).
    /// `false`: no such account.
    func recover(
        localId: String, email: String, changedAt: Date, firstProof: Bool, in schema: TenantSchema, on connection: PostgresConnection
    ) async throws -> Bool {
        let since = firstProof ? nil : changedAt
        guard let recovered = try await accounts.recover(in: schema, localId: localId, email: email, changedAt: since, on: connection)
        else { return false }
        let providers = try await identities.unlinkAll(of: localId, since: since, in: schema, on: connection)
        let codes = try await codes.removeAll(of: localId, in: schema, on: connection)
        let passkeys = try await passkeys.removeAll(of: localId, since: since, in: schema, on: connection)
        var details = ["via": OOBRequestType.recoverEmail.rawValue, "sessions": "ended"]
        if passkeys > 0 { details["passkeys"] = String(passkeys) }
        if firstProof { details["firstProof"] = "true" }
        if recovered.hadPassword { details["password"] = "removed" }
        Self.describe(providers: providers, phoneNumber: recovered.phoneNumberRemoved, codes: codes, in: &details)
        try await accounts.events.record(.emailChanged, localId: localId, details: details, in: schema, on: connection)
        return true
    }

    private static func describe(providers: [String], phoneNumber: Bool, codes: Int, in details: inout [String: String]) {
        if !providers.isEmpty { details["providers"] = providers.joined(separator: ",") }
        if phoneNumber { details["phoneNumber"] = "removed" }
        if codes > 0 { details["oobCodes"] = String(codes) }
    }
}
