import Contracts
import Foundation
import IdentityToolkit
import JSONRPC
import TenantStore

/// `account.import` (Admin SDK `importUsers`, contract §2.17). Whole-request problems refuse the
/// request; a problem with one account is reported at its index and the rest are imported.
/// Password hashes come in any of Identity Platform's algorithms (``ImportedHashScheme``); the
/// user signs in with their old password, and that first sign-in replaces the hash with the
/// project's own (`AccountService.verifyPassword`).
struct AccountImporter: Sendable {
    let service: AccountService
    let enrollments: EnrollmentRepository
    let identities: FederatedIdentityRepository

    static let maximumAccounts = 1000

    func run(_ params: ImportAccounts.Params) async throws -> ImportAccounts.Result {
        let schema = try await service.activeSchema(projectId: params.projectId, tenantId: params.tenantId)
        guard !params.users.isEmpty else { throw AccountService.rejected(.missingUserAccount) }
        guard params.users.count <= Self.maximumAccounts else {
            throw AccountService.rejected(.maximumUserCountExceeded, detail: "at most 1000 accounts per request")
        }
        let scheme = try Self.scheme(params)
        let sealedKey = try scheme?.sealedKey(service.hashers.sealer)
        if !params.allowOverwrite, let repeated = Self.firstRepeat(params.users.compactMap(\.localId)) {
            throw AccountService.rejected(.duplicateLocalID, detail: repeated)
        }
        if params.sanityCheck,
            let repeated = Self.firstRepeat(params.users.compactMap { $0.email.map(EmailAddress.normalized) })
        {
            throw AccountService.rejected(.duplicateEmail, detail: repeated)
        }
        // The records first, hashing on every core (a raw password or a fast digest costs a scrypt),
        // then the rows in the file's order.
        let records = await prepare(params, scheme: scheme, sealedKey: sealedKey)
        var failures: [ImportAccounts.Failure] = []
        for (index, user) in params.users.enumerated() {
            do {
                let record = try records[index].get()
                let factors = try Self.secondFactors(user)
                let links = try Self.providerLinks(user)
                try await write(record, factors: factors, links: links, overwrite: params.allowOverwrite, in: schema)
            } catch let failure as ImportFailure {
                failures.append(.init(index: index, message: failure.message))
            } catch is AccountRepository.LocalIDTaken {
                failures.append(.init(index: index, message: "localId belongs to an existing account - can not overwrite."))
            } catch is AccountRepository.EmailTaken {
                failures.append(.init(index: index, message: "email is already in use by another account."))
            } catch is AccountRepository.PhoneNumberTaken {
                failures.append(.init(index: index, message: "phone number is already in use by another account."))
            } catch is FederatedIdentityRepository.AlreadyLinked {
                failures.append(.init(index: index, message: "a providerUserInfo entry is already linked to another account."))
            }
        }
        return .init(errors: failures)
    }

    /// One user's account, factors and links in one transaction: a user refused for any of them (a
    /// link another account holds, say) is left out whole, and the users after it go on.
    private func write(
        _ record: AccountRepository.ImportRecord, factors: [Enrollment], links: [FederatedIdentity], overwrite: Bool,
        in schema: TenantSchema
    ) async throws {
        let (accounts, enrollments, identities) = (service.accounts, self.enrollments, self.identities)
        do {
            try await accounts.client.withTransaction(logger: accounts.logger) { connection in
                try await accounts.importAccount(in: schema, record, overwrite: overwrite, on: connection)
                if !factors.isEmpty || overwrite {
                    try await enrollments.replace(in: schema, localId: record.localId, factors, on: connection)
                }
                if !links.isEmpty || overwrite {
                    try await identities.replace(in: schema, localId: record.localId, links, on: connection)
                }
            }
        } catch let error as TransactionError {
            guard let refusal = error.closureError, error.rollbackError == nil else { throw error }
            throw refusal
        }
    }

