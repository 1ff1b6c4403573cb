import AuthVocabulary
import Contracts
import Foundation
import IdentityToolkit
import JSONRPC
import ServiceKit
import TenantStore

/// `oobCode.create`, `oobCode.inspect`, `oobCode.apply` and `emailLink.signIn` (contract §2.4,
/// §2.5): what each request type records when it is made, and does when it is used.
struct OOBCodeService: Sendable {
    let codes: OOBCodeRepository
    let accounts: AccountService
    /// The first proof of an address, and an email recovery (issue 56).
    let proof: AddressProof
    let lifetimes: OOBCodeLifetimes

    /// Every type but the recovery-code notice, which carries no code.
    static let supportedRequestTypes = Set(OOBRequestType.allCases).subtracting([.recoveryCodeUsed])

    func create(_ params: CreateOOBCode.Params) async throws -> CreateOOBCode.Result {
        guard Self.supportedRequestTypes.contains(params.requestType) else {
            throw AccountService.rejected(.invalidReqType, detail: "\(params.requestType.rawValue) is not supported")
        }
        let schema = try await accounts.activeSchema(projectId: params.projectId, tenantId: params.tenantId)
        // Counted before the look-up: asking about unknown addresses costs the same.
        if let address = params.clientAddress { try await accounts.limits.admit(address: address) }
        let account: Account?
        if let localId = params.localId {
            account = try await accounts.accounts.account(in: schema, localId: localId)
        } else if let email = params.email, !email.isEmpty {
            account = try await accounts.accounts.credentials(in: schema, email: email)?.account
        } else {
            throw AccountService.rejected(.missingEmail)
        }
        // What the code records: the address it is about, and the one it changes to or back from.
        var email: String
        var newEmail: String?
        switch params.requestType {
        case .emailSignIn:
            // Signing in creates the account, so there may be none yet.
            guard let given = params.email, EmailAddress.isValid(given) else { throw AccountService.rejected(.invalidEmail) }
            email = account?.email ?? given
        case .verifyAndChangeEmail:
            guard let account else { throw AccountService.rejected(.userNotFound) }
            guard let target = params.newEmail, EmailAddress.isValid(target) else {
                throw AccountService.rejected(.invalidNewEmail)
            }
            if let holder = try await accounts.accounts.credentials(in: schema, email: target), holder.account.localId != account.localId {
                throw AccountService.rejected(.emailExists)
            }
            (email, newEmail) = (account.email ?? "", target)
        case .recoverEmail:
            guard account != nil else { throw AccountService.rejected(.userNotFound) }
            guard let restored = params.email, let undone = params.newEmail else { throw AccountService.rejected(.missingEmail) }
            (email, newEmail) = (restored, undone)
        default:
            guard let account else {
                // An unknown address spends its mail budget like a known one, so the limit's answer
                // (TOO_MANY_ATTEMPTS_TRY_LATER after a few) does not tell which addresses have
                // accounts under email enumeration protection (issue 39, L-2).
                if params.clientAddress != nil, let given = params.email, !given.isEmpty {
                    try await accounts.limits.admitMail(schema, recipient: "email:\(EmailAddress.normalized(given))")
                }
                throw AccountService.rejected(.userNotFound)
            }
            guard let current = account.email else { throw AccountService.rejected(.missingEmail) }
            email = current
            if params.requestType == .revertSecondFactorAddition {
                guard let id = params.enrollmentId, try await hasFactor(id, account: account, in: schema) else {
                    throw AccountService.rejected(.mfaEnrollmentNotFound)
                }
            }
            // The notice is about the number the account has now; another one is not this code's to remove.
            if params.requestType == .revertPhoneNumberAddition {
                guard let number = params.phoneNumber, account.phoneNumber == number else {
                    throw AccountService.rejected(.invalidPhoneNumber)
                }
            }
        }
        if params.clientAddress != nil {
            try await accounts.limits.admitMail(schema, recipient: account?.localId ?? "email:\(EmailAddress.normalized(email))")
        }
        let code = Self.makeCode()
        try await codes.insert(
            in: schema, code: code, requestType: params.requestType, localId: account?.localId, email: email, newEmail: newEmail,
            enrollmentId: params.enrollmentId,
            phoneNumber: params.requestType == .revertPhoneNumberAddition ? params.phoneNumber : nil,
            emailProved: params.requestType == .verifyAndChangeEmail
                ? account?.emailVerified : params.requestType == .recoverEmail ? params.emailProved : nil,
            lifetime: lifetimes.of(params.requestType)
        )
        return .init(oobCode: code, email: email, localId: account?.localId, newEmail: newEmail)
    }

    /// Whether the account has the factor a new-factor notice is about: a second factor's
    /// enrollment, or a passkey (`passkey:<credential id>`).
    private func hasFactor(_ id: String, account: Account, in schema: TenantSchema) async throws -> Bool {
        guard let credentialId = PasskeyCredential.credentialId(factorIdentifier: id) else {
            return account.mfaInfo?.contains(where: { $0.mfaEnrollmentId == id }) == true
        }
        guard let bytes = Base64URL.decode(credentialId).map(Array.init) else { return false }
        return try await proof.passkeys.owns(credentialId: bytes, localId: account.localId, in: schema)
    }

