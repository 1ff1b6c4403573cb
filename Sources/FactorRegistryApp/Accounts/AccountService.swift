import AuthVocabulary
import Contracts
import Foundation
import IdentityToolkit
import JSONRPC
import Logging
import ServiceKit
import TenantStore

/// Account operations, with the checks and error strings of the contract.
struct AccountService: Sendable {
    let accounts: AccountRepository
    let tenants: TenantRepository
    let hashers: PasswordHashers
    let limits: FirstFactorLimits

    static let minimumPasswordLength = 6

    /// §2.1, unprivileged path: email/password when either is given, anonymous when neither.
    func signUp(_ params: SignUpAccount.Params) async throws -> Account {
        let schema = try await activeSchema(projectId: params.projectId, tenantId: params.tenantId)
        try await limits.admit(address: params.clientAddress)
        let emailPassword = params.email != nil || params.password != nil
        if emailPassword {
            guard let email = params.email, !email.isEmpty else { throw Self.rejected(.missingEmail) }
            guard let password = params.password, !password.isEmpty else { throw Self.rejected(.missingPassword) }
            guard EmailAddress.isValid(email) else { throw Self.rejected(.invalidEmail) }
            try Self.checkPassword(password)
        }
        try Self.checkDisplayName(params.displayName)
        try await limits.admitSignUp(schema)
        // Hash before taking the row: scrypt is the slow part and needs no lock.
        let passwordHash = try await hashers.hash(params.password, for: params.projectId)
        do {
            return try await accounts.insert(
                in: schema, localId: RandomIdentifier.make(), email: params.email, passwordHash: passwordHash,
                displayName: params.displayName, held: params.holdNewAccount == true, signedIn: true
            )
        } catch is AccountRepository.EmailTaken {
            throw Self.rejected(.emailExists)
        }
    }

    /// §2.2: the credentials, in the contract's order. An unknown email, a disabled or a
    /// passwordless account still cost one hash, so the answer's timing does not tell which
    /// emails exist or how.
    func verifyPassword(_ params: VerifyPassword.Params) async throws -> VerifyPassword.Result {
        let schema = try await activeSchema(projectId: params.projectId, tenantId: params.tenantId)
        let budget: String
        do {
            try await limits.admit(address: params.clientAddress)
            budget = try await limits.takeFailure(schema, email: params.email, address: params.clientAddress)
        } catch let error as RPCError where error.business?.code == .tooManyAttemptsTryLater {
            try await accounts.events.record(.rateLimitTripped, localId: nil, details: ["limit": "password sign-in"], in: schema)
            throw error
        }
        guard params.password.utf8.count <= PasswordHasher.maximumPasswordBytes else { throw Self.rejected(.invalidPassword) }
        guard let stored = try await accounts.credentials(in: schema, email: params.email) else {
            _ = try await hashers.standard.verify(params.password, against: hashers.decoy(for: params.projectId))
            try await signInFailed(nil, reason: .emailNotFound, in: schema)
            throw Self.rejected(.emailNotFound)
        }
        let localId = stored.account.localId
        let right: Bool
        if let hash = stored.passwordHash {
            right = try await hashers.verify(params.password, against: hash, account: localId, projectId: params.projectId)
        } else {
            _ = try await hashers.standard.verify(params.password, against: hashers.decoy(for: params.projectId))
            right = false
        }
        if right { await limits.refund(budget) }
        if stored.account.disabled {
            try await signInFailed(localId, reason: .userDisabled, in: schema)
            throw Self.rejected(.userDisabled)
        }
        guard right else {
            try await signInFailed(localId, reason: .invalidPassword, in: schema)
            throw Self.rejected(.invalidPassword)
        }
        if let hash = stored.passwordHash, hashers.needsRehash(hash, projectId: params.projectId) {
            await rehash(params.password, replacing: hash, localId: localId, projectId: params.projectId, in: schema)
        }
        let kinds = Set(params.secondFactorKinds ?? [])
        if stored.account.mfaInfo?.contains(where: { kinds.contains($0.kind) }) == true {
            try await accounts.events.record(
                .signInSucceeded, localId: localId, details: ["factor": "password", "secondFactor": "required"], in: schema
            )
            return .init(account: stored.account, lastLoginAt: 0, secondFactorRequired: true)
        }
        let lastLoginAt = try await accounts.recordSignIn(in: schema, localId: localId)
        try await accounts.events.record(.signInSucceeded, localId: localId, details: ["factor": "password"], in: schema)
        return .init(account: stored.account, lastLoginAt: lastLoginAt)
    }

