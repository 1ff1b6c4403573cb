import AuthVocabulary
import Contracts
import Foundation
import IdentityToolkit
import Logging
import PostgresNIO
import ServiceKit
import TenantStore

/// What using an out-of-band code does to the account, on the connection of the transaction that
/// uses the code (`OOBCodeRepository.use`): both commit together, or neither. Every change that
/// proves or changes who controls the account ends every session (`AccountRepository.sessionsEnd`);
/// the gateway answers once that second has begun, so the next sign-in's tokens work. The first
/// proof of an unproven address also removes what its earlier holder planted (`AddressProof`).
struct OOBCodeEffects: Sendable {
    let schema: TenantSchema
    let events: SecurityEventLog
    let proof: AddressProof
    let logger: Logger

    struct Outcome: Sendable {
        /// `false`: the account changed since the code was made (another email), so it did nothing.
        let applied: Bool
        /// What a `REVERT_SECOND_FACTOR_ADDITION` removed: the factor it names first, then the
        /// recovery codes that backed up the account's last factor.
        var removed: [Enrollment] = []
    }

    func perform(_ code: OOBCodeRepository.Stored, newPasswordHash: String?, on connection: PostgresConnection) async throws -> Outcome {
        guard let localId = code.localId else { return Outcome(applied: false) }
        // A disabled account changes by an admin only; the code stays for when it is enabled again.
        if try await AccountRepository.lockDisabled(localId, in: schema, on: connection, logger: logger) == true {
            throw AccountService.rejected(.userDisabled)
        }
        let codeEmail = code.email.isEmpty ? nil : EmailAddress.normalized(code.email)
        let (schema, logger) = (schema, logger)
        let change: () async throws -> Bool
        switch code.requestType {
        case .verifyEmail:
            if let codeEmail { try await proof.claim(localId: localId, email: codeEmail, by: .verifyEmail, in: schema, on: connection) }
            change = {
                try await AccountRepository.verifyEmail(of: localId, normalized: codeEmail, in: schema, on: connection, logger: logger)
            }
        case .passwordReset:
            // The mail reached the owner: the address is verified too, and proved for the first time
            // maybe, which removes what its earlier holder planted.
            if let codeEmail { try await proof.claim(localId: localId, email: codeEmail, by: .passwordReset, in: schema, on: connection) }
            change = {
                try await AccountRepository.resetPassword(
                    of: localId, normalized: codeEmail, to: newPasswordHash, in: schema, on: connection, logger: logger)
            }
        case .verifyAndChangeEmail:
            change = {
                try await AccountRepository.changeEmail(
                    of: localId, from: codeEmail, to: code.newEmail ?? "", in: schema, on: connection, logger: logger)
            }
        case .recoverEmail:
            // The owner takes the account back (issue 39, L-3; issue 56, F-7): the code is the
            // account's, single use and expiring; another account that took the address meanwhile
            // refuses it. The recovery links of later changes, mailed to addresses the taker chose,
            // go with every other code.
            do {
                let recovered = try await proof.recover(
                    localId: localId, email: code.email, changedAt: code.createdAt, firstProof: code.emailProved == false, in: schema,
                    on: connection)
                return Outcome(applied: recovered)
            } catch let error as PSQLError where error.serverInfo?[.constraintName] == "accounts_email_normalized_key" {
                throw AccountService.rejected(.emailExists)
            }
        case .revertPhoneNumberAddition:
            // The owner says someone else linked the number: it goes (while the account still has
            // that one), and every session ends, the linker's with them.
            change = {
                try await AccountRepository.removePhoneNumber(
                    of: localId, code.phoneNumber ?? "", in: schema, on: connection, logger: logger)
            }
        case .revertSecondFactorAddition:
            let removed = try await revert(code, localId: localId, on: connection)
            for factor in removed {
                try await events.record(
                    .factorWithdrawn, localId: localId,
                    details: ["kind": factor.kind.rawValue, "enrollmentId": factor.mfaEnrollmentId, "via": code.requestType.rawValue],
                    in: schema, on: connection
                )
            }
            return Outcome(applied: true, removed: removed)
        default:
            return Outcome(applied: false)
        }
        do {
            let applied = try await change()
            // The change and its record commit together.
            switch code.requestType {
            case .passwordReset where applied:
                try await events.record(
                    .passwordChanged, localId: localId, details: ["via": code.requestType.rawValue], in: schema, on: connection)
            case .revertPhoneNumberAddition where applied:
                try await events.record(
                    .phoneNumberChanged, localId: localId, details: ["via": code.requestType.rawValue], in: schema, on: connection
                )
            case .verifyAndChangeEmail where applied:
                try await events.record(
                    .emailChanged, localId: localId, details: ["via": code.requestType.rawValue], in: schema, on: connection)
            default:
                break
            }
            return Outcome(applied: applied)
        } catch let error as PSQLError where error.serverInfo?[.constraintName] == "accounts_email_normalized_key" {
            // Another account took the address meanwhile: nothing changes, the code stays usable.
            throw AccountService.rejected(.emailExists)
        }
    }