    func inspect(_ params: InspectOOBCode.Params) async throws -> OOBCodeInfo {
        let schema = try await accounts.activeSchema(projectId: params.projectId, tenantId: params.tenantId)
        guard Self.isWellFormed(params.oobCode), let stored = try await codes.find(in: schema, code: params.oobCode) else {
            throw AccountService.rejected(.invalidOOBCode)
        }
        guard stored.live else { throw AccountService.rejected(.expiredOOBCode) }
        var enrollment: Enrollment?
        if let id = stored.enrollmentId, let localId = stored.localId {
            enrollment = try await accounts.accounts.account(in: schema, localId: localId)?.mfaInfo?.first { $0.mfaEnrollmentId == id }
        }
        return OOBCodeInfo(
            requestType: stored.requestType, email: stored.email, newEmail: stored.newEmail, enrollment: enrollment,
            phoneNumber: stored.phoneNumber
        )
    }

    func apply(_ params: ApplyOOBCode.Params) async throws -> ApplyOOBCode.Result {
        let schema = try await accounts.activeSchema(projectId: params.projectId, tenantId: params.tenantId)
        guard Self.isWellFormed(params.oobCode) else { throw AccountService.rejected(.invalidOOBCode) }
        let types = Set(params.requestTypes ?? [.verifyEmail]).subtracting([.emailSignIn])
        // A new password is checked and hashed before the code is touched: a weak one leaves it usable.
        var hashed: String?
        if types.contains(.passwordReset), let password = params.newPassword {
            try AccountService.checkPassword(password)
            hashed = try await accounts.hashers.hasher(for: params.projectId).hash(password)
        }
        let passwordHash = hashed
        let effects = OOBCodeEffects(schema: schema, events: accounts.accounts.events, proof: proof, logger: codes.logger)
        let use = try await codes.use(in: schema, code: params.oobCode, types: types) { stored, connection in
            if stored.requestType == .passwordReset, passwordHash == nil { throw AccountService.rejected(.missingNewPassword) }
            return try await effects.perform(stored, newPasswordHash: passwordHash, on: connection)
        }
        switch use {
        case .used(let stored, let outcome):
            guard outcome.applied, let localId = stored.localId,
                let account = try await accounts.accounts.account(in: schema, localId: localId)
            else { throw AccountService.rejected(.invalidOOBCode) }
            return .init(
                requestType: stored.requestType, account: account,
                info: OOBCodeInfo(
                    requestType: stored.requestType, email: stored.email, newEmail: stored.newEmail, enrollment: outcome.removed.first,
                    phoneNumber: stored.phoneNumber, emailProved: stored.requestType == .verifyAndChangeEmail ? stored.emailProved : nil,
                    alsoRemoved: outcome.removed.count > 1 ? Array(outcome.removed.dropFirst()) : nil
                )
            )
        case .expired:
            throw AccountService.rejected(.expiredOOBCode)
        case .unknown, .otherType:
            throw AccountService.rejected(.invalidOOBCode)
        }
    }

    func signInWithEmailLink(_ params: SignInWithEmailLink.Params) async throws -> SignInWithEmailLink.Result {
        let schema = try await accounts.activeSchema(projectId: params.projectId, tenantId: params.tenantId)
        guard Self.isWellFormed(params.oobCode) else { throw AccountService.rejected(.invalidOOBCode) }
        let events = accounts.accounts.events
        let effects = OOBCodeEffects(schema: schema, events: events, proof: proof, logger: codes.logger)
        let kinds = Set(params.secondFactorKinds ?? [])
        let use = try await codes.use(in: schema, code: params.oobCode, types: [.emailSignIn]) { stored, connection in
            guard EmailAddress.normalized(stored.email) == EmailAddress.normalized(params.email) else {
                throw AccountService.rejected(.invalidEmail, detail: "The email provided does not match the sign-in email address.")
            }
            let signedIn =
                if let localId = params.linkTo {
                    try await effects.link(email: stored.email, to: localId, on: connection)
                } else {
                    try await effects.signIn(
                        email: stored.email, secondFactorKinds: kinds, holdNewAccount: params.holdNewAccount == true, on: connection
                    )
                }
            var details = ["factor": "emailLink"]
            if signedIn.secondFactorRequired { details["secondFactor"] = "required" }
            if params.linkTo != nil { details["linked"] = "true" }
            try await events.record(.signInSucceeded, localId: signedIn.localId, details: details, in: schema, on: connection)
            return signedIn
        }
        switch use {
        case .used(_, let signedIn):
            guard let account = try await accounts.accounts.account(in: schema, localId: signedIn.localId) else {
                throw AccountService.rejected(.invalidOOBCode)
            }
            return .init(
                account: account, isNewUser: signedIn.created, lastLoginAt: signedIn.lastLoginAt,
                secondFactorRequired: signedIn.secondFactorRequired ? true : nil
            )
        case .expired:
            throw AccountService.rejected(.expiredOOBCode)
        case .unknown, .otherType:
            throw AccountService.rejected(.invalidOOBCode)
        }
    }

    /// A code is 54 characters; anything else cannot be one, and is not worth a hash and a query.
    static func isWellFormed(_ code: String) -> Bool { code.utf8.count == 54 }

    /// 40 random bytes from the system CSPRNG as 54 base64url characters (the emulator's length).
    static func makeCode() -> String { Base64URL.random(byteCount: 40) }
}

/// How long each kind of link works. Firebase's: three days for most, an hour for a password
/// reset, six hours for a sign-in link.
struct OOBCodeLifetimes: Sendable {
    let standard: Duration
    let passwordReset: Duration
    let emailSignIn: Duration

    func of(_ requestType: OOBRequestType) -> Duration {
        switch requestType {
        case .passwordReset: passwordReset
        case .emailSignIn: emailSignIn
        default: standard
        }
    }
}