    /// The first sign-in with an imported hash (or one of old parameters) replaces it with the
    /// project's own scrypt hash: the foreign algorithm and its parameters are then gone. Only if
    /// the hash is still the one that matched (a password change meanwhile wins). A failure here
    /// costs nothing but the next sign-in's retry, so the sign-in goes on.
    private func rehash(_ password: String, replacing old: String, localId: String, projectId: String, in schema: TenantSchema) async {
        do {
            let new = try await hashers.hasher(for: projectId).hash(password)
            try await accounts.replacePasswordHash(in: schema, localId: localId, from: old, to: new)
        } catch {
            accounts.logger.warning("imported password hash not replaced yet", metadata: ["error": "\(String(reflecting: error))"])
        }
    }

    /// A refused password: the account when there is one, and why; never the address or the password.
    private func signInFailed(_ localId: String?, reason: IdentityToolkitError.Code, in schema: TenantSchema) async throws {
        try await accounts.events.record(
            .signInFailed, localId: localId, details: ["factor": "password", "reason": reason.rawValue], in: schema
        )
    }

    /// §2.13: the phone as a first factor, after challenge-issuer verified the number.
    func signInWithPhone(_ params: SignInWithPhone.Params) async throws -> SignInWithPhone.Result {
        let schema = try await activeSchema(projectId: params.projectId, tenantId: params.tenantId)
        guard PhoneNumber.isValid(params.phoneNumber) else { throw Self.rejected(.invalidPhoneNumberFormat) }
        try await limits.admit(address: params.clientAddress)
        // Two first sign-ins with one new number race to create it: the loser signs in to the winner's.
        for _ in 0..<2 {
            if let existing = try await accounts.accounts(in: schema, localIds: [], emails: [], phoneNumbers: [params.phoneNumber]).first {
                if existing.mfaInfo?.isEmpty == false { throw Self.rejected(.phoneFirstFactorOnMFAUser) }
                if existing.disabled { throw Self.rejected(.userDisabled) }
                let lastLoginAt = try await accounts.recordSignIn(in: schema, localId: existing.localId)
                return .init(account: existing, isNewUser: false, lastLoginAt: lastLoginAt)
            }
            do {
                let created = try await accounts.insert(
                    in: schema, localId: RandomIdentifier.make(), email: nil, passwordHash: nil, displayName: nil,
                    held: params.holdNewAccount == true, phoneNumber: params.phoneNumber, signedIn: true
                )
                return .init(account: created, isNewUser: true, lastLoginAt: EpochSeconds(milliseconds: Int64(created.createdAt) ?? 0))
            } catch is AccountRepository.PhoneNumberTaken {
                continue
            }
        }
        throw Self.rejected(.phoneNumberExists)
    }

    /// §2.1, privileged path (Admin SDK `createUser`).
    func create(_ params: CreateAccount.Params) async throws -> Account {
        let schema = try await activeSchema(projectId: params.projectId, tenantId: params.tenantId)
        let localId = params.localId ?? RandomIdentifier.make()
        guard !localId.isEmpty, localId.utf8.count <= 128 else {
            throw Self.rejected(.invalidLocalID, detail: "localId must be 1 to 128 bytes")
        }
        if params.localId != nil, try await accounts.account(in: schema, localId: localId) != nil {
            throw Self.rejected(.duplicateLocalID)
        }
        if let phone = params.phoneNumber, !PhoneNumber.isValid(phone) { throw Self.rejected(.invalidPhoneNumberFormat) }
        if let email = params.email, !EmailAddress.isValid(email) { throw Self.rejected(.invalidEmail) }
        if let password = params.password {
            try Self.checkPassword(password)
        }
        try Self.checkDisplayName(params.displayName)
        try Self.checkPhotoUrl(params.photoUrl)
        let passwordHash = try await hashers.hash(params.password, for: params.projectId)
        do {
            return try await accounts.insert(
                in: schema, localId: localId, email: params.email, passwordHash: passwordHash,
                displayName: params.displayName, emailVerified: params.emailVerified ?? false,
                disabled: params.disabled ?? false, phoneNumber: params.phoneNumber, photoUrl: params.photoUrl
            )
        } catch is AccountRepository.EmailTaken {
            throw Self.rejected(.emailExists)
        } catch is AccountRepository.LocalIDTaken {
            throw Self.rejected(.duplicateLocalID)
        } catch is AccountRepository.PhoneNumberTaken {
            throw Self.rejected(.phoneNumberExists)
        }
    }

    func find(_ params: FindAccounts.Params) async throws -> FindAccounts.Result {
        let schema = try await activeSchema(projectId: params.projectId, tenantId: params.tenantId)
        let phoneNumbers = params.phoneNumbers ?? []
        guard params.localIds.count + params.emails.count + phoneNumbers.count <= 1000 else {
            throw Self.rejected(.invalidArgument, detail: "at most 1000 identifiers")
        }
        return .init(
            accounts: try await accounts.accounts(
                in: schema, localIds: params.localIds, emails: params.emails, phoneNumbers: phoneNumbers
            )
        )
    }