    /// Each user's record, or why it cannot be one, computed a few at a time (as many as there are
    /// cores: an import never takes the hashing queue from sign-ins).
    private func prepare(
        _ params: ImportAccounts.Params, scheme: ImportedHashScheme?, sealedKey: Data?
    ) async -> [Result<AccountRepository.ImportRecord, ImportFailure>] {
        let width = max(1, ProcessInfo.processInfo.activeProcessorCount)
        var results = [Result<AccountRepository.ImportRecord, ImportFailure>](
            repeating: .failure(ImportFailure(message: "not imported")), count: params.users.count
        )
        for start in stride(from: 0, to: params.users.count, by: width) {
            let chunk = start..<min(start + width, params.users.count)
            await withTaskGroup(of: (Int, Result<AccountRepository.ImportRecord, ImportFailure>).self) { group in
                for index in chunk {
                    let user = params.users[index]
                    group.addTask {
                        do {
                            return (
                                index,
                                .success(
                                    try await record(
                                        for: user, projectId: params.projectId, tenantId: params.tenantId, scheme: scheme,
                                        sealedKey: sealedKey
                                    )
                                )
                            )
                        } catch let failure as ImportFailure {
                            return (index, .failure(failure))
                        } catch {
                            // The hashing queue was full: this user can be imported again later.
                            return (index, .failure(ImportFailure(message: "the server is busy: import this user again")))
                        }
                    }
                }
                for await (index, result) in group { results[index] = result }
            }
        }
        return results
    }

    /// §2.17's per-account checks of imported phone factors.
    static func secondFactors(_ user: ImportedAccount) throws -> [Enrollment] {
        guard let items = user.mfaInfo, !items.isEmpty else { return [] }
        guard user.email != nil else { throw ImportFailure(message: "Second factor account requires email to be presented.") }
        guard user.emailVerified == true else {
            throw ImportFailure(message: "Second factor account requires email to be verified.")
        }
        var ids: Set<String> = []
        // One number is one factor (contract §3.1: exact equality de-duplicates): a repeat is dropped,
        // as an admin's replacement of the list drops it.
        var numbers: Set<String> = []
        let distinct = items.filter { item in
            guard let number = item.phoneNumber else { return true }
            return numbers.insert(number).inserted
        }
        return try distinct.map { item in
            // A TOTP factor comes with its id: the gateway stored its secret under it first.
            if item.kind == .totp, !item.mfaEnrollmentId.isEmpty {
                guard ids.insert(item.mfaEnrollmentId).inserted else { throw ImportFailure(message: "Enrollment id already exists.") }
                return Enrollment(
                    mfaEnrollmentId: item.mfaEnrollmentId, kind: .totp, displayName: item.displayName, phoneNumber: nil,
                    enrolledAt: item.enrolledAt
                )
            }
            guard let number = item.phoneNumber else { throw ImportFailure(message: "Second factor not supported.") }
            guard PhoneNumber.isValid(number) else { throw ImportFailure(message: "Phone number format is invalid") }
            let id = item.mfaEnrollmentId.isEmpty ? RandomIdentifier.make() : item.mfaEnrollmentId
            guard id.utf8.count <= 128, ids.insert(id).inserted else { throw ImportFailure(message: "Enrollment id already exists.") }
            return Enrollment(
                mfaEnrollmentId: id, kind: .phone, displayName: item.displayName, phoneNumber: number, enrolledAt: item.enrolledAt
            )
        }
    }

    /// The request's hash algorithm, required (and checked) only when some account has a hash.
    /// The provider links of an import: a known kind of id each, one per provider, a subject of at most 255 bytes.
    static func providerLinks(_ user: ImportedAccount) throws -> [FederatedIdentity] {
        var seen: Set<String> = []
        return try (user.providerUserInfo ?? []).map { link in
            guard
                DefaultSupportedProviders.ids.contains(link.providerId) || IdentityProviderConfigService.isOIDCProviderID(link.providerId)
                    || link.providerId.hasSuffix(".com")
            else { throw ImportFailure(message: "providerUserInfo has an unknown providerId") }
            guard !link.rawId.isEmpty, link.rawId.utf8.count <= 255 else { throw ImportFailure(message: "providerUserInfo needs a rawId") }
            guard seen.insert(link.providerId).inserted else {
                throw ImportFailure(message: "providerUserInfo names a provider twice")
            }
            return link
        }
    }