    /// Removes the factor the notice was about, if it is still there, and ends every session: the
    /// owner says someone else added it.
    private func revert(_ code: OOBCodeRepository.Stored, localId: String, on connection: PostgresConnection) async throws -> [Enrollment] {
        if let credentialId = code.enrollmentId.flatMap(PasskeyCredential.credentialId(factorIdentifier:)) {
            // A new passkey's notice: the passkey goes (audited there), and every session with it.
            if let bytes = Base64URL.decode(credentialId).map(Array.init) {
                _ = try await proof.passkeys.remove(
                    credentialId: bytes, localId: localId, via: code.requestType.rawValue, in: schema, on: connection)
            }
            try await endSessions(of: localId, on: connection)
            return []
        }
        let removed = try await EnrollmentRepository.remove(
            in: schema, localId: localId, enrollmentId: code.enrollmentId ?? "", on: connection, logger: logger)
        try await endSessions(of: localId, on: connection)
        return removed
    }

    private func endSessions(of localId: String, on connection: PostgresConnection) async throws {
        try await AccountRepository.endSessions(of: localId, in: schema, on: connection, logger: logger)
    }

    struct SignedIn: Sendable {
        let localId: String
        let created: Bool
        let lastLoginAt: EpochSeconds
        let secondFactorRequired: Bool
    }

    /// An email link used by a signed-in user: the address becomes theirs, verified (an anonymous
    /// account's upgrade, or a second way in). Another account's address is not taken.
    func link(email: String, to localId: String, on connection: PostgresConnection) async throws -> SignedIn {
        let seconds: EpochSeconds?
        do {
            seconds = try await AccountRepository.linkEmail(email, to: localId, in: schema, on: connection, logger: logger)
        } catch let error as PSQLError where error.serverInfo?[.constraintName] == "accounts_email_normalized_key" {
            throw AccountService.rejected(.emailExists)
        }
        guard let seconds else { throw AccountService.rejected(.userNotFound) }
        return SignedIn(localId: localId, created: false, lastLoginAt: seconds, secondFactorRequired: false)
    }

    /// An email link's sign-in: the account with the address has it verified (and the sign-in
    /// recorded unless a second factor must follow); without one, an account is created. The first
    /// proof of an unverified account's address claims it (`AddressProof`): its password, provider
    /// links, phone number and codes go and its sessions end (issue 39, M-7; issue 56, F-1).
    /// `holdNewAccount`: an account created here is disabled until the gateway releases it (its
    /// `beforeCreate` function allowed it).
    func signIn(email: String, secondFactorKinds: Set<FactorKind>, holdNewAccount: Bool = false, on connection: PostgresConnection)
        async throws -> SignedIn
    {
        if let holder = try await AccountRepository.holder(
            ofNormalized: EmailAddress.normalized(email), in: schema, on: connection, logger: logger)
        {
            let localId = holder.localId
            if holder.disabled { throw AccountService.rejected(.userDisabled) }
            let required = holder.kinds.contains { FactorKind(rawValue: $0).map(secondFactorKinds.contains) == true }
            // Pre-hijacking: whoever signed the address up before its owner proved it may still
            // hold a password, a link, a number, a code and a session; the first proof takes them.
            try await proof.claim(localId: localId, email: email, by: .emailLink, in: schema, on: connection)
            if let seconds = try await AccountRepository.signInByEmailLink(
                localId, required: required, in: schema, on: connection, logger: logger)
            {
                return SignedIn(localId: localId, created: false, lastLoginAt: required ? 0 : seconds, secondFactorRequired: required)
            }
        }
        let localId = RandomIdentifier.make()
        let seconds = try await AccountRepository.insertSignedInByEmailLink(
            localId, email: email, held: holdNewAccount, in: schema, on: connection, logger: logger)
        return SignedIn(localId: localId, created: true, lastLoginAt: seconds, secondFactorRequired: false)
    }
}