    func update(_ params: UpdateAccount.Params) async throws -> Account {
        let schema = try await activeSchema(projectId: params.projectId, tenantId: params.tenantId)
        var changes = AccountRepository.Changes()
        if let email = params.email {
            guard EmailAddress.isValid(email) else { throw Self.rejected(.invalidEmail) }
            changes.email = email
            changes.revokeSessions = true
        }
        if let password = params.password {
            try Self.checkPassword(password)
            changes.passwordHash = try await hashers.hasher(for: params.projectId).hash(password)
            changes.revokeSessions = true
        }
        if let phone = params.phoneNumber {
            guard PhoneNumber.isValid(phone) else { throw Self.rejected(.invalidPhoneNumberFormat) }
            changes.phoneNumber = phone
        }
        changes.deletePhoneNumber = params.deletePhoneNumber ?? false
        try Self.checkPhotoUrl(params.photoUrl)
        changes.photoUrl = params.photoUrl
        changes.deletePhotoUrl = params.deletePhotoUrl ?? false
        changes.unlinkProviders = (params.unlinkProviders ?? []).filter { $0.utf8.count <= 128 }
        changes.keepWayIn = params.keepWayIn ?? false
        try Self.checkDisplayName(params.displayName)
        changes.displayName = params.displayName
        changes.deleteDisplayName = params.deleteDisplayName ?? false
        changes.emailVerified = params.emailVerified
        changes.disabled = params.disabled
        changes.validSince = params.validSince
        if let claims = params.customAttributes {
            try Self.checkClaims(claims)
            changes.customAttributes = claims
        }
        do {
            guard let account = try await accounts.update(in: schema, localId: params.localId, changes) else {
                throw Self.rejected(.userNotFound)
            }
            return account
        } catch is AccountRepository.EmailTaken {
            throw Self.rejected(.emailExists)
        } catch is AccountRepository.PhoneNumberTaken {
            throw Self.rejected(.phoneNumberExists)
        } catch is AccountRepository.NoWayInLeft {
            throw Self.rejected(.operationNotAllowed, detail: Self.lastWayIn)
        }
    }

    /// `OPERATION_NOT_ALLOWED`'s detail for an unlink that would leave no way in (docs/contract.md, decision 18).
    static let lastWayIn = "The account's last way to sign in cannot be removed."

    func recordSignIn(_ params: RecordSignIn.Params) async throws -> Account {
        let schema = try await activeSchema(projectId: params.projectId, tenantId: params.tenantId)
        guard
            let account = try await accounts.recordSignIn(
                in: schema, localId: params.localId, requiredEnrollment: params.requiredEnrollment,
                requiredKind: params.requiredKind, record: params.recording
            )
        else {
            // Nothing recorded: the account is gone, or it lacks the required enrollment.
            if params.requiredEnrollment != nil, try await accounts.account(in: schema, localId: params.localId) != nil {
                throw Self.rejected(.mfaEnrollmentNotFound)
            }
            throw Self.rejected(.userNotFound)
        }
        if let factor = params.firstFactor {
            try await accounts.events.record(.signInSucceeded, localId: params.localId, details: ["factor": factor], in: schema)
        }
        return account
    }

    /// `account.checkFactor`: the account while it has the factor, of that kind; records nothing.
    func checkFactor(_ params: CheckFactor.Params) async throws -> Account {
        let schema = try await activeSchema(projectId: params.projectId, tenantId: params.tenantId)
        if let account = try await accounts.account(
            in: schema, localId: params.localId, withFactor: params.enrollmentId, of: params.kind
        ) {
            return account
        }
        // The account is gone, or it lacks that factor of that kind.
        guard try await accounts.account(in: schema, localId: params.localId) != nil else { throw Self.rejected(.userNotFound) }
        throw Self.rejected(.mfaEnrollmentNotFound)
    }

    func deleteAll(_ scope: TenantScope) async throws {
        try await accounts.deleteAll(in: try await activeSchema(projectId: scope.projectId, tenantId: scope.tenantId))
    }

    /// Developer claims must be a JSON object of at most 1000 bytes using no reserved name.
    static func checkClaims(_ text: String) throws {
        guard text.utf8.count <= ReservedClaims.maximumBytes else { throw rejected(.claimsTooLarge) }
        guard case .object(let members)? = try? JSONCoding.parse(Array(text.utf8)) else { throw rejected(.invalidClaims) }
        if let reserved = members.keys.sorted().first(where: ReservedClaims.names.contains) {
            throw rejected(.forbiddenClaim, detail: reserved)
        }
    }