    static func scheme(_ params: ImportAccounts.Params) throws -> ImportedHashScheme? {
        guard params.users.contains(where: { $0.passwordHash != nil }) else { return nil }
        guard let hash = params.hash else {
            throw AccountService.rejected(.invalidHashAlgorithm, detail: "hashAlgorithm is required with passwordHash")
        }
        return try ImportedHashScheme(hash)
    }

    func record(
        for user: ImportedAccount, projectId: String, tenantId: String?, scheme: ImportedHashScheme?, sealedKey: Data?
    ) async throws -> AccountRepository.ImportRecord {
        guard let localId = user.localId, !localId.isEmpty else { throw ImportFailure(message: "localId is missing") }
        guard localId.utf8.count <= 128 else { throw ImportFailure(message: "localId is too long (at most 128 bytes)") }
        if let own = user.tenantId, own != tenantId {
            throw ImportFailure(message: "Tenant id in userInfo does not match the tenant id in request.")
        }
        if let email = user.email, !EmailAddress.isValid(email) { throw ImportFailure(message: "email is invalid") }
        if let phone = user.phoneNumber, !PhoneNumber.isValid(phone) {
            throw ImportFailure(message: "phone number format is invalid")
        }
        if let name = user.displayName, name.utf8.count > 256 { throw ImportFailure(message: "displayName is too long") }
        if let photo = user.photoUrl, photo.utf8.count > 2048 || !AccountService.isWebAddress(photo) {
            throw ImportFailure(message: "photoUrl must be an http or https URL of at most 2048 bytes")
        }
        if let claims = user.customAttributes {
            guard claims.utf8.count <= ReservedClaims.maximumBytes else {
                throw ImportFailure(message: "Custom claims provided are too large.")
            }
            guard case .object(let members)? = try? JSONCoding.parse(Array(claims.utf8)) else {
                throw ImportFailure(message: "Invalid custom claims provided.")
            }
            if members.keys.contains(where: ReservedClaims.names.contains) {
                throw ImportFailure(message: "Custom claims provided include a reserved claim.")
            }
        }
        var passwordHash: String?
        if let hash = user.passwordHash {
            guard let scheme, let bytes = Self.base64(hash), !bytes.isEmpty, bytes.count <= 1024,
                let salt = Self.base64(user.salt ?? ""), salt.count <= 1024
            else { throw ImportFailure.invalidHash }
            passwordHash = try await scheme.stored(
                hash: bytes, salt: salt, sealedKey: sealedKey, inner: service.hashers.hasher(for: projectId)
            )
        } else if let raw = user.rawPassword {
            guard raw.count >= AccountService.minimumPasswordLength, raw.utf8.count <= PasswordHasher.maximumPasswordBytes else {
                throw ImportFailure(message: "rawPassword must be 6 characters to 4096 bytes")
            }
            passwordHash = try await service.hashers.hasher(for: projectId).hash(raw)
        }
        return AccountRepository.ImportRecord(
            localId: localId, email: user.email, emailVerified: user.emailVerified ?? false, displayName: user.displayName,
            photoUrl: user.photoUrl, disabled: user.disabled ?? false, phoneNumber: user.phoneNumber,
            customAttributes: user.customAttributes,
            passwordHash: passwordHash, createdAtMillis: try Self.millis(user.createdAt, "createdAt"),
            lastLoginAtMillis: try Self.millis(user.lastLoginAt, "lastLoginAt")
        )
    }

    static func millis(_ text: String?, _ field: String) throws -> Int64? {
        guard let text else { return nil }
        guard let value = Int64(text), value >= 0, value < 253_402_300_800_000 else {
            throw ImportFailure(message: "\(field) is invalid")
        }
        return value
    }

    /// Standard or URL-safe base64, padded or not (the Admin SDKs send URL-safe).
    static func base64(_ text: String) -> Data? {
        var standard = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        standard = standard.trimmingCharacters(in: CharacterSet(charactersIn: "="))
        standard += String(repeating: "=", count: (4 - standard.count % 4) % 4)
        return Data(base64Encoded: standard)
    }

    static func firstRepeat(_ values: [String]) -> String? {
        var seen: Set<String> = []
        for value in values where !seen.insert(value).inserted { return value }
        return nil
    }
}