    func deleteMany(_ params: DeleteAccounts.Params) async throws -> DeleteAccounts.Result {
        guard (1...1000).contains(params.localIds.count) else { throw Self.rejected(.localIDListExceedsLimit) }
        let schema = try await activeSchema(projectId: params.projectId, tenantId: params.tenantId)
        let kept = try await accounts.delete(in: schema, localIds: params.localIds, onlyDisabled: !params.force)
        return .init(
            errors: params.localIds.enumerated().filter { kept.contains($0.element) }.map { index, id in
                .init(index: index, localId: id, message: "NOT_DISABLED : Disable the account before batch deletion.")
            }
        )
    }

    func list(_ params: ListAccounts.Params) async throws -> ListAccounts.Result {
        let schema = try await activeSchema(projectId: params.projectId, tenantId: params.tenantId)
        let limit = params.maxResults ?? 20
        guard (1...1000).contains(limit) else {
            throw Self.rejected(.invalidArgument, detail: "maxResults must be 1 to 1000")
        }
        let page = try await accounts.page(in: schema, afterLocalId: params.pageToken, limit: limit)
        return .init(accounts: page, nextPageToken: page.count == limit ? page.last?.localId : nil)
    }

    /// The account, or `nil` when there is none.
    func existing(_ params: GetAccount.Params) async throws -> Account? {
        let schema = try await activeSchema(projectId: params.projectId, tenantId: params.tenantId)
        return try await accounts.account(in: schema, localId: params.localId)
    }

    func get(_ params: GetAccount.Params) async throws -> Account {
        let schema = try await activeSchema(projectId: params.projectId, tenantId: params.tenantId)
        guard let account = try await accounts.account(in: schema, localId: params.localId) else {
            throw Self.rejected(.userNotFound)
        }
        return account
    }

    func delete(_ params: DeleteAccount.Params) async throws {
        let schema = try await activeSchema(projectId: params.projectId, tenantId: params.tenantId)
        guard try await accounts.delete(in: schema, localId: params.localId) else { throw Self.rejected(.userNotFound) }
    }

    /// The schema of an active project or tenant: an id that cannot be one is the scope door's
    /// `TENANT_NOT_FOUND`, as is a tenant that is not active; a project that is not is
    /// `CONFIGURATION_NOT_FOUND`.
    func activeSchema(projectId: String, tenantId: String?) async throws -> TenantSchema {
        let schema = try ScopeSchema.of(projectId, tenantId)
        if let tenantId {
            guard try await tenants.tenant(projectId: projectId, tenantId: tenantId)?.state == .active else {
                throw TenantRegistryError.tenantNotFound
            }
        } else {
            guard try await tenants.projectState(projectId) == .active else { throw TenantRegistryError.projectNotFound }
        }
        return schema
    }

    /// `WEAK_PASSWORD` below 6 characters; above 4096 bytes too, since hashing them only costs us CPU.
    static func checkPassword(_ password: String) throws {
        guard password.count >= minimumPasswordLength else {
            throw rejected(.weakPassword, detail: "Password should be at least 6 characters")
        }
        guard password.utf8.count <= PasswordHasher.maximumPasswordBytes else {
            throw rejected(.weakPassword, detail: "Password should be at most 4096 bytes")
        }
    }

    static func checkDisplayName(_ name: String?) throws {
        if let name, name.utf8.count > 256 {
            throw rejected(.invalidDisplayName, detail: "Display name should be at most 256 bytes")
        }
    }

    /// A photo URL is stored as given (clients show it), but not without bound, and only as a web
    /// address: apps put it in an `<img src>` or a link, where `javascript:` or `data:` would run or
    /// show whatever its writer chose (issue 56, F-14).
    static func checkPhotoUrl(_ url: String?) throws {
        guard let url else { return }
        if url.utf8.count > 2048 {
            throw rejected(.invalidPhotoURL, detail: "Photo URL should be at most 2048 bytes")
        }
        if !isWebAddress(url) { throw rejected(.invalidPhotoURL, detail: "Photo URL must be an http or https URL") }
    }

    /// An absolute `http:` or `https:` URL with a host.
    static func isWebAddress(_ text: String) -> Bool {
        guard let components = URLComponents(string: text), let scheme = components.scheme?.lowercased(),
            scheme == "https" || scheme == "http", let host = components.host, !host.isEmpty
        else { return false }
        return true
    }

    static func rejected(_ code: IdentityToolkitError.Code, detail: String? = nil) -> RPCError {
        rejected(IdentityToolkitError(code, detail: detail))
    }

    static func rejected(_ error: IdentityToolkitError) -> RPCError {
        RPCError(code: .accountRejected, business: error)
    }
}
